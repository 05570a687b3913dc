import { closeSync, copyFileSync, mkdirSync, openSync, readFileSync, readSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api } from '../src/api/index.ts';
import { csv, tsvLine } from '../src/cli/format.ts';
import { hcas, hcasProcess, ROOT, shell } from './helpers/cli.ts';
import { tempDir } from './helpers/files.ts';
import { FIXTURE_BUILD_ID, FIXTURE_BUILT_AT, fixtureDb } from './helpers/fixture-db.ts';

/** The CLI as analysts use it (issue 15): flags, exit codes, output formats, --version and configuration, all through the real binary. */
let db: string;
let api: Api;
const dir = tempDir('hcas-cli-usage-');
const body = async (url: string) => JSON.parse((await api.respond({ method: 'GET', url: `/api/v1/${url}` })).body.toString('utf8'));
const keysEnv = { REDIS_URL: undefined, HCAS_STATE: path.join(dir, 'state.sqlite') };
/** `hcas ARGS` on the fixture; `keys` commands read no database, so they get no --db (they would refuse it). */
const run = (...args: string[]) => hcas(args[0] === 'keys' || args.includes('--db') ? args : [...args, '--db', db], { env: keysEnv });
const VERSION = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

beforeAll(async () => {
  db = await fixtureDb();
  api = Api.open(db);
});
afterAll(() => api.retire());

describe('one meaning per flag', { timeout: 60_000 }, () => {
  it('--state is a two-letter state code wherever it exists', async () => {
    const rows = (await run('scores', '--state', 'ri', '--all', '--fields', 'zip_code,state')).stdout.trim().split('\n');
    expect(rows[0]).toBe('zip_code\tstate');
    expect(rows.length - 1).toBe((await body('health-scores/?state=RI')).count);
    expect(new Set(rows.slice(1).map((line) => line.split('\t')[1]))).toEqual(new Set(['RI']));
  });

  it('the state file is --state-file on get, serve and keys; the old --state is refused, naming the new flag', async () => {
    const [get, serve, keys, created] = await Promise.all([
      run('get', 'providers/?page_size=1', '--state', 'NY'),
      run('serve', '--state', 'var/state.sqlite'),
      run('keys', 'list', '--state', 'var/state.sqlite'),
      run('keys', 'create', '--plan', 'free', '--name', 'flags', '--state-file', path.join(dir, 'other.sqlite')),
    ]);
    expect(get).toMatchObject({
      code: 2,
      stdout: '',
      stderr:
        "hcas: hcas get has no --state: the key and counter state file is --state-file FILE; to ask for one state, put it in the path: hcas get 'providers/?state=NY'\n",
    });
    expect(serve).toMatchObject({
      code: 2,
      stderr: 'hcas: hcas serve has no --state: the key and counter state file is --state-file FILE\n',
    });
    expect(keys).toMatchObject({
      code: 2,
      stderr: 'hcas: hcas keys list has no --state: the key and counter state file is --state-file FILE\n',
    });
    expect(created.code, created.stderr).toBe(0);
    expect(JSON.parse((await run('keys', 'list', '--json', '--state-file', path.join(dir, 'other.sqlite'))).stdout)).toMatchObject([
      { name: 'flags' },
    ]);
    expect(await run('keys', 'list', '--db', db)).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/^error: unknown option '--db'/),
    });
  });

  it('flags with no effect on the command are refused, saying why', async () => {
    const cases: Array<[string[], string | RegExp]> = [
      [
        ['get', 'states/', '--plans', 'b'],
        'hcas: --plans applies with --key or --anonymous (without them the local reader sees every endpoint): add one, or leave out --plans\n',
      ],
      [
        ['get', 'states/', '--anonymous', '--state-file', 'x.sqlite'],
        'hcas: --state-file is read only to check a --key: add --key KEY, or leave out --state-file\n',
      ],
      [
        ['serve', '--no-limits', '--plans', 'b'],
        'hcas: --plans has no effect with limits off (--no-limits or HCAS_LIMITS=false): leave it out, or turn limits on\n',
      ],
      [
        ['serve', '--no-metrics', '--metrics-token', 'secret'],
        'hcas: --metrics-token has no effect with metrics off (--no-metrics or HCAS_METRICS=false): leave it out, or turn metrics on\n',
      ],
      [
        ['tvi', '10001', '--state', 'NY', '--tier', 'high'],
        'hcas: --state and --tier apply to the --top list only, not to one ZIP code: hcas tvi --top --state --tier ...\n',
      ],
      [['tvi', '10001', '--top'], 'hcas: give a ZIP code or --top, not both: hcas tvi 10001, or hcas tvi --top\n'],
      [['tvi', '--top', '5'], 'hcas: --top takes no number: for the 5 most vulnerable ZIP codes, hcas tvi --top --page-size 5\n'],
      [['providers', '--all', '--page', '2'], 'hcas: --all prints every page: leave out --page\n'],
      [['providers', '--all', '--table'], /^hcas: --all streams every page, which a table cannot/],
      [['providers', '--json', '--ndjson'], 'hcas: choose one of --json and --ndjson\n'],
      [['rankings', 'states', '--state', 'TX'], 'hcas: --state applies to hospitals only: hcas rankings hospitals --state TX\n'],
      [['export', 'providers', '--score-type', 'asthma'], 'hcas: --score-type applies to health-scores only\n'],
      [['keys', 'list', '--plans', 'b'], /^error: unknown option '--plans'/],
      [['providers', '--colour'], /^error: unknown option '--colour'/],
      [['score', '10001', '--fields', 'healthscore,nope'], /^hcas: --fields: no field nope; the fields are id, zip_code, /],
    ];
    const runs = await Promise.all(cases.map(([args]) => run(...args)));
    for (const [i, [args, stderr]] of cases.entries()) {
      expect(runs[i].code, args.join(' ')).toBe(2);
      if (typeof stderr === 'string') expect(runs[i].stderr, args.join(' ')).toBe(stderr);
      else expect(runs[i].stderr, args.join(' ')).toMatch(stderr);
    }
    const pipeline = await Promise.all([
      hcas(['sample', '--synthetic-nation', '--manifest', 'raw/manifests/public.json']),
      hcas(['sample', '--facilities', '10']),
      hcas(['build', '--log-format', 'yaml']),
      hcas(['build', '--quiet', '--log-format', 'json']),
    ]);
    expect(pipeline.map((r) => [r.code, r.stderr])).toEqual([
      [2, 'hcas: --manifest applies to the default sample only: a synthetic nation reads no real files\n'],
      [
        2,
        'hcas: --facilities applies to --synthetic-nation only: the default sample uses the real facilities of the bundled public data\n',
      ],
      [2, 'hcas: --log-format must be text or json, got yaml\n'],
      [2, 'hcas: choose one of --quiet and --log-format json: JSON lines are for a program reading them, --quiet prints none\n'],
    ]);
  });
});

