import { it } from 'vitest';
import { HAVE_SHARED_DATA, SHARED_DATA } from './files.ts';

/** What a user without the originals can do, said once per run by the global setup (sharedDataNotice). */
const WITHOUT = `the original public files are not beside this clone (${SHARED_DATA}): the tests that check the bundled raw/public against them are skipped`;
const FIX =
  'Nothing is wrong with your copy: raw/public and every other test stand on their own, and CI runs these with the originals. ' +
  'To run them yourself, put the originals there (raw/public/README.md, "Regenerating").';

/**
 * Registers, in place of tests that need the original public files, a failing test under CI=true (a CI run
 * without them must not go green); elsewhere nothing, the run's one notice says it. True when they are here.
 */
export function needsSharedData(what: string): boolean {
  if (HAVE_SHARED_DATA) return true;
  if (process.env.CI === 'true')
    it(`${what}: the original public files must be present when CI=true`, () => {
      throw new Error(`${WITHOUT}. ${FIX}`);
    });
  return false;
}

/** Vitest's global setup: the one notice of a run without the originals. */
export default function sharedDataNotice(): void {
  if (!HAVE_SHARED_DATA) console.warn(`\nnote: ${WITHOUT}.\n      ${FIX}\n`);
}
