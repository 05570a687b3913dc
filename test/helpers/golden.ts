import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';

const GOLDEN_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../golden');

/**
 * Compares a value with `test/golden/NAME.json` (pretty JSON). `UPDATE_GOLDEN=1` rewrites the file; on a
 * mismatch the actual value is written beside it as `NAME.actual.json` for diffing.
 */
export function expectGolden(name: string, actual: unknown): void {
  const file = path.join(GOLDEN_DIR, `${name}.json`);
  const actualFile = path.join(GOLDEN_DIR, `${name}.actual.json`);
  const text = `${JSON.stringify(actual, null, 2)}\n`;
  if (process.env.UPDATE_GOLDEN) {
    writeFileSync(file, text);
    rmSync(actualFile, { force: true });
    return;
  }
  if (!existsSync(file)) {
    writeFileSync(actualFile, text);
    throw new Error(`test/golden/${name}.json does not exist; run with UPDATE_GOLDEN=1 to create it (actual value in ${actualFile})`);
  }
  const expected = readFileSync(file, 'utf8');
  if (expected === text) {
    rmSync(actualFile, { force: true });
    return;
  }
  writeFileSync(actualFile, text);
  expect(text, `golden mismatch: diff test/golden/${name}.json ${name}.actual.json (UPDATE_GOLDEN=1 accepts it)`).toBe(expected);
}
