import { type ChildProcess, spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api } from '../src/api/index.ts';
import { HEADERS_FILE, hostHeaders } from '../src/static/host-headers.ts';
import { readManifest } from '../src/static/manifest.ts';
import { type RunningPreview, startPreview } from '../src/static/preview.ts';
import { hcas } from './helpers/cli.ts';
import { tempDir } from './helpers/files.ts';
import { fixtureDb } from './helpers/fixture-db.ts';
import { request } from './helpers/http.ts';
import { canConnect, freePort } from './helpers/nginx.ts';
import { ServerProcess } from './helpers/process.ts';
import { hasCommand, serviceMissing } from './helpers/services.ts';

/**
 * Static hosts served right (issue 43): an export as `hcas preview` serves it, which applies the export's
 * `_headers` as Netlify and Cloudflare Pages do, against the server's answers (bytes and headers, path by
 * path), and the same export under `python3 -m http.server`, a plain file server, to show what it cannot do.
 */

const dir = tempDir('hcas-static-preview-');
/** For Netlify, Cloudflare Pages, GitHub Pages: folders answered from index.html. */
const site = path.join(dir, 'site');
/** For nginx's static.conf (the default): folders answered from index.json. */
const nginxStyle = path.join(dir, 'nginx-style');
let api: Api;
let preview: ServerProcess;
let url: string;

beforeAll(async () => {
  const db = await fixtureDb();
  api = Api.open(db, { cacheBytes: 0 });
  for (const [out, extra] of [
    [site, ['--index-name', 'index.html', '--providers']],
    [nginxStyle, []],
  ] as const) {
    const exported = await hcas(['export-static', '--db', db, '--out', out, '--quiet', ...extra]);
    expect(exported.code, exported.stderr).toBe(0);
  }
  preview = new ServerProcess(['bin/hcas.js', 'preview', site, '--port', '0', '--log-format', 'json']);
  url = String((await preview.waitFor((event) => event.event === 'listening', 30_000)).url).replace(/\/$/, '');
}, 120_000);

