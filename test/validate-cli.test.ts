import { beforeAll, describe, expect, it } from 'vitest';
import { fixtureDb } from './helpers/fixture-db.ts';
import { hcas as runHcas } from './helpers/cli.ts';

/** Runs `hcas ARGS` (in this process). */
const hcas = (...args: string[]) => runHcas(args);

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
