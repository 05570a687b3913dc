import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { codeFingerprint, COMPILED_FINGERPRINT_FILE, WRITER_CODE } from '../pipeline/base/code.ts';
import { shell } from './helpers/cli.ts';
import { tempDir } from './helpers/files.ts';
import { copyPackage } from './helpers/package-copy.ts';

/**
 * The build id names the code that ran (issue 28, point 2): it hashes the TypeScript sources, so `hcas build`
 * and `hcas sample`, which run dist/, refuse a dist/ compiled from other sources, naming `npm run build`.
 */
const work = tempDir('hcas-stale-code-');
const copy = copyPackage(work);
const run = (command: string) => shell(command, { cwd: copy, timeoutMs: 120_000, env: { HCAS_DB: undefined } });

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('a dist/ older than its sources', { timeout: 180_000 }, () => {
  it('npm run build records the sources it compiled', () => {
    expect(readFileSync(COMPILED_FINGERPRINT_FILE, 'utf8')).toBe(`${codeFingerprint(WRITER_CODE)}\n`);
  });

  it('is refused by hcas build and hcas sample with status 3 until npm run build, then runs', async () => {
    // A weight changed after the last `npm run build`, as in the issue.
    // (A constant added would also need its parts in scoring-parts.ts to compile.)
    const scoring = path.join(copy, 'pipeline/config/scoring.ts');
    writeFileSync(scoring, readFileSync(scoring, 'utf8').replace('PEOPLE_FLOOR = 0.55;', 'PEOPLE_FLOOR = 0.5;'));
    const missing = path.join(work, 'none.json');
    const [build, sample] = await Promise.all([
      run(`node bin/hcas.js build --manifest ${missing} --out ${path.join(work, 'out.sqlite')}`),
      run(`node bin/hcas.js sample --out ${path.join(work, 'sample')}`),
    ]);
    for (const [result, command] of [
      [build, 'build'],
      [sample, 'sample'],
    ] as const) {
      expect(result).toMatchObject({
        statuses: [3],
        stderr:
          'hcas: the compiled code in dist/ is older than its sources in core/, pipeline/, producers/ (changed since the last `npm run build`): ' +
          `run \`npm run build\`, then \`hcas ${command}\` again (it would run the old code under a build id that names the new)\n`,
      });
    }
    const compiled = await run('npm run build --silent');
    expect(compiled.statuses, compiled.stderr).toEqual([0]);
    // Past the check: the build now stops only at the missing manifest.
    const after = await run(`node bin/hcas.js build --manifest ${missing} --out ${path.join(work, 'out.sqlite')}`);
    expect(after.statuses).toEqual([3]);
    expect(after.stderr).toContain('none.json');
    expect(after.stderr).not.toContain('npm run build');
  });
});
