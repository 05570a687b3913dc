import { execFileSync } from 'node:child_process';
import { it } from 'vitest';

/**
 * Says loudly that tests needing a service (Redis, Chromium, nginx) are skipped because it is absent: such
 * tests never pass silently. Under `CI=true` (set by .ci/run and by CI services) a skip is not allowed: a
 * failing test is registered in its place, so a CI machine without the service fails instead of going green.
 * Call it where the skipped tests would have been declared (top level or inside their describe).
 */
export function serviceMissing(what: string, fix: string): void {
  const line = '!'.repeat(100);
  console.warn(`\n${line}\n!! SKIPPED: ${what}\n!! ${fix}\n${line}\n`);
  if (process.env.CI === 'true') {
    it(`${what}: its service must be present when CI=true`, () => {
      throw new Error(`SKIPPED under CI=true: ${what}. ${fix}`);
    });
  }
}

/** True when `command args` runs (a binary on PATH). */
export function hasCommand(command: string, args: string[] = ['-v']): boolean {
  try {
    execFileSync(command, args, { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
