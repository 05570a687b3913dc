import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../src/server/server.ts';
import { badValuesOf, exampleOf, EXPORT_TYPES, ROUTE_EXAMPLES, ROUTES } from './helpers/examples.ts';
import { fixtureDb } from './helpers/fixture-db.ts';
import { bodyJson, request, type HttpResult } from './helpers/http.ts';

const JSON_TYPE = 'application/json; charset=utf-8';

let server: RunningServer;
let base: string;
beforeAll(async () => {
  server = await startServer({ db: await fixtureDb(), port: 0, host: '127.0.0.1', quiet: true, watch: false, log: () => {} });
  base = server.url;
});
afterAll(() => server.close());

/** The checks every error response must pass. */
function expectError(result: HttpResult, status: number, code: string): { message: string } {
  expect(result.status).toBe(status);
  expect(result.headers['content-type']).toBe(JSON_TYPE);
  expect(result.headers['x-content-type-options']).toBe('nosniff');
  expect(result.headers['content-length']).toBe(String(result.body.length));
  expect(result.headers.etag).toBeUndefined();
  const body = bodyJson(result) as Record<string, unknown>;
  expect(Object.keys(body).sort()).toEqual(['error', 'message', 'status']);
  expect(body).toMatchObject({ error: code, status });
  expect(typeof body.message).toBe('string');
  return body as { message: string };
}

describe('every route answers its example with 200 JSON', () => {
  it('has an example for every route', () => {
    expect(Object.keys(ROUTE_EXAMPLES).sort()).toEqual(ROUTES.map((r) => r.path).sort());
  });
  for (const route of ROUTES) {
    it(route.path, async () => {
      for (const url of ROUTE_EXAMPLES[route.path] ?? []) {
        const result = await request(base, url);
        expect(result.status, url).toBe(200);
        const format = route.path.includes('/exports/')
          ? (new URL(url, base).searchParams.get('format') ?? 'csv').toLowerCase()
          : undefined;
        expect(result.headers['content-type']).toBe(format ? EXPORT_TYPES[format] : JSON_TYPE);
        expect(result.headers['x-content-type-options']).toBe('nosniff');
        expect(result.headers.etag).toMatch(/^"[0-9a-f]{16}-[\w-]{16}"$/);
        expect(result.body.at(-1)).toBe(0x0a);
      }
    });
  }
});

