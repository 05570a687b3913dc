import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentCountProgress } from '../core/progress.ts';
import { ALL_ROUTES, API_BASE, Api } from '../src/api/index.ts';
import { AccessTable } from '../src/auth/access.ts';
import { loadPlans } from '../src/auth/plans.ts';
import { COMPRESS_MIN_BYTES } from '../src/http/compress.ts';
import { exportStatic, type StaticExportSummary } from '../src/static/export.ts';
import {
  HEADERS_FILE,
  headerRules,
  headersFor,
  hostHeaders,
  MAX_LINE_CHARS,
  MAX_RULES,
  matches,
  parseHeaders,
} from '../src/static/host-headers.ts';
import { MANIFEST_FILE, readManifest } from '../src/static/manifest.ts';
import { fileOf, SERVER_ONLY, STATIC_ROUTES } from '../src/static/targets.ts';
import { until } from './attacks/helpers.ts';
import { hcas, ROOT } from './helpers/cli.ts';
import { tempDir } from './helpers/files.ts';
import { fixtureDb } from './helpers/fixture-db.ts';

/**
 * `hcas export-static` on the fixture build: every file is the dispatcher's body for its path (the body
 * `hcas get` prints and the server sends; test/static-nginx.test.ts compares with a running server), its
 * .gz and .br decode to it, the manifest lists every file truly, and a second export keeps what did not change.
 */

const NOW = new Date('2025-06-01T00:00:00Z');
const dir = tempDir('hcas-static-export-');
let db: string;
let api: Api;

/** Plan list A, as `hcas export-static` reads it by default. */
const access = new AccessTable(loadPlans('a'), ALL_ROUTES, API_BASE);
/** Every route, paid ones included (the tests of what is written for whom are below). */
const run = (out: string, options: Partial<Parameters<typeof exportStatic>[0]> = {}): Promise<StaticExportSummary> =>
  exportStatic({
    api,
    now: NOW,
    out,
    indexName: 'index.json',
    providers: true,
    access,
    paidAnswers: true,
    progress: silentCountProgress,
    ...options,
  });

/** The request path a file of the export answers (`api/v1/states/index.json` -> `/api/v1/states/`; the map's page is always `index.html`). */
const urlOfFile = (file: string, indexName = 'index.json') => {
  const index = file === 'map/index.html' ? 'index.html' : indexName;
  return `/${file.endsWith(index) ? file.slice(0, -index.length) : file}`;
};

beforeAll(async () => {
  db = await fixtureDb();
  api = Api.open(db, { cacheBytes: 0, now: () => NOW });
});

// Several exports with provider profiles and the map's files: tens of thousands of files to remove.
afterAll(() => {
  api?.retire();
  rmSync(dir, { recursive: true, force: true });
}, 120_000);

describe('which routes the export writes', () => {
  it('every route the server answers is exported or left to the server with a reason, as the route says, never both', () => {
    const exported = new Set(STATIC_ROUTES.map((route) => route.path));
    for (const route of ALL_ROUTES) {
      const place = [exported.has(route.path) && 'exported', route.path in SERVER_ONLY && 'server-only'].filter(Boolean);
      expect(place, route.path).toEqual([route.exported.write === 'server' ? 'server-only' : 'exported']);
      if (route.exported.write === 'server') expect(route.exported.why.length, route.path).toBeGreaterThan(10);
      // A path parameter's values are a key list; a route without one is written once.
      expect(route.exported.write === 'per-key', route.path).toBe(exported.has(route.path) && route.path.includes(':'));
    }
    // The providers' four million profiles last, written only with --providers.
    expect(STATIC_ROUTES.at(-1)).toMatchObject({ path: `${API_BASE}providers/:npi/`, providers: true });
    expect(STATIC_ROUTES.filter((route) => route.providers)).toHaveLength(1);
  });

  it('a route it writes once takes no query parameter, or only optional ones (the first page at its defaults)', () => {
    for (const { path: routePath, keys } of STATIC_ROUTES) {
      const route = ALL_ROUTES.find((candidate) => candidate.path === routePath)!;
      expect(route.streamed, routePath).not.toBe(true);
      if (keys) expect(Object.keys(route.query), `${routePath} is written per key, so takes no query parameter`).toEqual([]);
      for (const [name, spec] of Object.entries(route.query)) expect(spec.required, `${routePath} ${name}`).not.toBe(true);
    }
  });
});