describe('exit codes: 0 ok, 1 not found or empty, 2 usage, 3 data or database', { timeout: 60_000 }, () => {
  it.each([
    [0, ['score', '10001']],
    [0, ['providers', '--state', 'NY']],
    [1, ['score', '00000']],
    [1, ['providers', '--state', 'WY']],
    [2, ['providers', '--state', 'ZZ']],
    [2, ['providers', '--specialty', 'cardiologist']],
    [2, ['providers', '--desc']],
    [1, ['providers', '--page', '9999']],
    [1, ['get', 'health-scores/00000/']],
    [1, ['nearby', '99950', '--radius', '1']],
    [1, ['keys', 'revoke', '99']],
    [2, ['score', '123']],
    [2, ['scores', '--page-size', '500']],
    [2, ['get', 'health-scores/?page_size=500']],
    [2, ['nosuch']],
    [2, []],
    [3, ['score', '10001', '--db', '/nonexistent/hcas.sqlite']],
  ])('%i: hcas %s', async (code, args) => {
    const result = await run(...args);
    expect(result.code, result.stderr).toBe(code);
    if (code !== 0) expect(result.stderr).not.toMatch(/\n\s+at /); // one line naming the fix, never a stack
  });

  it('an empty result still prints its header (or JSON), and says so on stderr', async () => {
    const [tsv, json] = await Promise.all([run('providers', '--state', 'WY'), run('providers', '--state', 'WY', '--json')]);
    expect(tsv).toMatchObject({
      code: 1,
      stdout: 'npi\tfirst_name\tlast_name\tcredential\tgender\tprimary_specialty\ttelehealth\tcity\tstate\tzip_code\n',
      stderr: 'hcas: no providers match\n',
    });
    expect(JSON.parse(json.stdout)).toMatchObject({ count: 0, results: [] });
  });

  it('3 for a file that is not an hcas database or is damaged', async () => {
    const notSqlite = path.join(dir, 'not.sqlite');
    writeFileSync(notSqlite, 'this is not a database\n'.repeat(100));
    // The first pages of a real build: SQLite opens it, then finds it damaged when a query reaches the rest.
    const truncated = path.join(dir, 'truncated.sqlite');
    const head = Buffer.alloc(64 * 1024);
    const fd = openSync(db, 'r');
    readSync(fd, head, 0, head.length, 0);
    closeSync(fd);
    writeFileSync(truncated, head);
    const runs = await Promise.all([
      hcas(['score', '10001', '--db', notSqlite]),
      hcas(['providers', '--db', truncated]),
      hcas(['get', 'states/', '--db', truncated]),
    ]);
    for (const result of runs) {
      expect(result.code, result.stderr).toBe(3);
      expect(result.stderr).toMatch(/^hcas: .*(rebuild it with `hcas build`)/);
    }
  });

  it('says what is wrong with the path, and advises a rebuild once (issue #44, point 8)', async () => {
    const loop = path.join(dir, 'loop.sqlite');
    symlinkSync(loop, loop);
    const dangling = path.join(dir, 'dangling.sqlite');
    symlinkSync('gone.sqlite', dangling);
    // A build from before the residents' points: the query layer's reason already says to rebuild.
    const older = path.join(dir, 'older.sqlite');
    copyFileSync(db, older);
    const file = new Database(older);
    file.exec('ALTER TABLE zips DROP COLUMN point_source');
    file.close();
    const [looped, pointless, old, version] = await Promise.all([
      hcas(['score', '10001', '--db', loop]),
      hcas(['score', '10001', '--db', dangling]),
      hcas(['score', '10001', '--db', older]),
      hcas(['--version'], { env: { HCAS_DB: loop } }),
    ]);
    expect(looped).toMatchObject({
      code: 3,
      stderr: `hcas: ${loop} is a symbolic link in a loop (its links never reach a file); point it at a database file\n`,
    });
    expect(pointless).toMatchObject({
      code: 3,
      stderr: `hcas: ${dangling} is a symbolic link to gone.sqlite, which does not exist; point it at a database file\n`,
    });
    expect(old).toMatchObject({
      code: 3,
      stderr: `hcas: cannot read ${older} as an hcas database: ${older} was built by an older hcas (its zips table has no point_source column); rebuild it with \`hcas build\`\n`,
    });
    expect(version.stdout).toContain(`database ${loop}: ${loop} is a symbolic link in a loop`);
  });

  it('get follows the trailing-slash redirect like curl -L and says so on stderr', async () => {
    const [plain, query] = await Promise.all([run('get', 'health-scores/10001'), run('get', '/api/v1/health-scores?state=RI&page_size=1')]);
    expect(plain).toMatchObject({
      code: 0,
      stderr: 'hcas: /api/v1/health-scores/10001 answered 301; following it to /api/v1/health-scores/10001/\n',
    });
    expect(JSON.parse(plain.stdout)).toEqual(await body('health-scores/10001/'));
    expect(query.stderr).toBe(
      'hcas: /api/v1/health-scores?state=RI&page_size=1 answered 301; following it to /api/v1/health-scores/?state=RI&page_size=1\n',
    );
    expect(JSON.parse(query.stdout)).toEqual(await body('health-scores/?state=RI&page_size=1'));
  });
});