describe('route walk: every parameter of every route rejects bad input with a 400 that names it', () => {
  for (const route of ROUTES) {
    const example = new URL(exampleOf(route.path), 'http://x');
    const valid = example.pathname;
    // Required parameters keep their example value, so the one under test is the one that fails.
    const required = (except: string) =>
      Object.entries(route.query)
        .filter(([name, spec]) => spec.required && name !== except)
        .map(([name]) => `${name}=${example.searchParams.get(name)}&`)
        .join('');
    for (const name of Object.keys(route.pathParams)) {
      it(`${route.path} path parameter ${name}`, async () => {
        expect(badValuesOf(route.path, name), `add bad values for ${name} to test/helpers/examples.ts`).toBeDefined();
        for (const bad of badValuesOf(route.path, name)!) {
          const url = route.path.replace(`:${name}`, bad);
          const result = await request(base, url);
          const body = expectError(result, 400, 'invalid_parameter');
          expect(body.message, url).toMatch(new RegExp(`^${name} must be .+, got `));
        }
      });
    }
    for (const name of Object.keys(route.query)) {
      it(`${route.path} query parameter ${name}`, async () => {
        expect(badValuesOf(route.path, name), `add bad values for ${name} to test/helpers/examples.ts`).toBeDefined();
        for (const bad of badValuesOf(route.path, name)!) {
          const url = `${valid}?${required(name)}${name}=${bad}`;
          const body = expectError(await request(base, url), 400, 'invalid_parameter');
          expect(body.message, url).toMatch(new RegExp(`^${name} must be .+, got `));
        }
        const repeated = expectError(await request(base, `${valid}?${name}=1&${name}=2`), 400, 'invalid_parameter');
        expect(repeated.message).toContain(`${name} is given more than once`);
      });
    }
    it(`${route.path} rejects an unknown parameter, naming what it accepts`, async () => {
      const body = expectError(await request(base, `${valid}?bogus=1`), 400, 'invalid_parameter');
      const accepted = Object.keys(route.query);
      expect(body.message).toContain('unknown parameter bogus');
      expect(body.message).toContain(accepted.length ? `accepts ${accepted.join(', ')}` : 'takes no query parameters');
    });
    it(`${route.path}: 405 with Allow for other methods, 204 preflight for OPTIONS, HEAD like GET`, async () => {
      for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
        const result = await request(base, valid, { method });
        expectError(result, 405, 'method_not_allowed');
        expect(result.headers.allow).toBe('GET, HEAD, OPTIONS');
      }
      const options = await request(base, valid, {
        method: 'OPTIONS',
        headers: { Origin: 'https://example.org', 'Access-Control-Request-Method': 'GET' },
      });
      expect(options.status).toBe(204);
      expect(options.body.length).toBe(0);
      expect(options.headers.allow).toBe('GET, HEAD, OPTIONS');
      expect(options.headers['access-control-allow-origin']).toBe('*');
      expect(options.headers['access-control-allow-methods']).toBe('GET, HEAD, OPTIONS');
      expect(options.headers['access-control-allow-headers']).toContain('X-API-Key');
      const get = await request(base, exampleOf(route.path));
      const head = await request(base, exampleOf(route.path), { method: 'HEAD' });
      expect(head.status).toBe(200);
      expect(head.body.length).toBe(0);
      for (const header of ['content-type', 'content-length', 'etag', 'cache-control', 'vary', 'x-content-type-options']) {
        expect(head.headers[header], header).toBe(get.headers[header]);
      }
    });
  }
});

describe('paths', () => {
  it('unknown paths are a 404 JSON error for any method', async () => {
    for (const path of ['/api/v1/nope/', '/api/v2/states/', '/api/v1/health-scores/02801/extra/', '/favicon.ico']) {
      const body = expectError(await request(base, path), 404, 'not_found');
      expect(body.message).toContain('No endpoint at');
    }
    expectError(await request(base, '/api/v1/nope/', { method: 'POST' }), 404, 'not_found');
  });

  it('the API root (/api/v1/ and the site root /) lists every endpoint, the OpenAPI document and the build (issue 28)', async () => {
    const [api, site] = await Promise.all([request(base, '/api/v1/'), request(base, '/')]);
    for (const result of [api, site]) {
      expect(result.status).toBe(200);
      expect(result.headers['content-type']).toBe(JSON_TYPE);
    }
    const body = bodyJson(api) as { build: { build_id: string }; endpoints: Array<{ path: string }> };
    expect(bodyJson(site)).toEqual(body);
    expect(body).toMatchObject({ openapi: '/api/v1/openapi.json', build: { meta: '/api/v1/meta/' } });
    expect(body.build.build_id).toMatch(/^[0-9a-f]{16}$/);
    expect(body.endpoints.map((endpoint) => endpoint.path)).toEqual(ROUTES.map((route) => route.path.replace(/:(\w+)/g, '{$1}')));
    expect((await request(base, '/api/v1')).headers.location).toBe('/api/v1/');
  });

  it('GET and HEAD without the trailing slash are a 301 to the slash path, query kept', async () => {
    for (const method of ['GET', 'HEAD']) {
      const result = await request(base, '/api/v1/health-scores/02801/nearby?radius=5&limit=3', { method });
      expect(result.status).toBe(301);
      expect(result.headers.location).toBe('/api/v1/health-scores/02801/nearby/?radius=5&limit=3');
      expect(result.headers['content-type']).toBe(JSON_TYPE);
      if (method === 'GET') expect(bodyJson(result)).toMatchObject({ location: result.headers.location, status: 301 });
    }
    const followed = await request(base, '/api/v1/health-scores/02801/nearby/?radius=5&limit=3');
    expect(followed.status).toBe(200);
  });

  it('other methods on a slashless path are a 405, not a redirect', async () => {
    const result = await request(base, '/api/v1/states', { method: 'DELETE' });
    expectError(result, 405, 'method_not_allowed');
    expect(result.headers.allow).toBe('GET, HEAD, OPTIONS');
  });

  it('min_score above max_score is a 400 naming both', async () => {
    const body = expectError(await request(base, '/api/v1/health-scores/?min_score=80&max_score=20'), 400, 'invalid_parameter');
    expect(body.message).toBe('min_score must be at most max_score, got min_score 80 and max_score 20');
  });

  it('HEAD of an error has the error headers and no body', async () => {
    const get = await request(base, '/api/v1/health-scores/00000/');
    const head = await request(base, '/api/v1/health-scores/00000/', { method: 'HEAD' });
    expect(head.status).toBe(404);
    expect(head.body.length).toBe(0);
    expect(head.headers['content-length']).toBe(get.headers['content-length']);
    expect(head.headers['content-type']).toBe(JSON_TYPE);
  });

  it('accepts absolute-form request targets', async () => {
    const result = await request(base, '/api/v1/states/');
    const absolute = await server.live.current.respond({ method: 'GET', url: `${base}/api/v1/states/` });
    expect(absolute.body.equals(result.body)).toBe(true);
  });

  it('a ZIP with no score is a 404 naming the ZIP, on every ZIP route', async () => {
    for (const suffix of ['', 'all-scores/', 'nearby/']) {
      const body = expectError(await request(base, `/api/v1/health-scores/00000/${suffix}`), 404, 'not_found');
      expect(body.message).toBe('No health score for ZIP code 00000');
    }
  });
});

