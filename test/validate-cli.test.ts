import { execFile } from 'node:child_process';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { fixtureDb } from './helpers/fixture-db.ts';

const root = path.resolve(import.meta.dirname, '..');

function hcas(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['bin/hcas.js', ...args], { cwd: root, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

describe('hcas validate', () => {
  let db: string;
  beforeAll(async () => {
    db = await fixtureDb();
  });

  it('prints every check with its result and exits 3 when one fails, naming it', async () => {
    const run = await hcas('validate', '--db', db);
    expect(run.code).toBe(3);
    expect(run.stdout).toMatch(/^ok\s+every band holds residents/m);
    expect(run.stdout).toMatch(/^FAIL\s+academic medical centre ZIPs/m);
    expect(run.stdout).toMatch(/below 70: 10001 19 \(people 12\)/);
    expect(run.stderr).toMatch(/1 of 2 checks failed: academic medical centre ZIPs are in the top two bands/);
  });

  it('prints the report as JSON or as the Markdown of docs/VALIDATION.md', async () => {
    const asJson = await hcas('validate', '--db', db, '--json');
    expect(JSON.parse(asJson.stdout).checks).toHaveLength(2);
    const asMarkdown = await hcas('validate', '--db', db, '--markdown');
    expect(asMarkdown.stdout).toMatch(/^# Validation: hcas test fixture\n/);
    expect(asMarkdown.stdout).toContain('| **FAIL** | academic medical centre ZIPs are in the top two bands | 0 of 1 | all |');
    expect((await hcas('validate', '--db', db, '--json', '--markdown')).code).toBe(2);
  });
});