describe('an export of the fixture build', { timeout: 60_000 }, () => {
  const out = path.join(dir, 'static');
  let summary: StaticExportSummary;
  let manifest: ReturnType<typeof readManifest>;

  beforeAll(async () => {
    summary = await run(out);
    manifest = readManifest(out);
  }, 60_000);

  it('writes every file as the dispatcher answers its path, byte for byte, with its .gz and .br', async () => {
    const answers = manifest.files.filter((file) => !/\.(gz|br)$/.test(file.path) && file.path !== HEADERS_FILE);
    expect(answers).toHaveLength(summary.answers);
    for (const file of answers) {
      const response = await api.respond({ method: 'GET', url: urlOfFile(file.path) });
      const written = readFileSync(path.join(out, file.path));
      expect(response.status, file.path).toBe(200);
      expect(written.equals(response.body), file.path).toBe(true);
      const compressed = written.length >= COMPRESS_MIN_BYTES;
      expect(existsSync(path.join(out, `${file.path}.gz`)), file.path).toBe(compressed);
      expect(existsSync(path.join(out, `${file.path}.br`)), file.path).toBe(compressed);
      if (compressed) {
        expect(zlib.gunzipSync(readFileSync(path.join(out, `${file.path}.gz`))).equals(written)).toBe(true);
        expect(zlib.brotliDecompressSync(readFileSync(path.join(out, `${file.path}.br`))).equals(written)).toBe(true);
      }
    }
  });

  it('writes every kind of answer: each route has files, and a 404 only where the API has no answer', () => {
    const byRoute = new Map(manifest.routes.map((row) => [row.path, row]));
    for (const route of STATIC_ROUTES) expect(byRoute.get(route.path)?.answers, route.path).toBeGreaterThan(0);
    // The fixture's one PO-box ZIP code: answered by the record of its ZIP code, except by the lists of scores.
    expect(byRoute.get('/api/v1/health-scores/:zip/all-scores/')!.not_found).toBe(1);
    expect(summary.notFound).toBe(1);
    expect(readFileSync(path.join(out, 'index.json')).equals(readFileSync(path.join(out, 'api/v1/index.json')))).toBe(true);
    expect(byRoute.get('/api/v1/widget-score/:zip/')!.headers).toMatchObject({
      'Access-Control-Allow-Origin': '*',
      'Cache-Control': 'public, max-age=86400',
    });
  });

  it('lists every file in the manifest with its size and SHA-256, and nothing else is in the folder', () => {
    expect(manifest).toMatchObject({ format: 'hcas-static-export/1', build_id: api.buildId, index_name: 'index.json', providers: true });
    expect(manifest.totals).toEqual({ answers: summary.answers, files: summary.files, bytes: summary.bytes, not_found: 1 });
    let bytes = 0;
    for (const file of manifest.files) {
      const content = readFileSync(path.join(out, file.path));
      expect(content.length, file.path).toBe(file.bytes);
      expect(createHash('sha256').update(content).digest('hex'), file.path).toBe(file.sha256);
      bytes += file.bytes;
    }
    expect(bytes).toBe(summary.bytes);
    const onDisk = readdirRecursive(out).filter((name) => name !== MANIFEST_FILE);
    expect(onDisk.sort()).toEqual(manifest.files.map((file) => file.path).sort());
  });

  it("writes _headers, which gives every answer's path the server's headers, each header by one rule", async () => {
    const text = readFileSync(path.join(out, HEADERS_FILE), 'utf8');
    const rules = parseHeaders(text);
    expect(rules.length).toBeGreaterThan(10);
    expect(rules.length).toBeLessThanOrEqual(MAX_RULES);
    for (const line of text.split('\n')) expect(line.length).toBeLessThanOrEqual(MAX_LINE_CHARS);
    const answers = manifest.files.filter((file) => !/\.(gz|br)$/.test(file.path) && file.path !== HEADERS_FILE);
    for (const file of answers) {
      const url = urlOfFile(file.path);
      const sent = (await api.respond({ method: 'GET', url })).headers;
      const expected = hostHeaders(Object.fromEntries(Object.entries(sent).map(([name, value]) => [name, String(value)])));
      expect(headersFor(rules, url), url).toEqual(expected);
      // Cloudflare Pages would join two rules' values of one header, Netlify keep one: no header is set twice.
      for (const name of Object.keys(expected))
        expect(rules.filter((rule) => matches(rule.path, url) && name in rule.headers).length, `${url} ${name}`).toBe(1);
    }
    expect(headersFor(rules, '/map/')).toMatchObject({
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Security-Policy': expect.any(String),
    });
    expect(headersFor(rules, '/api/v1/widget-score/10001/')).toMatchObject({
      'Cache-Control': 'public, max-age=86400',
      Vary: 'Authorization, X-API-Key',
    });
    // geojson/ is answered as health-scores/:zip/ is: its rule is the wider one's.
    expect(rules.map((rule) => rule.path)).not.toContain('/api/v1/health-scores/geojson/');
  });

  it('keeps the files of unchanged answers from the previous export (same inode, same time) and says what changed', async () => {
    const file = path.join(out, 'api/v1/health-scores/10001/index.json');
    const before = statSync(file);
    // A file the build no longer answers, left by an earlier export: removed, and counted.
    mkdirSync(path.join(out, 'api/v1/tvi/00000'), { recursive: true });
    writeFileSync(path.join(out, 'api/v1/tvi/00000/index.json'), '{}\n');
    const lines = readFileSync(path.join(out, MANIFEST_FILE), 'utf8').replace(
      '\n]}',
      ',\n{"path":"api/v1/tvi/00000/index.json","bytes":3,"sha256":"x"}\n]}',
    );
    writeFileSync(path.join(out, MANIFEST_FILE), lines);
    const again = await run(out);
    expect(again).toMatchObject({ unchanged: summary.answers, changed: 0, added: 0, removed: 1, files: summary.files });
    const after = statSync(file);
    expect([after.ino, after.mtimeMs]).toEqual([before.ino, before.mtimeMs]);
    expect(existsSync(path.join(out, 'api/v1/tvi/00000'))).toBe(false);
    expect(readManifest(out).previous_build_id).toBe(api.buildId);
  });

  it('rewrites an answer whose bytes changed', async () => {
    const file = path.join(out, 'api/v1/states/index.json');
    writeFileSync(file, '[]\n');
    const again = await run(out);
    expect(again).toMatchObject({ changed: 1, unchanged: summary.answers - 1 });
    expect(readFileSync(file).equals((await api.respond({ method: 'GET', url: '/api/v1/states/' })).body)).toBe(true);
  });
});