afterAll(() => {
  preview?.stop();
  api?.retire();
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

/** The first, middle and last answer of every route the export wrote, as request paths. */
function samples(folder: string, indexName: string): string[] {
  const manifest = readManifest(folder);
  const urls = manifest.files
    .map((file) => file.path)
    .filter((file) => !/\.(gz|br)$/.test(file) && file !== HEADERS_FILE)
    .map((file) => `/${file.endsWith(indexName) || file === 'map/index.html' ? file.slice(0, file.lastIndexOf('/') + 1) : file}`);
  const picked = new Set<string>();
  for (const route of manifest.routes) {
    const pattern = new RegExp(`^${route.path.replace(/:\w+/g, '[^/]+')}$`);
    const mine = urls.filter((each) => pattern.test(each));
    for (const one of [mine[0], mine[Math.floor(mine.length / 2)], mine.at(-1)]) if (one) picked.add(one);
  }
  return [...picked];
}

describe('hcas preview: the export as a static host serves it', { timeout: 120_000 }, () => {
  it('answers every kind of path with the bytes and the headers the server sends, from _headers', async () => {
    const paths = [...samples(site, 'index.html'), '/api/v1/health-scores/10001/'];
    expect(paths.length).toBeGreaterThan(35);
    expect(paths).toEqual(
      expect.arrayContaining([
        '/',
        '/api/v1/',
        '/api/v1/openapi.json',
        '/map/',
        '/map/map.css',
        '/map/map.js',
        '/map/data/national/',
        '/widget/v1/widget.js',
      ]),
    );
    for (const each of paths) {
      const [fromPreview, fromServer] = [await request(url, each), await api.respond({ method: 'GET', url: each })];
      expect(fromPreview.status, each).toBe(200);
      expect(fromPreview.body.equals(fromServer.body), `${each}: same bytes`).toBe(true);
      const sent = hostHeaders(Object.fromEntries(Object.entries(fromServer.headers).map(([name, value]) => [name, String(value)])));
      for (const [name, value] of Object.entries(sent)) {
        const got = fromPreview.headers[name.toLowerCase()];
        if (name === 'Vary')
          expect(
            String(got)
              .split(', ')
              .filter((token) => token !== 'Accept-Encoding')
              .join(', '),
            each,
          ).toBe(value);
        else expect(got, `${each} ${name}`).toBe(value);
      }
      expect(fromPreview.headers['x-ratelimit-limit'], each).toBeUndefined();
    }
  });

  it('sends the .gz and .br beside a file to clients that take them, which decode to the same bytes', async () => {
    const each = '/api/v1/health-scores/';
    const plain = await request(url, each);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers.vary).toBe('Accept-Encoding');
    for (const [coding, decode] of [
      ['br', zlib.brotliDecompressSync],
      ['gzip', zlib.gunzipSync],
    ] as const) {
      const packed = await request(url, each, { headers: { 'Accept-Encoding': coding } });
      expect(packed.headers['content-encoding']).toBe(coding);
      expect(packed.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(decode(packed.body).equals(plain.body)).toBe(true);
    }
  });

  it('does what a static host does, and no more: query strings ignored, its own 301 and 404, GET and HEAD only', async () => {
    const first = await request(url, '/api/v1/health-scores/');
    const second = await request(url, '/api/v1/health-scores/?page=2');
    expect(second.status).toBe(200);
    expect(second.body.equals(first.body)).toBe(true);
    await preview.waitFor((event) => event.event === 'request' && String(event.note).startsWith('query string ignored'));
    const cases: Array<[string, string, number, string | undefined]> = [
      ['GET', '/api/v1/states', 301, '/api/v1/states/'],
      ['GET', '/map/index.html', 301, '/map/'],
      ['GET', '/api/v1/health-scores/99999/', 404, undefined],
      ['GET', `/${HEADERS_FILE}`, 404, undefined],
      ['GET', '/../package.json', 404, undefined],
      ['POST', '/api/v1/states/', 405, undefined],
      // The file system refuses a NUL in a path: one such request crashed the preview before.
      ['GET', '/%00/', 400, undefined],
      ['GET', '/api/v1/states/', 200, undefined],
    ];
    for (const [method, target, status, location] of cases) {
      const response = await request(url, target, { method });
      expect(response.status, `${method} ${target}`).toBe(status);
      expect(response.headers.location, target).toBe(location);
    }
    expect((await request(url, '/api/v1/health-scores/99999/')).headers['content-type']).toBe('text/plain; charset=utf-8');
    const head = await request(url, '/api/v1/states/', { method: 'HEAD' });
    expect(head.body.length).toBe(0);
    expect(Number(head.headers['content-length'])).toBe((await request(url, '/api/v1/states/')).body.length);
    const again = await request(url, '/api/v1/states/', { headers: { 'If-None-Match': String(head.headers.etag) } });
    expect(again.status).toBe(304);
  });

  it("answers the folders of a default export from index.json, as nginx's static.conf does", async () => {
    const running: RunningPreview = await startPreview({ folder: nginxStyle, host: '127.0.0.1', port: 0 });
    try {
      const response = await request(running.url.replace(/\/$/, ''), '/api/v1/health-scores/10001/');
      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(response.body.equals((await api.respond({ method: 'GET', url: '/api/v1/health-scores/10001/' })).body)).toBe(true);
    } finally {
      await running.close();
    }
  });

  it('refuses a folder that is not an export, naming the command that makes one', async () => {
    const result = await hcas(['preview', dir, '--port', '0']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `${dir} is not an hcas static export (it has no hcas-manifest.json): make one with hcas export-static --out`,
    );
  });
});

describe('python3 -m http.server, a plain file server, beside hcas preview', { timeout: 120_000 }, () => {
  if (!hasCommand('python3', ['--version'])) {
    serviceMissing(
      'python3 -m http.server beside hcas preview (test/static-preview.test.ts)',
      'Install python3 (apt-get install -y python3).',
    );
    it.skip('python3 -m http.server (missing python3)', () => {});
    return;
  }
  const servers: ChildProcess[] = [];
  /** `python3 -m http.server` serving `folder` on loopback; its base URL once it accepts connections. */
  const pythonServer = async (folder: string) => {
    const port = await freePort();
    const child = spawn('python3', ['-m', 'http.server', String(port), '--bind', '127.0.0.1', '--directory', folder], { stdio: 'ignore' });
    servers.push(child);
    for (const deadline = Date.now() + 30_000; !(await canConnect(port)); await new Promise((resolve) => setTimeout(resolve, 50)))
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`python3 -m http.server did not listen on ${port}`);
    return `http://127.0.0.1:${port}`;
  };
  afterAll(() => {
    for (const child of servers) child.kill();
  });

  const record = '/api/v1/health-scores/10001/';

  it('lists a folder of a default export (index.json) as an HTML page: the issue as filed', async () => {
    const response = await request(await pythonServer(nginxStyle), record);
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    expect(response.body.toString('utf8')).toContain('Directory listing for');
  });

  it('sends an index.html export as text/html without CORS; hcas preview sends it as JSON with CORS', async () => {
    const plainServer = await request(await pythonServer(site), record);
    const fromPreview = await request(url, record);
    expect(plainServer.body.equals(fromPreview.body)).toBe(true);
    expect(plainServer.headers['content-type']).toBe('text/html');
    expect(plainServer.headers['access-control-allow-origin']).toBeUndefined();
    expect(fromPreview.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(fromPreview.headers['access-control-allow-origin']).toBe('*');
    // A file whose name says JSON is sent as JSON by both, but only the preview adds CORS.
    const openapi = await request(await pythonServer(site), '/api/v1/openapi.json');
    expect(openapi.headers['content-type']).toBe('application/json');
    expect(openapi.headers['access-control-allow-origin']).toBeUndefined();
  });
});
