import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get, openApi } from '../src/cli/api-client.ts';
import { csv } from '../src/cli/format.ts';
import { ALL_ROUTES, type Api } from '../src/api/index.ts';
import { SCORE_RECORD_FIELDS } from '../src/cli/commands/scores.ts';
import { fixtureDb } from './helpers/fixture-db.ts';
import { hcas as runHcas } from './helpers/cli.ts';

/**
 * The list commands of issue 43 (points 5-7): `--sort`/`--desc` on every list, providers near a place,
 * `nearby` paging like the others, and the values a refused word may mean, each against what the API answers.
 */
const hcas = (...args: string[]) => runHcas(args);

let db: string;
let api: Api;
const body = async (url: string) => JSON.parse((await get(api, url)).body.toString('utf8'));
beforeAll(async () => {
  db = await fixtureDb();
  api = openApi(db, process.env, ALL_ROUTES);
});
afterAll(() => api.retire());

describe('--sort and --desc', { timeout: 60_000 }, () => {
  it('the 10 worst-served ZIP codes of a state are one command and one URL, residents beside each', async () => {
    const run = await hcas('scores', '--state', 'RI', '--sort', 'healthscore', '--page-size', '10', '--csv', '--db', db);
    const page = await body('/api/v1/health-scores/?state=RI&sort=healthscore&page_size=10');
    expect(run.code, run.stderr).toBe(0);
    const fields = SCORE_RECORD_FIELDS.filter((field) => field !== 'distance_miles');
    expect(run.stdout.toString()).toBe(
      csv(
        page.results,
        fields.map((key) => ({ key })),
      ),
    );
    const scores = page.results.map((r: { healthscore: number }) => r.healthscore);
    expect(scores).toEqual([...scores].sort((a, b) => a - b));
    expect(page.results.every((r: Record<string, unknown>) => 'population' in r)).toBe(true);
  });

  it('--desc reverses the key on every list, and alone names --sort', async () => {
    for (const [args, url] of [
      [['scores', '--state', 'DE', '--sort', 'population', '--desc'], '/api/v1/health-scores/?state=DE&sort=-population'],
      [['providers', '--state', 'RI', '--sort', 'last_name', '--desc'], '/api/v1/providers/?state=RI&sort=-last_name'],
      [['facilities', '--sort', 'facility_rating', '--desc'], '/api/v1/facilities/?sort=-facility_rating'],
      [['tvi', '--top', '--sort', 'zip_code'], '/api/v1/tvi/top-vulnerable/?sort=zip_code'],
    ] as const) {
      const run = await hcas(...args, '--json', '--db', db);
      expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(0);
      expect(JSON.parse(run.stdout.toString()), args.join(' ')).toEqual(await body(url));
    }
    expect(await hcas('scores', '--desc', '--db', db)).toMatchObject({
      code: 2,
      stderr: 'hcas: --desc reverses --sort: give --sort FIELD too (--help lists the fields)\n',
    });
    const wrong = await hcas('scores', '--sort', 'healthscor', '--db', db);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/^hcas: --sort must be one of zip_code, healthscore, .*\(did you mean healthscore\?\)\n$/);
  });
});

describe('providers near a place', { timeout: 60_000 }, () => {
  it('--near and --radius: the API list near the ZIP code, nearest first, distance_miles and the practice place in each row', async () => {
    const run = await hcas('providers', '--near', '10001', '--radius', '3', '--specialty', 'primary care', '--all', '--csv', '--db', db);
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.toString().trim().split('\r\n');
    expect(lines[0]).toBe('npi,first_name,last_name,credential,gender,primary_specialty,telehealth,city,state,zip_code,distance_miles');
    const api = await body('/api/v1/providers/?near=10001&radius=3&specialty=primary%20care&page_size=100');
    expect(lines.length - 1).toBe(api.count);
    expect(api.count).toBeGreaterThan(1);
    const miles = api.results.map((r: { distance_miles: number }) => r.distance_miles);
    expect(miles).toEqual([...miles].sort((a, b) => a - b));
    expect(miles.at(-1)).toBeLessThanOrEqual(3);
    // Without --near the file has no distance column.
    const plain = await hcas('providers', '--zip', '10001', '--csv', '--db', db);
    expect(plain.stdout.toString().split('\r\n')[0]).toBe(
      'npi,first_name,last_name,credential,gender,primary_specialty,telehealth,city,state,zip_code',
    );
  });
});

