import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCORE_RECORD_FIELDS } from '../src/cli/commands/scores.ts';
import { get, openApi } from '../src/cli/api-client.ts';
import { csv, table } from '../src/cli/format.ts';
import { ALL_ROUTES, type Api } from '../src/api/index.ts';
import { startServer, type RunningServer } from '../src/server/server.ts';
import { ROUTE_EXAMPLES } from './helpers/examples.ts';
import { fixtureDb } from './helpers/fixture-db.ts';
import { request } from './helpers/http.ts';
import { hcas as runHcas } from './helpers/cli.ts';

interface Run {
  code: number;
  stdout: Buffer;
  stderr: string;
}

/** Runs `hcas ARGS` (in this process), with stdout as raw bytes. */
async function hcas(...args: string[]): Promise<Run> {
  const run = await runHcas(args);
  return { code: run.code, stdout: run.stdoutBytes, stderr: run.stderr };
}

let db: string;
let server: RunningServer;
let api: Api;
beforeAll(async () => {
  db = await fixtureDb();
  server = await startServer({ db, port: 0, host: '127.0.0.1', quiet: true, watch: false, log: () => {} });
  api = openApi(db, process.env, ALL_ROUTES);
});
afterAll(async () => {
  api.retire();
  await server.close();
});

/** Every byte of a streamed body. */
async function drain(stream: AsyncIterable<Buffer>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return Buffer.concat(chunks);
}

const ERROR_EXAMPLES = [
  '/api/v1/health-scores/00000/',
  '/api/v1/health-scores/12/',
  '/api/v1/health-scores/?page_size=500',
  '/api/v1/states',
  '/api/v1/nowhere/',
];

describe('hcas get prints exactly what the server sends', { timeout: 60_000 }, () => {
  it('for every example of every route and the error cases (shared function)', async () => {
    for (const url of [...Object.values(ROUTE_EXAMPLES).flat(), ...ERROR_EXAMPLES]) {
      const served = await request(server.url, url);
      const printed = await get(api, url);
      expect(printed.status, url).toBe(served.status);
      const body = printed.stream ? await drain(printed.stream) : printed.body;
      expect(body.equals(served.body), url).toBe(true);
    }
  });

  it('byte for byte from the real command, exit 0 on 200 and 1 on a 404 (body still on stdout)', async () => {
    const cases = [
      { arg: '/api/v1/health-scores/02801/', url: '/api/v1/health-scores/02801/', code: 0 },
      { arg: 'health-scores/?state=RI&page_size=2', url: '/api/v1/health-scores/?state=RI&page_size=2', code: 0 },
      { arg: `${server.url}/api/v1/health-scores/20001/nearby/?radius=3`, url: '/api/v1/health-scores/20001/nearby/?radius=3', code: 0 },
      { arg: '/api/v1/health-scores/00000/', url: '/api/v1/health-scores/00000/', code: 1 },
    ];
    const runs = await Promise.all(cases.map((c) => hcas('get', c.arg, '--db', db)));
    for (const [i, c] of cases.entries()) {
      const served = await request(server.url, c.url);
      expect(runs[i].code, c.arg).toBe(c.code);
      expect(runs[i].stdout.equals(served.body), c.arg).toBe(true);
      expect(runs[i].stdout.at(-1)).toBe(0x0a); // the body itself ends in a newline; get adds nothing
      if (c.code === 1) expect(runs[i].stderr).toMatch(/^hcas: GET \/api\/v1\/health-scores\/00000\/ answered 404/);
    }
  });
});

describe('friendly commands', { timeout: 60_000 }, () => {
  it('print tables, JSON and CSV from the same handlers', async () => {
    const [score, nearby, scores, states, types] = await Promise.all([
      hcas('score', '02801', '--table', '--db', db),
      hcas('nearby', '20001', '--radius', '2', '--limit', '3', '--csv', '--db', db),
      hcas('scores', '--state', 'ny', '--min-score', '50', '--page-size', '2', '--json', '--db', db),
      hcas('states', '--table', '--db', db),
      hcas('score-types', '--csv', '--db', db),
    ]);
    for (const run of [nearby, states, types]) expect(run.stderr).toBe('');
    // Notes go to stderr: the data quality under a table, and that a page is one of several.
    expect(score.stderr).toMatch(/^data quality: /);
    expect(scores.stderr).toMatch(/^2 of \d+ matching ZIP codes, page 1 of \d+; next: --page 2, every page: --all\n$/);
    expect(score.stdout.toString()).toMatch(/^field +value\n-+ +-+\nid +1\nzip_code +02801\n/);
    // nearby is the health-scores list near the ZIP code, its first --limit records, every field.
    const nearbyBody = JSON.parse((await get(api, '/api/v1/health-scores/?near=20001&radius=2&page_size=3')).body.toString());
    expect(nearbyBody.count).toBeGreaterThan(3);
    expect(nearby.stdout.toString()).toBe(
      csv(
        nearbyBody.results,
        SCORE_RECORD_FIELDS.map((key) => ({ key })),
      ),
    );
    expect(JSON.parse(scores.stdout.toString())).toEqual(
      JSON.parse((await get(api, '/api/v1/health-scores/?state=ny&min_score=50&page_size=2')).body.toString()),
    );
    expect(states.stdout.toString().split('\n')[0]).toMatch(/^state_code +state_name +zip_count +avg_healthscore$/);
    expect(types.stdout.toString().split('\r\n')).toHaveLength(13); // header, 11 types, final empty
  });

  it('name the option to fix, and the way to create a missing database', async () => {
    const [badSize, badZip, missing, both, busy] = await Promise.all([
      hcas('scores', '--page-size', '500', '--db', db),
      hcas('nearby', '123', '--db', db),
      hcas('states', '--db', '/nonexistent/hcas.sqlite'),
      hcas('states', '--json', '--csv', '--db', db),
      hcas('serve', '--db', db, '--port', String(server.port), '--workers', '1'),
    ]);
    expect(badSize).toMatchObject({ code: 2, stderr: 'hcas: --page-size must be an integer from 1 to 100, got 500\n' });
    expect(badZip).toMatchObject({
      code: 2,
      stderr: 'hcas: the ZIP argument must be a 5-digit ZIP code (ZIP+4 such as 10001-1234 is read by its first five digits), got 123\n',
    });
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain('run `hcas sample && hcas build`');
    expect(both.stderr).toBe('hcas: choose one of --csv and --json\n');
    expect(busy.code).toBe(2);
    expect(busy.stderr).toContain(`cannot listen on 127.0.0.1:${server.port} (EADDRINUSE): stop the other server or pass --port N`);
  });

  it('every command has --help with an example', async () => {
    const commands = ['serve', 'get', 'score', 'nearby', 'scores', 'states', 'score-types', 'tvi', 'census', 'compare', 'export'];
    const runs = await Promise.all(commands.map((name) => hcas(name, '--help')));
    for (const [i, run] of runs.entries()) {
      expect(run.code, commands[i]).toBe(0);
      expect(run.stdout.toString(), commands[i]).toContain(`Examples:\n  hcas ${commands[i]}`);
    }
  });
});