describe('_headers rules', () => {
  const json = { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-cache', Vary: 'Accept-Encoding' };
  it('leaves out what differs by body or by compression, and a route a wider rule with the same headers covers', () => {
    expect(hostHeaders({ ...json, 'Content-Length': '12', ETag: '"x"', Vary: 'Accept-Encoding, X-API-Key' })).toEqual({
      'Content-Type': 'application/json; charset=utf-8',
      'Cache-Control': 'no-cache',
      Vary: 'X-API-Key',
    });
    const rules = headerRules([
      { path: '/api/v1/tvi/rankings/', headers: json },
      { path: '/api/v1/tvi/:zip/', headers: { ...json, Vary: '' } },
      { path: '/api/v1/tvi/', headers: json },
    ]);
    expect(rules.map((rule) => rule.path)).toEqual(['/api/v1/tvi/:zip/', '/api/v1/tvi/']);
    expect(matches('/api/v1/tvi/:zip/', '/api/v1/tvi/10001/')).toBe(true);
    expect(matches('/api/v1/tvi/:zip/', '/api/v1/tvi/10001/x/')).toBe(false);
  });

  it('refuses two routes a path can match with different headers, which a host would join or pick', () => {
    expect(() =>
      headerRules([
        { path: '/api/v1/widget-score/:zip/', headers: { ...json, 'Cache-Control': 'public, max-age=86400' } },
        { path: '/api/v1/widget-score/demo/', headers: json },
      ]),
    ).toThrow(/the rules \/api\/v1\/widget-score\/:zip\/ and \/api\/v1\/widget-score\/demo\/ can match one path with different headers/);
  });
});

describe('choices', { timeout: 60_000 }, () => {
  it('names index files as asked, for hosts that only know index.html', async () => {
    const out = path.join(dir, 'html');
    await run(out, { indexName: 'index.html', providers: false });
    expect(existsSync(path.join(out, 'api/v1/health-scores/10001/index.html'))).toBe(true);
    expect(existsSync(path.join(out, 'api/v1/health-scores/10001/index.json'))).toBe(false);
    expect(existsSync(path.join(out, 'api/v1/openapi.json'))).toBe(true);
    expect(fileOf('/api/v1/states/', 'index.html')).toBe('api/v1/states/index.html');
    expect(readManifest(out).routes.map((row) => row.path)).not.toContain('/api/v1/providers/:npi/');
  });

  it('leaves the previous export as it was when an export fails, and no staging folder behind', async () => {
    const out = path.join(dir, 'failing');
    await run(out, { providers: false });
    const before = readFileSync(path.join(out, MANIFEST_FILE));
    let calls = 0;
    const failing = Object.create(api, {
      respond: {
        value: (request: Parameters<Api['respond']>[0]) =>
          ++calls === 500 ? Promise.reject(new Error('disk gone')) : api.respond(request),
      },
    }) as Api;
    await expect(run(out, { api: failing, providers: false })).rejects.toThrow('disk gone');
    expect(readFileSync(path.join(out, MANIFEST_FILE)).equals(before)).toBe(true);
    expect(existsSync(path.join(out, 'api/v1/health-scores/10001/index.json'))).toBe(true);
    expect(readdirSync(dir).filter((name) => name.startsWith('failing.'))).toEqual([]);
  });

  it('removes the staging folder of an export killed midway (issue #44, point 7), never that of one still running', async () => {
    const out = path.join(dir, 'killed');
    const exporter = spawn(process.execPath, [path.join(ROOT, 'bin/hcas.js'), 'export-static', '--db', db, '--out', out, '--quiet'], {
      stdio: 'ignore',
    });
    const staging = `${out}.tmp-${exporter.pid}`;
    await until(() => existsSync(path.join(staging, 'api/v1/health-scores')), 'the export to write its first answers', 60_000, 20);
    const exited = new Promise((resolve) => exporter.once('exit', resolve));
    exporter.kill('SIGKILL');
    await exited;
    expect(existsSync(staging)).toBe(true);
    // Another export into the same folder, running now (its process alive): its folder is its own.
    const running = spawn('sleep', ['60'], { stdio: 'ignore' });
    const theirs = `${out}.tmp-${running.pid}`;
    mkdirSync(theirs);
    try {
      await run(out, { providers: false });
      expect(
        readdirSync(dir)
          .filter((name) => name.startsWith('killed.'))
          .sort(),
      ).toEqual([path.basename(theirs)]);
    } finally {
      running.kill('SIGKILL');
      // Here rather than in afterAll, whose time is short: thousands of files.
      for (const folder of [out, theirs]) rmSync(folder, { recursive: true, force: true });
    }
  });

  it('refuses a folder that is not an export rather than replace it, and leaves it as it was', async () => {
    const out = path.join(dir, 'mine');
    mkdirSync(out);
    writeFileSync(path.join(out, 'notes.txt'), 'mine');
    await expect(run(out)).rejects.toThrow(/is not an hcas static export .* name a new or empty folder with --out/);
    expect(readFileSync(path.join(out, 'notes.txt'), 'utf8')).toBe('mine');
  });
});

/** The routes plan list A sells (docs/api.md, "API keys, plans and rate limits"): never in an export by default. */
const PAID_UNDER_A = [
  '/api/v1/rankings/states/',
  '/api/v1/rankings/hospitals/',
  '/api/v1/tvi/rankings/',
  '/api/v1/tvi/top-vulnerable/',
  '/api/v1/health-scores/geojson/',
  '/api/v1/health-scores/:zip/all-scores/',
  '/api/v1/health-scores/:zip/census/',
];

describe('hcas export-static (the command)', { timeout: 120_000 }, () => {
  it('writes only what callers without a key may read, without options, and says what it left to the server', async () => {
    const out = path.join(dir, 'anonymous');
    const result = await hcas(['export-static', '--db', db, '--out', out, '--log-format', 'json']);
    expect(result.code, result.stderr).toBe(0);
    const summary = JSON.parse(result.stdout.trim().split('\n').at(-1)!);
    expect(summary).toMatchObject({ event: 'exported', out, build_id: api.buildId, paid_left: PAID_UNDER_A.length });
    expect(summary.message).toContain(`${PAID_UNDER_A.length} paid endpoints are left to the server, which asks for a key`);
    const manifest = readManifest(out);
    const routes = manifest.routes.map((row) => row.path);
    for (const free of [
      '/api/v1/health-scores/:zip/',
      '/api/v1/widget-score/:zip/',
      '/widget/v1/widget.js',
      '/map/',
      '/api/v1/facilities/:id/',
    ])
      expect(routes).toContain(free);
    expect(routes.filter((route) => PAID_UNDER_A.includes(route))).toEqual([]);
    expect(existsSync(path.join(out, 'api/v1/rankings/states/index.json'))).toBe(false);
    expect(manifest).toMatchObject({ plan: 'free', paid_answers: false });
    const left = new Map(manifest.server_only.map((row) => [row.path, row.reason]));
    expect(left.get('/api/v1/rankings/states/')).toMatch(
      /^a paid endpoint \(Professional and up, Plan list A\): callers without a key get 403/,
    );
    expect(left.get('/api/v1/health-scores/geojson/')).toMatch(/^a paid endpoint \(Business and up/);
    // The old README's --plan free asks for what is now the default: the same routes.
    const old = path.join(dir, 'plan-free');
    expect((await hcas(['export-static', '--db', db, '--out', old, '--plan', 'free', '--quiet'])).code).toBe(0);
    expect(readManifest(old).routes.map((row) => row.path)).toEqual(routes);
  });

  it('follows the plan file in force: under plan list B, state rankings are free and facilities paid', async () => {
    const out = path.join(dir, 'plans-b');
    const result = await hcas(['export-static', '--db', db, '--out', out, '--plans', 'b', '--quiet']);
    expect(result.code, result.stderr).toBe(0);
    const routes = readManifest(out).routes.map((row) => row.path);
    expect(routes).toContain('/api/v1/rankings/states/');
    expect(routes).not.toContain('/api/v1/facilities/:id/');
    expect(routes).not.toContain('/api/v1/widget-score/:zip/');
  });

  it('writes the paid endpoints only when told it gives them away (--publish-paid-answers)', async () => {
    const out = path.join(dir, 'paid');
    const result = await hcas(['export-static', '--db', db, '--out', out, '--publish-paid-answers', '--endpoints', 'rankings/*,states/']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).not.toContain('paid endpoint');
    const manifest = readManifest(out);
    expect(manifest.routes.map((row) => row.path)).toEqual(['/api/v1/states/', '/api/v1/rankings/states/', '/api/v1/rankings/hospitals/']);
    expect(manifest).toMatchObject({ plan: null, paid_answers: true });
  });

  it('exports only the endpoints --endpoints names, as the API root writes them ({zip}) or as plan files do (:zip)', async () => {
    const out = path.join(dir, 'some');
    const result = await hcas(['export-static', '--db', db, '--out', out, '--endpoints', 'states/, widget-score/{zip}/, tvi/:zip/']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^exported \d+ answers of build \w+ into .* in [\d.]+ s: [\d,]+ files, .* with the \.gz and \.br;/);
    expect(readManifest(out).routes.map((row) => row.path)).toEqual(['/api/v1/states/', '/api/v1/tvi/:zip/', '/api/v1/widget-score/:zip/']);
  });

  it('leaves out the answers of routes that take query parameters with --no-lists (for hosts that ignore query strings)', async () => {
    const out = path.join(dir, 'no-lists');
    const result = await hcas([
      'export-static',
      '--db',
      db,
      '--out',
      out,
      '--no-lists',
      '--publish-paid-answers',
      '--endpoints',
      'health-scores/*,rankings/*,blog/*,states/',
    ]);
    expect(result.code, result.stderr).toBe(0);
    // In the route table's order.
    expect(readManifest(out).routes.map((row) => row.path)).toEqual([
      '/api/v1/health-scores/:zip/',
      '/api/v1/health-scores/:zip/all-scores/',
      '/api/v1/states/',
      '/api/v1/health-scores/:zip/census/',
      '/api/v1/blog/:slug/',
      '/api/v1/rankings/states/',
    ]);
  });

  it.each([
    [
      ['--endpoints', 'health-scores/{zip}/nearby/'],
      /--endpoints health-scores\/\{zip\}\/nearby\/ names no route the export writes: \/api\/v1\/health-scores\/:zip\/nearby\/ is left to the server/,
    ],
    [
      ['--endpoints', 'health-scores/:zip/nearby/'],
      /names no route the export writes: \/api\/v1\/health-scores\/:zip\/nearby\/ is left to the server \(answers depend on radius and limit\)/,
    ],
    [['--endpoints', 'providers/:npi/'], /--endpoints providers\/:npi\/ names providers' profiles alone: add --providers/],
    [['--endpoints', 'scores/'], /--endpoints scores\/ names no route: give route paths relative to \/api\/v1\//],
    [['--endpoints', ','], /--endpoints must name route paths such as widget-score\/\*/],
    [['--plan', 'gold'], /--plan must be one of free, professional, business, enterprise .*got gold/],
    [['--plans', 'b', '--publish-paid-answers'], /--plans has no effect with --publish-paid-answers/],
    [
      ['--plan', 'professional'],
      /--plan professional would give Professional answers to anyone who can reach the files: say so with --publish-paid-answers/,
    ],
    [['--plan', 'free', '--publish-paid-answers'], /--plan free and --publish-paid-answers contradict each other/],
    [['--index-name', 'a/b.json'], /--index-name must be a file name such as index.json or index.html, got a\/b.json/],
    [['--quiet', '--log-format', 'json'], /choose one of --quiet and --log-format json/],
  ])('refuses %j with a message that names the fix (exit 2)', async (args, message) => {
    const result = await hcas(['export-static', '--db', db, '--out', path.join(dir, 'never'), ...args]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(existsSync(path.join(dir, 'never'))).toBe(false);
  });
});

function readdirRecursive(folder: string): string[] {
  return readdirSync(folder, { recursive: true, encoding: 'utf8' }).filter((name) => statSync(path.join(folder, name)).isFile());
}
