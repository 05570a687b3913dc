import type { IncomingHttpHeaders } from 'node:http';
import path from 'node:path';
import { chmodSync, readFileSync, rmSync } from 'node:fs';
import zlib from 'node:zlib';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMPRESS_MIN_BYTES } from '../src/http/compress.ts';
import { readManifest } from '../src/static/manifest.ts';
import { hcas, ROOT } from './helpers/cli.ts';
import { tempDir } from './helpers/files.ts';
import { fixtureDb } from './helpers/fixture-db.ts';
import { request, type HttpResult } from './helpers/http.ts';
import { freePort, HAVE_BROTLI_STATIC, NGINX, selfSignedCertificate, TestNginx } from './helpers/nginx.ts';
import { ServerProcess } from './helpers/process.ts';
import { hasCommand, serviceMissing } from './helpers/services.ts';

/**
 * The static API as deploy/ ships it: `hcas export-static` of the fixture build served by nginx with
 * deploy/nginx/static.conf (included by hcas.conf, TLS on loopback) in front of an `hcas serve` replica. For a
 * sample of every kind of path the export writes, nginx's answer from the file must be the server's answer,
 * byte for byte, with its content type, CORS and cache headers (the widget's 24 hours); compressed variants
 * must decode to it. Everything else (query strings, API keys, other methods, paths the export has not) must
 * reach the replica, and answers from files must not count against a quota.
 */

const HOST_NAME = 'api.example.org';
const haveOpenssl = hasCommand('openssl', ['version']);
/**
 * The options of the README's copy-paste `export-static` line ("A static API"), less its `--out`: what someone who
 * copies it exports.
 */