describe('TVI, census, comparison and export commands', { timeout: 60_000 }, () => {
  it('print what the endpoints answer', async () => {
    const [tvi, top, census, compare, exported, exportedFile] = await Promise.all([
      hcas('tvi', '10001', '--json', '--db', db),
      hcas('tvi', '--top', '--state', 'ri', '--tier', 'high', '--csv', '--db', db),
      hcas('census', '02801', '--table', '--db', db),
      hcas('compare', '10001', '02801', '--json', '--db', db),
      hcas('export', 'providers', '--format', 'csv', '--db', db),
      hcas('export', 'facilities', '--state', 'RI', '--format', 'ndjson', '--db', db),
    ]);
    for (const run of [tvi, compare, exported, exportedFile]) expect(run.stderr).toBe('');
    const body = async (url: string) => {
      const response = await get(api, url);
      return response.stream ? await drain(response.stream) : response.body;
    };
    expect(JSON.parse(tvi.stdout.toString())).toEqual(JSON.parse((await body('/api/v1/tvi/10001/')).toString()));
    const topPage = JSON.parse((await body('/api/v1/tvi/top-vulnerable/?state=ri&tier=high')).toString());
    expect(top.stdout.toString()).toBe(
      csv(
        topPage.results,
        ['zip_code', 'city', 'state', 'tvi_score', 'tvi_tier', 'zero_vehicle_pct', 'nearest_hospital_miles'].map((key) => ({ key })),
      ),
    );
    expect(census.stdout.toString()).toMatch(/^group +field +value\n/);
    expect(census.stdout.toString()).toMatch(/\nincome +poverty_pct +[\d.]+\n/);
    // The sources and vintages of each group close the table, on stderr.
    expect(census.stderr).toContain(
      '\nincome: acs_population_income (synthetic, ACS 2019-2023 5-year layout); acs_profile (synthetic, ACS 2018-2022 Data Profile layout)\n',
    );
    expect(JSON.parse(compare.stdout.toString()).map((r: { zip_code: string }) => r.zip_code)).toEqual(['10001', '02801']);
    expect(exported.stdout.equals(await body('/api/v1/exports/providers/?format=csv'))).toBe(true);
    expect(exportedFile.stdout.equals(await body('/api/v1/exports/facilities/?format=ndjson&state=RI'))).toBe(true);
  });

  it('name the option to fix', async () => {
    const [tier, format, resource, one] = await Promise.all([
      hcas('tvi', '--top', '--tier', 'severe', '--db', db),
      hcas('export', 'providers', '--format', 'xml', '--db', db),
      hcas('export', 'doctors', '--db', db),
      hcas('compare', '10001', '--db', db),
    ]);
    expect(tier.stderr).toBe('hcas: --tier must be one of CRITICAL, HIGH, MODERATE, LOW, MINIMAL (any case), got severe\n');
    expect(format.stderr).toBe('hcas: --format must be csv or ndjson, got xml\n');
    expect(resource.stderr).toBe('hcas: the resource must be one of health-scores, providers, facilities, got doctors\n');
    expect(one.stderr).toBe('hcas: give 2 to 10 ZIP codes to compare, got 1\n');
    for (const run of [tier, format, resource, one]) expect(run.code).toBe(2);
  });
});

describe('output formats', () => {
  it('CSV quotes commas, quotes and line breaks (RFC 4180)', () => {
    const rows = [
      { a: 'plain', b: 'has, comma' },
      { a: 'say "hi"', b: 'two\nlines' },
      { a: null, b: 7 },
    ];
    expect(csv(rows, [{ key: 'a' }, { key: 'b' }])).toBe('a,b\r\nplain,"has, comma"\r\n"say ""hi""","two\nlines"\r\n,7\r\n');
  });

  it('tables align text left and numbers right', () => {
    expect(
      table(
        [
          { name: 'a', n: 5 },
          { name: 'bbb', n: 100 },
        ],
        [{ key: 'name' }, { key: 'n' }],
      ),
    ).toBe('name    n\n----  ---\na       5\nbbb   100\n');
    expect(table([], [{ key: 'x' }])).toBe('(no results)\n');
  });
});