describe('output: a table on a terminal, tab-separated when piped, or as asked', { timeout: 60_000 }, () => {
  it('a terminal gets an aligned table; the footer is a note beside it', async () => {
    // `script` gives the command a terminal (stdout and stderr both) and prints what it showed.
    const tty = await shell(`script -qec "hcas providers --state NY --page-size 3 --db '${db}'" /dev/null`);
    expect(tty.statuses).toEqual([0]);
    const lines = tty.stdout.split(/\r?\n/);
    expect(lines[0]).toMatch(/^npi {9}last_name +first_name +credential +gender +primary_specialty +telehealth +city +state +zip_code$/);
    expect(lines[1]).toMatch(/^-{10} {2}-+/);
    expect(lines[5]).toMatch(/^3 of [\d,]+ matching providers, page 1 of [\d,]+; next: --page 2, every page: --all$/);
  });

  it('piped: tab-separated values with a header, every field; the footer goes to stderr', async () => {
    const page = await body('providers/?state=NY');
    const piped = await run('providers', '--state', 'NY');
    const fields = [
      'npi',
      'first_name',
      'last_name',
      'credential',
      'gender',
      'primary_specialty',
      'telehealth',
      'city',
      'state',
      'zip_code',
    ];
    expect(piped.stdout).toBe(
      tsvLine(fields) + page.results.map((r: Record<string, unknown>) => tsvLine(fields.map((f) => r[f]))).join(''),
    );
    expect(piped.stderr).toBe(
      `20 of ${page.count.toLocaleString('en-US')} matching providers, page 1 of ${Math.ceil(page.count / 20)}; next: --page 2, every page: --all\n`,
    );
  });

  it('--csv, --json (the API envelope), --ndjson and --fields', async () => {
    const page = await body('facilities/?state=NY');
    const [asCsv, asJson, asNdjson, picked, pickedJson] = await Promise.all([
      run('facilities', '--state', 'NY', '--csv'),
      run('facilities', '--state', 'NY', '--json'),
      run('facilities', '--state', 'NY', '--ndjson'),
      run('facilities', '--state', 'NY', '--fields', 'facility_name,id'),
      run('facilities', '--state', 'NY', '--json', '--fields', 'id,facility_rating'),
    ]);
    expect(asCsv.stdout).toBe(
      csv(
        page.results,
        Object.keys(page.results[0]).map((key) => ({ key })),
      ),
    );
    expect(JSON.parse(asJson.stdout)).toEqual(page);
    expect(
      asNdjson.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line)),
    ).toEqual(page.results);
    expect(picked.stdout).toBe(
      tsvLine(['facility_name', 'id']) +
        page.results.map((r: { facility_name: string; id: number }) => tsvLine([r.facility_name, r.id])).join(''),
    );
    expect(JSON.parse(pickedJson.stdout).results).toEqual(
      page.results.map((r: { id: number; facility_rating: number }) => ({ id: r.id, facility_rating: r.facility_rating })),
    );
  });

  it('--all streams every page: the same records as paging through the API, in order', async () => {
    const expected: unknown[] = [];
    for (let page = 1; ; page++) {
      const envelope = await body(`providers/?state=NY&page_size=100&page=${page}`);
      expected.push(...envelope.results);
      if (!envelope.next) break;
    }
    expect(expected.length).toBeGreaterThan(100); // more than one page, so paging is exercised
    const [ndjson, json, tsv] = await Promise.all([
      run('providers', '--state', 'NY', '--all', '--ndjson'),
      run('providers', '--state', 'NY', '--all', '--json'),
      run('providers', '--state', 'NY', '--all'),
    ]);
    expect(
      ndjson.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line)),
    ).toEqual(expected);
    expect(JSON.parse(json.stdout)).toEqual(expected);
    expect(tsv.stdout.trim().split('\n')).toHaveLength(expected.length + 1);
    for (const result of [ndjson, json, tsv]) expect(result).toMatchObject({ code: 0, stderr: '' });
  });

  it('a record: fields down on a terminal, one row when piped; data quality is a note under the table', async () => {
    const record = await body('health-scores/10001/');
    const [table, piped, json] = await Promise.all([
      run('score', '10001', '--table'),
      run('score', '10001'),
      run('score', '10001', '--json', '--fields', 'zip_code,healthscore'),
    ]);
    expect(table.stdout).toMatch(/^field +value\n-+ +-+\nid +\d+\nzip_code +10001\n/);
    expect(table.stdout).not.toContain('data_quality');
    expect(table.stderr).toBe(`data quality: ${record.data_quality.note}\n`);
    expect(piped.stdout.split('\n')[0]).toBe(Object.keys(record).join('\t'));
    expect(piped.stdout.split('\n')[1].split('\t')[1]).toBe('10001');
    expect(JSON.parse(json.stdout)).toEqual({ zip_code: '10001', healthscore: record.healthscore });
  });

  it('TSV escapes tabs, line breaks and backslashes so every record is one line', () => {
    expect(tsvLine(['a\tb', 'two\nlines', 'back\\slash', null, 3, { x: 1 }])).toBe('a\\tb\ttwo\\nlines\tback\\\\slash\t\t3\t{"x":1}\n');
  });
});