describe('request log', () => {
  it('writes one JSON line per request: time, level, request id, method, path, route, status, duration_ms, bytes, client', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const logged = await startServer({
      db: await fixtureDb(),
      port: 0,
      host: '127.0.0.1',
      watch: false,
      log: (line) => lines.push(line as Record<string, unknown>),
    });
    try {
      await request(logged.url, '/api/v1/health-scores/02801/');
      await request(logged.url, '/api/v1/nope/', { method: 'HEAD' });
    } finally {
      await logged.close();
    }
    expect(lines).toHaveLength(2);
    // As written (JSON drops what is undefined): without limits there is no key id or plan.
    const written = JSON.parse(JSON.stringify(lines[0]));
    expect(Object.keys(written)).toEqual([
      'time',
      'level',
      'request_id',
      'method',
      'path',
      'route',
      'status',
      'duration_ms',
      'bytes',
      'client',
    ]);
    expect(lines[0]).toMatchObject({
      level: 'info',
      method: 'GET',
      path: '/api/v1/health-scores/02801/',
      route: '/api/v1/health-scores/:zip/',
      status: 200,
      client: '127.0.0.1',
    });
    expect(lines[0].request_id).toMatch(/^[0-9a-f]{12}[0-9a-z]{6,}$/);
    expect(lines[1].request_id).not.toBe(lines[0].request_id);
    expect(lines[0].bytes).toBeGreaterThan(100);
    expect(lines[1]).toMatchObject({ method: 'HEAD', path: '/api/v1/nope/', status: 404, bytes: 0 });
    expect(Date.parse(lines[0].time as string)).not.toBeNaN();
    expect(lines[0].duration_ms).toBeTypeOf('number');
  });
});

