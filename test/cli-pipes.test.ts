import { beforeAll, describe, expect, it } from 'vitest';
import { shell } from './helpers/cli.ts';
import { fixtureDb } from './helpers/fixture-db.ts';

/**
 * A reader that stops early closes the pipe: `hcas` must end there, quietly, with status 0 (as cat and gh do),
 * for every command that writes more than a line. `| head -1` checks the first line is the real output;
 * `| true` closes the pipe before hcas has written anything, so the write certainly meets the closed pipe.
 */
let db: string;
beforeAll(async () => {
  db = await fixtureDb();
});

/** Command lines whose first line of output is known, by what it must start with. */
const STREAMING: Array<[string, RegExp]> = [
  ['hcas export providers', /^npi,first_name,last_name,/],
  ['hcas export providers --format ndjson', /^\{"npi":"\d{10}"/],
  ['hcas export health-scores', /^zip_code,|^id,/],
  ['hcas export facilities --format ndjson', /^\{"id":\d+/],
  ["hcas get 'exports/providers/?format=ndjson'", /^\{"npi":"\d{10}"/],
  ['hcas get openapi.json', /^\{"openapi":"3\.1/],
  ['hcas providers --all', /^npi\tfirst_name\tlast_name/],
  ['hcas providers --all --ndjson', /^\{"npi":"\d{10}"/],
  ['hcas providers --all --json', /^\[\n$/],
  ['hcas providers --all --csv', /^npi,first_name,last_name/],
  ['hcas scores --all', /^id\tzip_code\t/],
  ['hcas facilities --all', /^id\tfacility_name\t/],
  ['hcas tvi --top --all', /^zip_code\tcity\tstate\ttvi_score/],
  ['hcas providers', /^npi\tfirst_name/],
  ['hcas scores --json', /^\{\n$/],
  ['hcas states', /^state_code\tstate_name/],
  ['hcas score-types', /^id\tname\tdescription/],
  ['hcas rankings states', /^rank\tstate\t/],
  ['hcas rankings hospitals', /^rank\tid\t/],
  ["hcas autocomplete 'new'", /^type\tlabel\turl/],
  // nearby is the health-scores list near the ZIP code: a score record and its distance per row.
  ['hcas nearby 10001 --radius 50', /^id\tzip_code\t.*\tdistance_miles\n$/],
  ['hcas census 10001', /^group\tfield\tvalue/],
  ['hcas compare 10001 02801', /^id\tzip_code\t/],
  ['hcas score 10001', /^id\tzip_code\t/],
  ['hcas tvi 10001', /^zip_code\ttvi_score/],
];

describe('a closed stdout ends the command quietly with status 0', { timeout: 120_000 }, () => {
  it.each(STREAMING)('%s | head -1', async (command, first) => {
    const run = await shell(`${command} --db '${db}' | head -1`);
    // Only notes for the person (a page's footer) may reach stderr: no stack, no error.
    expect(run.stderr).toMatch(/^(\d[\d,]* of [\d,]+ matching .*\n)?$/);
    expect(run.statuses).toEqual([0, 0]);
    expect(run.stdout).toMatch(first);
    expect(run.stdout.split('\n')).toHaveLength(2);
  });

  it.each(STREAMING.map(([command]) => command))('%s | true', async (command) => {
    const run = await shell(`${command} --db '${db}' | true`);
    expect(run.stderr).toMatch(/^(\d[\d,]* of [\d,]+ matching .*\n)?$/);
    expect(run.statuses).toEqual([0, 0]);
  });

  it('and a write error other than a closed pipe still fails', async () => {
    // /dev/full answers every write with ENOSPC: that is a real failure, not a reader that stopped.
    const run = await shell(`hcas export providers --db '${db}' > /dev/full`);
    expect(run.statuses[0]).not.toBe(0);
    expect(run.stderr).toMatch(/ENOSPC/);
  });
});