describe('nearby pages like the other lists', { timeout: 60_000 }, () => {
  it('--all, --page-size and a --limit above 50 read the list near the ZIP code', async () => {
    const all = await body('/api/v1/health-scores/?near=20001&radius=25&page_size=100');
    expect(all.count).toBeGreaterThan(60);
    const [every, limited, page] = await Promise.all([
      hcas('nearby', '20001', '--radius', '25', '--all', '--fields', 'zip_code,distance_miles', '--db', db),
      hcas('nearby', '20001', '--radius', '25', '--limit', '60', '--fields', 'zip_code', '--db', db),
      hcas('nearby', '20001', '--radius', '25', '--page', '2', '--page-size', '7', '--json', '--db', db),
    ]);
    expect(every.code, every.stderr).toBe(0);
    expect(every.stdout.toString().trim().split('\n')).toHaveLength(all.count + 1);
    expect(limited.stdout.toString().trim().split('\n').slice(1)).toEqual(
      all.results.slice(0, 60).map((r: { zip_code: string }) => r.zip_code),
    );
    expect(JSON.parse(page.stdout.toString())).toEqual(await body('/api/v1/health-scores/?near=20001&radius=25&page=2&page_size=7'));
    const bad = await hcas('nearby', '20001', '--limit', '10', '--all', '--db', db);
    expect(bad).toMatchObject({ code: 2, stderr: 'hcas: --limit reads the first records page after page: leave out --all\n' });
  });
});

describe('did you mean', { timeout: 60_000 }, () => {
  it('names the value meant for a specialty, state, score type and facility type', async () => {
    const cases: Array<[string[], RegExp]> = [
      [
        ['providers', '--specialty', 'cardiologist'],
        /^hcas: --specialty must be a specialty some provider of this build has.*\(did you mean cardiology\?\)\n$/,
      ],
      [['providers', '--state', 'Rhode Island'], /^hcas: --state must be a two-letter USPS state code .*\(did you mean RI\?\)\n$/],
      [
        ['scores', '--score-type', 'astma'],
        /^hcas: --score-type must be a score type id from 1 to 11 or one of .*\(did you mean asthma\?\)\n$/,
      ],
      [
        ['facilities', '--type', 'critical acess'],
        /^hcas: --type must be hospital \(every hospital type\) or a facility type of this build: .*\(did you mean Critical Access Hospital\?\)\n$/,
      ],
    ];
    for (const [args, message] of cases) {
      const run = await hcas(...args, '--db', db);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr, args.join(' ')).toMatch(message);
    }
  });

  it('--help lists the valid values, or says where they are', async () => {
    const [providers, scores, facilities, tvi, nearby] = await Promise.all(
      ['providers', 'scores', 'facilities', 'tvi', 'nearby'].map((command) => hcas(command, '--help')),
    );
    expect(providers.stdout.toString()).toMatch(/--specialty <name>[\s\S]*cardiology, primary care[\s\S]*docs\/api\.md, "Specialties"/);
    expect(providers.stdout.toString()).toMatch(/--sort <field>\s+order by one of last_name, distance_miles/);
    expect(scores.stdout.toString()).toMatch(/--sort <field>\s+order by one of zip_code, healthscore, population,/);
    expect(scores.stdout.toString()).toMatch(/hcas score-types lists them/);
    expect(facilities.stdout.toString()).toMatch(/--sort <field>\s+order by one of facility_name, facility_rating/);
    // Commander wraps long help lines: read each as one line of words.
    const words = (run: { stdout: string | Buffer }) => run.stdout.toString().replace(/\s+/g, ' ');
    expect(words(facilities)).toMatch(/refused with the list of its types/);
    for (const help of [providers, scores, facilities, tvi]) expect(words(help)).toMatch(/hcas states lists those with data/);
    expect(tvi.stdout.toString()).toMatch(/--sort <field>\s+order by one of tvi_score, zero_vehicle_pct/);
    expect(nearby.stdout.toString()).toMatch(/--all/);
  });
});
