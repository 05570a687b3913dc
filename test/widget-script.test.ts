import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emitWidgetScript } from '../pipeline/emit/widget.ts';
import { Api } from '../src/api/index.ts';
import { WIDGET_SCRIPT_FILE, WIDGET_SCRIPT_PATH } from '../core/widget.ts';
import { WIDGET_SCRIPT_CACHE } from '../src/api/widget-script.ts';
import { fixtureDb } from './helpers/fixture-db.ts';
import { tempDir } from './helpers/files.ts';

/** The budget: pages pay for every byte of a script they did not write. */
const GZIP_BUDGET_BYTES = 10 * 1024;
const source = readFileSync(WIDGET_SCRIPT_FILE);

describe('the widget script (served bytes; its behaviour is tested in Chromium by widget-browser.test.ts)', () => {
  let api: Api;
  beforeAll(async () => {
    api = Api.open(await fixtureDb());
  });
  afterAll(() => api.retire());

  it(`stays under ${GZIP_BUDGET_BYTES} bytes gzipped`, () => {
    const gzipped = gzipSync(source, { level: 9 }).length;
    expect(gzipped, `widget.js is ${gzipped} bytes gzipped`).toBeLessThan(GZIP_BUDGET_BYTES);
  });

  it('is ASCII, so it reads the same whatever charset a static host sends it with', () => {
    const offending = [...source.toString('latin1')].findIndex((c) => c.charCodeAt(0) > 0x7e || (c.charCodeAt(0) < 0x20 && c !== '\n'));
    expect(offending, `byte ${offending} of widget.js is not printable ASCII; write it as a \\u escape`).toBe(-1);
  });

  it('is served as JavaScript to any origin, cacheable, with a strong ETag and 304s', async () => {
    const response = await api.respond({ method: 'GET', url: WIDGET_SCRIPT_PATH });
    expect(response.status).toBe(200);
    expect(response.body.equals(source)).toBe(true);
    expect(response.headers).toMatchObject({
      'Content-Type': 'text/javascript; charset=utf-8',
      'Cache-Control': WIDGET_SCRIPT_CACHE,
      'Access-Control-Allow-Origin': '*',
      'X-Content-Type-Options': 'nosniff',
    });
    const etag = response.headers.ETag as string;
    expect(etag).toMatch(/^"widget-v1-[\w-]{16}"$/);
    const again = await api.respond({ method: 'GET', url: `${WIDGET_SCRIPT_PATH}?v=2`, headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(again.headers['Cache-Control']).toBe(WIDGET_SCRIPT_CACHE);
  });

  it('is compressed for clients that accept it, and answers HEAD and OPTIONS', async () => {
    const gzipped = await api.respond({ method: 'GET', url: WIDGET_SCRIPT_PATH, headers: { 'accept-encoding': 'gzip' } });
    expect(gzipped.headers['Content-Encoding']).toBe('gzip');
    expect(gunzipSync(gzipped.body).equals(source)).toBe(true);
    const head = await api.respond({ method: 'HEAD', url: WIDGET_SCRIPT_PATH });
    expect([head.status, head.body.length, head.headers['Content-Length']]).toEqual([200, 0, source.length]);
    expect((await api.respond({ method: 'OPTIONS', url: WIDGET_SCRIPT_PATH })).status).toBe(204);
  });

  it('refuses other methods with the JSON error body', async () => {
    const response = await api.respond({ method: 'POST', url: WIDGET_SCRIPT_PATH });
    expect(response.status).toBe(405);
    expect(response.headers.Allow).toBe('GET, HEAD, OPTIONS');
    expect(JSON.parse(response.body.toString('utf8'))).toMatchObject({ error: 'method_not_allowed', status: 405 });
  });

  it('is the only thing under /widget/: anything else there is a JSON 404', async () => {
    const response = await api.respond({ method: 'GET', url: '/widget/v1/other.js' });
    expect(response.status).toBe(404);
    expect(response.headers['Content-Type']).toBe('application/json; charset=utf-8');
  });

  it('is copied beside the output database by the build, at the path the server uses', () => {
    const dir = tempDir();
    const file = emitWidgetScript(dir);
    expect(file).toBe(path.join(dir, 'widget', 'v1', 'widget.js'));
    expect(readFileSync(file).equals(source)).toBe(true);
  });
});