describe('installed like a CLI', { timeout: 120_000 }, () => {
  it('--version prints the package version, then the default database and its build id', async () => {
    const [withDb, missing, tooMany] = await Promise.all([
      hcas(['--version'], { env: { HCAS_DB: db } }),
      hcas(['-V'], { env: { HCAS_DB: path.join(dir, 'none.sqlite') } }),
      hcas(['--version', 'extra']),
    ]);
    expect(withDb).toMatchObject({
      code: 0,
      stdout: `hcas ${VERSION}\ndatabase ${db}: build ${FIXTURE_BUILD_ID} of ${FIXTURE_BUILT_AT}\n`,
    });
    expect(missing).toMatchObject({
      code: 0,
      stdout: `hcas ${VERSION}\ndatabase ${path.join(dir, 'none.sqlite')}: not built yet (run \`hcas sample && hcas build\`, or npm start)\n`,
    });
    expect(tooMany.code).toBe(2);
  });

  it("the default database is the package's dist-api/hcas.sqlite, from any working directory", async () => {
    const elsewhere = await hcasProcess(['--version'], { cwd: dir, env: { HCAS_DB: undefined } });
    expect(elsewhere.stdout.split('\n')[1]).toMatch(
      new RegExp(`^database ${path.join(ROOT, 'dist-api/hcas.sqlite').replace(/[.]/g, '\\.')}: `),
    );
  });

  it('HCAS_DB names the database for every command; --db wins over it and is relative to the working directory', async () => {
    const copy = path.join(dir, 'copy.sqlite');
    copyFileSync(db, copy);
    const [fromEnv, fromFlag, overEnv] = await Promise.all([
      hcas(['score', '10001', '--fields', 'zip_code'], { env: { HCAS_DB: db } }),
      hcasProcess(['score', '10001', '--fields', 'zip_code', '--db', 'copy.sqlite'], { cwd: dir }),
      hcas(['score', '10001', '--fields', 'zip_code', '--db', db], { env: { HCAS_DB: '/nonexistent.sqlite' } }),
    ]);
    for (const result of [fromEnv, fromFlag, overEnv]) expect(result).toMatchObject({ code: 0, stdout: 'zip_code\n10001\n' });
    const missing = await hcas(['score', '10001'], { env: { HCAS_DB: '/nonexistent.sqlite' } });
    expect(missing).toMatchObject({
      code: 3,
      stderr:
        'hcas: no database at /nonexistent.sqlite: run `hcas sample && hcas build` to create it (npm start does), or name one with --db FILE or HCAS_DB\n',
    });
  });

  it('without its compiled code it says how to build it, with status 3', async () => {
    const bare = path.join(dir, 'bare', 'bin');
    mkdirSync(bare, { recursive: true });
    for (const file of ['hcas.js', 'supported-node.js']) copyFileSync(path.join(ROOT, 'bin', file), path.join(bare, file));
    const result = await shell(`node '${path.join(bare, 'hcas.js')}' --version`);
    expect(result).toMatchObject({
      statuses: [3],
      stderr: 'hcas: the compiled code in dist/ is missing; run `npm run build` (npm install does it too)\n',
    });
  });

  it("npx hcas runs the project's command (package.json bin)", async () => {
    expect((JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string> }).bin).toEqual({
      hcas: 'bin/hcas.js',
    });
    const npx = await shell('npx --no-install hcas --version', { env: { HCAS_DB: db } });
    expect(npx.statuses).toEqual([0]);
    expect(npx.stdout.split('\n')[0]).toBe(`hcas ${VERSION}`);
  });
});
