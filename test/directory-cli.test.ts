import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get, openApi } from '../src/cli/api-client.ts';
import { csv } from '../src/cli/format.ts';
import { ALL_ROUTES, type Api } from '../src/api/index.ts';
import { fixtureDb } from './helpers/fixture-db.ts';
import { KNOWN_NPI } from './helpers/fixture-directory.ts';
import { hcas as runHcas } from './helpers/cli.ts';

/** Runs `hcas ARGS` (in this process). */
const hcas = (...args: string[]) => runHcas(args);

let db: string;
let api: Api;
const body = async (url: string) => JSON.parse((await get(api, url)).body.toString('utf8'));
beforeAll(async () => {
  db = await fixtureDb();
  api = openApi(db, process.env, ALL_ROUTES);
});
afterAll(() => api.retire());

describe('providers, facilities, autocomplete and rankings commands', { timeout: 60_000 }, () => {
  it('print tables, JSON and CSV of what the endpoints answer', async () => {
    const [providers, providersJson, provider, facilities, facilityCsv, suggestions, states, hospitals] = await Promise.all([
      hcas('providers', '--state', 'NY', '--specialty', 'Cardiology', '--page-size', '3', '--table', '--db', db),
      hcas('providers', '--name', 'smi', '--page', '2', '--page-size', '2', '--json', '--db', db),
      hcas('provider', KNOWN_NPI, '--json', '--db', db),
      hcas('facilities', '--state', 'NY', '--type', 'hospital', '--emergency', '--table', '--db', db),
      hcas('facility', '1001', '--csv', '--db', db),
      hcas('autocomplete', 'new yo', '--json', '--db', db),
      hcas('rankings', 'states', '--csv', '--db', db),
      hcas('rankings', 'hospitals', '--state', 'ny', '--json', '--db', db),
    ]);
    for (const run of [provider, facilityCsv, suggestions, states, hospitals]) expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(providers.stdout).toMatch(
      /^npi +last_name +first_name +credential +gender +primary_specialty +telehealth +city +state +zip_code\n/,
    );
    // The footer is a note for the person: on stderr, never inside the data.
    expect(providers).toMatchObject({
      code: 0,
      stderr: expect.stringMatching(/^3 of \d+ matching providers, page 1 of \d+; next: --page 2, every page: --all\n$/),
    });
    expect(providersJson.stderr).toMatch(/^2 of \d+ matching providers, page 2 of \d+; next: --page 3/);
    expect(JSON.parse(providersJson.stdout)).toEqual(await body('/api/v1/providers/?name=smi&page=2&page_size=2'));
    expect(JSON.parse(provider.stdout)).toEqual(await body(`/api/v1/providers/${KNOWN_NPI}/`));
    expect(facilities).toMatchObject({ code: 0, stderr: '4 matching facilities\n' });
    expect(facilities.stdout.trim().split('\n')).toHaveLength(2 + 4);
    const detail = await body('/api/v1/facilities/1001/');
    expect(facilityCsv.stdout).toBe(
      csv(
        [detail],
        Object.keys(detail).map((key) => ({ key })),
      ),
    );
    expect(JSON.parse(suggestions.stdout)).toEqual(await body('/api/v1/autocomplete/?q=new+yo'));
    expect(states.stdout.split('\r\n')[0]).toBe('rank,state,state_code,avg_score,label,grade,color,zip_count');
    expect(JSON.parse(hospitals.stdout)).toEqual(await body('/api/v1/rankings/hospitals/?state=ny'));
  });

  it('name the option or argument to fix', async () => {
    const [npi, size, rating, kind, stateOnStates, emergency] = await Promise.all([
      hcas('provider', '1234567890', '--db', db),
      hcas('providers', '--page-size', '500', '--db', db),
      hcas('facilities', '--min-rating', '9', '--db', db),
      hcas('rankings', 'cities', '--db', db),
      hcas('rankings', 'states', '--state', 'TX', '--db', db),
      hcas('facilities', '--emergency', 'maybe', '--db', db),
    ]);
    // Usage errors exit 2 (README, "Exit codes").
    expect(npi).toMatchObject({
      code: 2,
      stderr: 'hcas: the NPI argument must be a 10-digit NPI with a valid check digit, got 1234567890\n',
    });
    expect(size).toMatchObject({ code: 2, stderr: 'hcas: --page-size must be an integer from 1 to 100, got 500\n' });
    expect(rating).toMatchObject({ code: 2, stderr: 'hcas: --min-rating must be an integer from 1 to 5, got 9\n' });
    expect(kind).toMatchObject({ code: 2, stderr: 'hcas: the ranking must be states or hospitals, got cities\n' });
    expect(stateOnStates.code).toBe(2);
    expect(emergency).toMatchObject({ code: 2, stderr: 'hcas: --emergency must be true, false, 1 or 0, got maybe\n' });
  });

  it('every command has --help with an example', async () => {
    const commands = ['providers', 'provider', 'facilities', 'facility', 'autocomplete', 'rankings'];
    const runs = await Promise.all(commands.map((name) => hcas(name, '--help')));
    for (const [i, run] of runs.entries()) {
      expect(run.code, commands[i]).toBe(0);
      expect(run.stdout, commands[i]).toContain(`Examples:\n  hcas ${commands[i]}`);
    }
  });
});