function readmeRecipeOptions(): string[] {
  const section = readFileSync(path.join(ROOT, 'README.md'), 'utf8').split('### A static API')[1] ?? '';
  const line = /```sh\n[^\n]*export-static([^\n#]*)/.exec(section)?.[1];
  if (line === undefined) throw new Error('README.md\'s "A static API" has no sh block that runs export-static');
  const words = line.trim().split(/\s+/);
  const out = words.indexOf('--out');
  expect(out, "the README's recipe names its --out").toBeGreaterThanOrEqual(0);
  return words.filter((_, i) => i !== out && i !== out + 1);
}

/**
 * The headers a static answer must carry as the server sends them. (Access-Control-Expose-Headers differs by
 * design: the server exposes its X-RateLimit-* headers too, which static answers do not have.)
 */
const SAME_HEADERS = [
  'content-type',
  'cache-control',
  'access-control-allow-origin',
  'x-content-type-options',
  'content-security-policy',
  'referrer-policy',
];

describe('the static API behind nginx (deploy/nginx/static.conf)', { timeout: 180_000 }, () => {
  if (!NGINX || !haveOpenssl || !HAVE_BROTLI_STATIC) {
    const missing = [!NGINX && 'nginx', !haveOpenssl && 'openssl', !HAVE_BROTLI_STATIC && 'libnginx-mod-http-brotli-static']
      .filter(Boolean)
      .join(', ');
    serviceMissing(
      'the static API behind nginx (test/static-nginx.test.ts)',
      `Missing: ${missing}. Install them (apt-get install -y nginx openssl libnginx-mod-http-brotli-static), as .ci/run does.`,
    );
    it.skip(`the static API behind nginx (missing ${missing})`, () => {});
    return;
  }

  const dir = tempDir('hcas-static-nginx-');
  // nginx's workers run as nobody under a root master: they must reach the export through the temp folder.
  chmodSync(dir, 0o755);
  const exportDir = path.join(dir, 'static');
  let replica: ServerProcess;
  /** The reference: `hcas serve` without limits, answering every endpoint to the test's direct requests. */
  let reference: ServerProcess;
  let replicaUrl: string;
  let nginx: TestNginx;
  let ca: string;
  let key: string;
  let samples: string[];

  beforeAll(async () => {
    const db = await fixtureDb();
    // With the README's recipe's own options (and --providers): what callers without a key may read under plan
    // list A. A recipe that publishes paid answers fails the 403 test below.
    const exported = await hcas(['export-static', ...readmeRecipeOptions(), '--db', db, '--out', exportDir, '--providers', '--quiet']);
    expect(exported.code, exported.stderr).toBe(0);
    const state = path.join(dir, 'state.sqlite');
    const created = await hcas(['keys', 'create', '--plan', 'business', '--name', 'static test', '--state-file', state], {
      env: { REDIS_URL: undefined },
    });
    expect(created.code, created.stderr).toBe(0);
    key = created.stdout.trim();
    const [port, referencePort] = [await freePort(), await freePort()];
    replicaUrl = `http://127.0.0.1:${referencePort}`;
    // The replica behind nginx as served, limits on: the anonymous quota counts callers per client address.
    const serve = ['bin/hcas.js', 'serve', '--db', db, '--workers', '1', '--quiet', '--no-watch', '--port'];
    replica = new ServerProcess([...serve, String(port)], { REDIS_URL: '', HCAS_STATE: state, HCAS_TRUST_PROXY: '127.0.0.1' });
    reference = new ServerProcess([...serve, String(referencePort), '--no-limits']);
    await Promise.all([replica, reference].map((server) => server.waitFor((event) => event.event === 'listening', 60_000)));
    const certificate = selfSignedCertificate(dir, HOST_NAME)!;
    ca = certificate.cert;
    nginx = new TestNginx(path.join(dir, 'nginx'), await freePort(), await freePort());
    nginx.configure([port, port], certificate, { staticRoot: exportDir });
    nginx.check();
    await nginx.start();
    // And a PO-box ZIP code, answered with the record of the ZIP code it lies in.
    const handle = new Database(db, { readonly: true });
    const alias = handle.prepare('SELECT zip_code FROM zip_aliases ORDER BY zip_code LIMIT 1').pluck().get() as string;
    handle.close();
    samples = [...sampleOfEveryKind(readManifest(exportDir)), `/api/v1/health-scores/${alias}/`, `/api/v1/widget-score/${alias}/`];
  }, 180_000);

  // nginx is given 5 s to stop, and the export's files take seconds more to remove on a busy machine: a CI run
  // passed the hook's default 10 s here.
  afterAll(async () => {
    await nginx?.stop();
    replica?.stop();
    reference?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  const edge = (target: string, options: { method?: string; headers?: Record<string, string> } = {}) =>
    request(`https://127.0.0.1:${nginx.httpsPort}`, target, { ...options, ca, servername: HOST_NAME });
  /**
   * Where nginx answered a request from: `-` for a file, the replica's address when it passed it on. nginx logs a
   * request once its answer is sent, so the line may come a moment after the client has the answer.
   */
  const upstreamOf = async (response: HttpResult) => {
    const id = String(response.headers['x-request-id']);
    for (const deadline = Date.now() + 5_000; ; await new Promise((resolve) => setTimeout(resolve, 20))) {
      const line = nginx.accessLog().find((entry) => entry.includes(`id=${id} `));
      if (line) return /upstream=(\S+)/.exec(line)![1];
      if (Date.now() > deadline) throw new Error(`no access log line with id=${id}`);
    }
  };

  it('samples every kind of path the export writes', () => {
    expect(samples.length).toBeGreaterThan(30);
    for (const kind of ['/api/v1/health-scores/', '/api/v1/widget-score/', '/api/v1/facilities/', '/api/v1/providers/', '/api/v1/blog/'])
      expect(samples.filter((url) => url.startsWith(kind)).length, kind).toBeGreaterThan(1);
    for (const one of ['/', '/api/v1/', '/api/v1/openapi.json', '/widget/v1/widget.js', '/api/v1/health-scores/', '/map/'])
      expect(samples).toContain(one);
  });

  it('answers each sampled path from its file with the bytes, content type, CORS and cache headers the server sends', async () => {
    for (const url of samples) {
      const [fromFile, fromServer] = [await edge(url), await request(replicaUrl, url)];
      expect(fromServer.status, url).toBe(200);
      expect(fromFile.status, url).toBe(200);
      expect(await upstreamOf(fromFile), `${url} came from the file`).toBe('-');
      expect(fromFile.body.equals(fromServer.body), `${url}: same bytes`).toBe(true);
      for (const name of SAME_HEADERS) expect(fromFile.headers[name], `${url} ${name}`).toBe(fromServer.headers[name]);
      expect(fromFile.headers['access-control-expose-headers'], url).toBe('ETag');
      expect(varyOf(fromFile.headers), `${url} vary`).toEqual(varyOf(fromServer.headers));
      expect(fromFile.headers.etag, url).toMatch(/^"[0-9a-f]+-[0-9a-f]+"$/);
      expect(fromFile.headers['last-modified'], url).toBeDefined();
      expect(fromFile.headers['x-ratelimit-limit'], `${url}: not metered`).toBeUndefined();
    }
  });

  it("keeps the widget's contract from the file: CORS *, cached 24 hours, varying by credentials", async () => {
    const widget = samples.find((url) => url.startsWith('/api/v1/widget-score/'))!;
    const response = await edge(widget, { headers: { Origin: 'https://news.example' } });
    expect(await upstreamOf(response)).toBe('-');
    expect(response.headers['access-control-allow-origin']).toBe('*');
    expect(response.headers['cache-control']).toBe('public, max-age=86400');
    expect(varyOf(response.headers)).toEqual(expect.arrayContaining(['authorization', 'x-api-key']));
    expect(JSON.parse(response.body.toString('utf8')).white_label).toBe(false);
    const script = await edge('/widget/v1/widget.js');
    expect(script.headers['cache-control']).toBe('public, max-age=3600, stale-while-revalidate=86400');
  });

  it('sends the precompressed .gz and .br of answers of 1 KB and more, which decode to the same bytes', async () => {
    let compressed = 0;
    for (const url of samples) {
      const plain = (await request(replicaUrl, url)).body;
      for (const [coding, decode] of [
        ['gzip', zlib.gunzipSync],
        ['br', zlib.brotliDecompressSync],
      ] as const) {
        const response = await edge(url, { headers: { 'Accept-Encoding': coding } });
        expect(await upstreamOf(response), url).toBe('-');
        if (plain.length < COMPRESS_MIN_BYTES) {
          expect(response.headers['content-encoding'], url).toBeUndefined();
          expect(response.body.equals(plain), url).toBe(true);
          continue;
        }
        compressed++;
        expect(response.headers['content-encoding'], `${url} ${coding}`).toBe(coding);
        expect(decode(response.body).equals(plain), `${url} ${coding}`).toBe(true);
        expect(response.headers['content-type'], url).toBe((await request(replicaUrl, url)).headers['content-type']);
      }
    }
    expect(compressed).toBeGreaterThan(20);
  });

  it('revalidates with its ETag and Last-Modified (304), and answers HEAD with the headers alone', async () => {
    const url = '/api/v1/health-scores/10001/';
    const first = await edge(url);
    const byTag = await edge(url, { headers: { 'If-None-Match': String(first.headers.etag) } });
    expect(byTag.status).toBe(304);
    expect(byTag.body.length).toBe(0);
    const byTime = await edge(url, { headers: { 'If-Modified-Since': String(first.headers['last-modified']) } });
    expect(byTime.status).toBe(304);
    const head = await edge(url, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect(Number(head.headers['content-length'])).toBe(first.body.length);
  });

  it('hands the replicas every request the files cannot answer, as the server answers it', async () => {
    const cases: Array<{ target: string; method?: string; headers?: Record<string, string>; status: number }> = [
      { target: '/api/v1/health-scores/?page=2', status: 200 },
      { target: '/api/v1/health-scores/?page_size=3&state=ny', status: 200 },
      { target: '/api/v1/health-scores/10001', status: 301 },
      { target: '/api/v1/health-scores/99999/', status: 404 },
      { target: '/api/v1/health-scores/10001/nearby/', status: 200 },
      { target: '/api/v1/meta/', status: 200 },
      { target: '/api/v1/autocomplete/?q=new', status: 200 },
      { target: '/api/v1/states/index.json', status: 404 },
      { target: '/api/v1/states/index.json.gz', status: 404 },
      { target: '/index.json', status: 404 },
      { target: '/map', status: 301 },
      { target: '/map/index.html', status: 404 },
      { target: '/api/v1/exports/facilities/?format=csv', status: 403 },
      { target: '/api/v1/widget-score/10001/', method: 'OPTIONS', status: 204 },
      { target: '/api/v1/states/', method: 'POST', status: 405 },
      { target: '/api/v1/states/', headers: { 'X-API-Key': 'not-a-key' }, status: 401 },
    ];
    for (const { target, method, headers, status } of cases) {
      const response = await edge(target, { method, headers });
      expect(response.status, `${method ?? 'GET'} ${target}`).toBe(status);
      expect(await upstreamOf(response), `${method ?? 'GET'} ${target} went to the replica`).not.toBe('-');
      if (method !== 'OPTIONS') expect(response.headers['content-type'], target).toBe('application/json; charset=utf-8');
      expect(response.headers['x-ratelimit-limit'], `${target}: counted by the replica`).toBeDefined();
    }
  });

  it("leaves the paid endpoints to the replicas: a caller without a key gets the replica's 403, a key of the plan its answer", async () => {
    // Plan list A's paid endpoints (Professional: all-scores, census, the rankings, TVI's lists; Business: GeoJSON).
    const paid = ['rankings/states/', 'rankings/hospitals/', 'tvi/rankings/', 'tvi/top-vulnerable/', 'health-scores/geojson/']
      .concat(['health-scores/10001/all-scores/', 'health-scores/10001/census/'])
      .map((relative) => `/api/v1/${relative}`);
    const left = readManifest(exportDir).server_only.filter((row) => row.reason.startsWith('a paid endpoint'));
    expect(left.map((row) => row.path.replace(':zip', '10001')).sort()).toEqual([...paid].sort());
    for (const url of paid) {
      const anonymous = await edge(url);
      expect(anonymous.status, url).toBe(403);
      expect(JSON.parse(anonymous.body.toString('utf8')).error, url).toBe('plan_upgrade_required');
      expect(await upstreamOf(anonymous), `${url} went to the replica`).not.toBe('-');
      const keyed = await edge(url, { headers: { 'X-API-Key': key } });
      expect(keyed.status, url).toBe(200);
      expect(keyed.body.equals((await request(replicaUrl, url)).body), url).toBe(true);
    }
  });

  it("answers a request with an API key from the replica: its plan's answer (the white-label widget) and its quota", async () => {
    for (const headers of [{ 'X-API-Key': key }, { Authorization: `Bearer ${key}` }] as Array<Record<string, string>>) {
      const response = await edge('/api/v1/widget-score/10001/', { headers });
      expect(response.status).toBe(200);
      expect(await upstreamOf(response)).not.toBe('-');
      expect(JSON.parse(response.body.toString('utf8')).white_label).toBe(true);
      expect(response.headers['x-ratelimit-limit']).toBe('500000');
    }
  });

  it('does not count answers from files against the anonymous quota', async () => {
    const remaining = async () => Number((await edge('/api/v1/health-scores/?page=3')).headers['x-ratelimit-remaining']);
    const before = await remaining();
    for (let i = 0; i < 10; i++) expect((await edge('/api/v1/health-scores/10001/')).status).toBe(200);
    expect(await remaining()).toBe(before - 1);
  });
});

/** First, middle and last file of every route of the export, as request paths. */
function sampleOfEveryKind(manifest: ReturnType<typeof readManifest>): string[] {
  const answers = manifest.files.map((file) => file.path).filter((file) => !/\.(gz|br)$/.test(file));
  // The map's page is map/index.html whatever the index name.
  const urls = answers.map((file) => {
    const index = file === 'map/index.html' ? 'index.html' : 'index.json';
    return `/${file.endsWith(index) ? file.slice(0, -index.length) : file}`;
  });
  const picked: string[] = [];
  const literal = new Set(manifest.routes.map((route) => route.path));
  for (const route of manifest.routes) {
    // A literal segment beats a parameter, as in the router: geojson/ is not a ZIP code.
    const pattern = new RegExp(`^${route.path.replace(/:\w+/g, '[^/]+')}$`);
    const mine = urls.filter((url) => pattern.test(url) && (url === route.path || !literal.has(url)));
    expect(mine.length, route.path).toBe(route.answers);
    picked.push(...new Set([mine[0], mine[Math.floor(mine.length / 2)], mine.at(-1)!]));
  }
  return picked;
}

/** The Vary header's names, lower case and sorted (one header or several lines of it say the same). */
function varyOf(headers: IncomingHttpHeaders): string[] {
  const value = headers.vary;
  if (value === undefined) return [];
  return String(value)
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter(Boolean)
    .sort();
}