describe('caching', () => {
  it('a strong ETag from the build id, different per URL, and 304 on If-None-Match', async () => {
    const a = await request(base, '/api/v1/health-scores/02801/');
    const b = await request(base, '/api/v1/health-scores/02802/');
    const buildId = server.live.current.buildId;
    expect(a.headers.etag).toMatch(new RegExp(`^"${buildId}-`));
    expect(a.headers.etag).not.toBe(b.headers.etag);
    expect(a.headers['cache-control']).toBe('no-cache');
    const again = await request(base, '/api/v1/health-scores/02801/');
    expect(again.headers.etag).toBe(a.headers.etag);
    for (const ifNoneMatch of [a.headers.etag!, `W/${a.headers.etag}`, `"other", ${a.headers.etag}`, '*']) {
      const notModified = await request(base, '/api/v1/health-scores/02801/', { headers: { 'If-None-Match': ifNoneMatch } });
      expect(notModified.status, ifNoneMatch).toBe(304);
      expect(notModified.body.length).toBe(0);
      expect(notModified.headers.etag).toBe(a.headers.etag);
    }
    const stale = await request(base, '/api/v1/health-scores/02801/', { headers: { 'If-None-Match': b.headers.etag! } });
    expect(stale.status).toBe(200);
  });

  it('errors carry no ETag and are never answered with 304', async () => {
    const result = await request(base, '/api/v1/health-scores/00000/', { headers: { 'If-None-Match': '*' } });
    expectError(result, 404, 'not_found');
  });
});

describe('compression', () => {
  const geojson = '/api/v1/health-scores/geojson/';

  it('negotiates brotli and gzip for a large body, with its own ETag per coding and Vary', async () => {
    const plain = await request(base, geojson);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers.vary).toBe('Accept-Encoding');
    const cases: Array<[string, string | undefined, (b: Buffer) => Buffer]> = [
      ['gzip', 'gzip', gunzipSync],
      ['br', 'br', brotliDecompressSync],
      ['gzip, deflate, br', 'br', brotliDecompressSync],
      ['gzip;q=1.0, br;q=0.5', 'gzip', gunzipSync],
      ['br;q=0, gzip', 'gzip', gunzipSync],
      ['*', 'br', brotliDecompressSync],
      ['identity', undefined, (b) => b],
      ['gzip;q=0, br;q=0', undefined, (b) => b],
    ];
    for (const [accept, coding, decode] of cases) {
      const result = await request(base, geojson, { headers: { 'Accept-Encoding': accept } });
      expect(result.status, accept).toBe(200);
      expect(result.headers['content-encoding'], accept).toBe(coding);
      expect(result.headers.vary).toBe('Accept-Encoding');
      expect(result.headers['content-length']).toBe(String(result.body.length));
      expect(decode(result.body).equals(plain.body), accept).toBe(true);
      expect(result.headers.etag).toBe(coding ? plain.headers.etag!.replace(/"$/, `-${coding}"`) : plain.headers.etag);
      if (coding) expect(result.body.length).toBeLessThan(plain.body.length / 2);
    }
  });

  it('a compressed variant revalidates: its ETag (or the plain one) gets a 304', async () => {
    const br = await request(base, geojson, { headers: { 'Accept-Encoding': 'br' } });
    for (const tag of [br.headers.etag!, br.headers.etag!.replace('-br"', '"')]) {
      const result = await request(base, geojson, { headers: { 'Accept-Encoding': 'br', 'If-None-Match': tag } });
      expect(result.status).toBe(304);
      expect(result.headers.etag).toBe(br.headers.etag);
    }
  });

  it('small bodies are never compressed', async () => {
    const result = await request(base, '/api/v1/tvi/02801/', { headers: { 'Accept-Encoding': 'gzip, br' } });
    expect(result.body.length).toBeLessThan(1024);
    expect(result.headers['content-encoding']).toBeUndefined();
    expect(result.headers.vary).toBeUndefined();
  });

  it('HEAD of a compressed variant has its length and no body', async () => {
    const get = await request(base, geojson, { headers: { 'Accept-Encoding': 'gzip' } });
    const head = await request(base, geojson, { method: 'HEAD', headers: { 'Accept-Encoding': 'gzip' } });
    expect(head.body.length).toBe(0);
    expect(head.headers['content-length']).toBe(get.headers['content-length']);
    expect(head.headers['content-encoding']).toBe('gzip');
  });
});
