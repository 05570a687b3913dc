import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api } from '../src/api/index.ts';
import { qualityNotes, table } from '../src/cli/format.ts';
import { hcas } from './helpers/cli.ts';
import { fixtureDb } from './helpers/fixture-db.ts';

/** The CLI's words as a new user meets them (issue 28, point 8): headings, field names, notes, numbers. */
let db: string;
let api: Api;
const body = async (url: string) => JSON.parse((await api.respond({ method: 'GET', url })).body.toString('utf8'));

beforeAll(async () => {
  db = await fixtureDb();
  api = Api.open(db);
});
afterAll(() => api.retire());

describe('CLI words', { timeout: 60_000 }, () => {
  it('every table heading of a list is a field name --fields takes', async () => {
    const [providers, facilities] = await Promise.all([
      hcas(['providers', '--state', 'RI', '--page-size', '2', '--table', '--db', db]),
      hcas(['facilities', '--state', 'RI', '--page-size', '2', '--table', '--db', db]),
    ]);
    const [providerFields, facilityFields] = await Promise.all([
      body('/api/v1/providers/?state=RI&page_size=1'),
      body('/api/v1/facilities/?state=RI&page_size=1'),
    ]);
    for (const [run, fields] of [
      [providers, providerFields],
      [facilities, facilityFields],
    ] as const) {
      const headings = run.stdout.split('\n')[0].trim().split(/ +/);
      expect(headings.length).toBeGreaterThan(3);
      for (const heading of headings) expect(Object.keys(fields.results[0])).toContain(heading);
      const again = await hcas([
        run === providers ? 'providers' : 'facilities',
        '--state',
        'RI',
        '--page-size',
        '2',
        '--table',
        '--fields',
        headings.join(','),
        '--db',
        db,
      ]);
      expect(again.stdout).toBe(run.stdout);
    }
  });

  it('--fields with a short name (name, city) names the fields it may mean', async () => {
    expect(await hcas(['facilities', '--state', 'RI', '--fields', 'name,city', '--db', db])).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(
        /^hcas: --fields: no field name, city \(did you mean facility_name, city_name, state_name\?\); the fields are id, /,
      ),
    });
    expect((await hcas(['providers', '--fields', 'name', '--db', db])).stderr).toMatch(/did you mean first_name, last_name\?/);
  });

  it('a list names the ZIP codes a data-quality sentence applies to, and prints each sentence once', () => {
    // Notes as the default build writes them (src/query/data-quality.ts).
    const synthetic =
      "Clinicians are synthetic (a declared 8.27% sample at documented national densities, scaled up), so the provider component shows the method, not this ZIP's real clinicians.";
    const small = 'Fewer than 100 people live here, so the census shares rest on a few households and this ZIP is kept out of rankings.';
    const straight = 'Travel times are estimated from straight-line miles.';
    const records = [
      { zip_code: '99501', data_quality: { note: synthetic } },
      { zip_code: '99513', data_quality: { note: `${synthetic} ${small} ${straight}` } },
      { zip_code: '99530', data_quality: { note: `${synthetic} ${straight}` } },
    ];
    expect(qualityNotes(records)).toEqual([
      "data quality: Clinicians are synthetic (a declared 8.27% sample at documented national densities, scaled up), so the provider component shows the method, not each ZIP code's real clinicians.",
      'data quality, 99513: Fewer than 100 people live here, so the census shares rest on a few households and it is kept out of rankings.',
      'data quality, 99513, 99530: Travel times are estimated from straight-line miles.',
    ]);
    expect(qualityNotes(records.slice(0, 1))).toEqual([`data quality: ${synthetic}`]);
  });

  it('tables write counts with thousands separators, as their footers do (census values, validate)', async () => {
    expect(
      table(
        [{ band: 'Excellent Access', residents: 178410486, share: '53.17%' }],
        [{ key: 'band' }, { key: 'residents', thousands: true }, { key: 'share' }],
      ),
    ).toBe('band                residents  share\n----------------  -----------  ------\nExcellent Access  178,410,486  53.17%\n');
    const census = await hcas(['census', '10001', '--table', '--db', db]);
    const population = (await body('/api/v1/health-scores/10001/census/')).demographics.population as number;
    expect(population).toBeGreaterThan(999);
    expect(census.stdout).toMatch(new RegExp(`population +${population.toLocaleString('en-US')}\\n`));
  });
});
