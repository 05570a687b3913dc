import { rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLimits, type Limits } from '../src/auth/config.ts';
import { originAllowed, parseOrigin, requestOrigin } from '../src/auth/origins.ts';
import { API_BASE, ROUTES } from '../src/api/index.ts';
import { startServer, type RunningServer } from '../src/server/server.ts';
import { tempDir } from './helpers/files.ts';
import { fixtureDb } from './helpers/fixture-db.ts';
import { bodyJson, request, type HttpResult } from './helpers/http.ts';
import { hcas as runHcas } from './helpers/cli.ts';

const dir = tempDir('hcas-widget-keys-');
const state = path.join(dir, 'state.sqlite');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `hcas ARGS --state-file STATE` (in this process), Redis unset. */
const hcas = (...args: string[]) => runHcas([...args, '--state-file', state], { env: { REDIS_URL: '' } });

describe('origins', () => {
  it('parses page origins, normalised; refuses paths, other schemes and bare hosts, naming the forms it takes', () => {
    expect(parseOrigin('https://Example.ORG/')).toBe('https://example.org');
    expect(parseOrigin('https://example.org:443')).toBe('https://example.org');
    expect(parseOrigin('http://localhost:8080')).toBe('http://localhost:8080');
    expect(parseOrigin('https://*.example.org')).toBe('https://*.example.org');
    for (const bad of ['example.org', 'https://example.org/page', 'ftp://example.org', 'https://*', 'https://a.*.org', '*']) {
      expect(() => parseOrigin(bad), bad).toThrow(/--origin takes a page origin such as https:\/\/example.org/);
    }
  });

  it('reads Origin, else the origin of Referer; "null" and garbage are no origin', () => {
    expect(requestOrigin({ origin: 'https://example.org' })).toBe('https://example.org');
    expect(requestOrigin({ referer: 'https://example.org/listing/12?x=1' })).toBe('https://example.org');
    expect(requestOrigin({ origin: 'https://a.org', referer: 'https://b.org/' })).toBe('https://a.org');
    expect(requestOrigin({ origin: 'null' })).toBeUndefined();
    expect(requestOrigin({ referer: 'not a url' })).toBeUndefined();
    expect(requestOrigin({})).toBeUndefined();
  });

  it('matches exactly, or any subdomain under a wildcard (not the domain itself, not a look-alike)', () => {
    const allowed = ['https://example.org', 'https://*.example.net'];
    expect(originAllowed(allowed, 'https://example.org')).toBe(true);
    expect(originAllowed(allowed, 'http://example.org')).toBe(false);
    expect(originAllowed(allowed, 'https://example.org:8443')).toBe(false);
    expect(originAllowed(allowed, 'https://www.example.net')).toBe(true);
    expect(originAllowed(allowed, 'https://a.b.example.net')).toBe(true);
    expect(originAllowed(allowed, 'https://example.net')).toBe(false);
    expect(originAllowed(allowed, 'https://evilexample.net')).toBe(false);
    expect(originAllowed(allowed, undefined)).toBe(false);
  });
});

describe('widget keys', { timeout: 60_000 }, () => {
  let widgetKey = '';
  let fullKey = '';
  let limits: Limits;
  let server: RunningServer;

  beforeAll(async () => {
    const db = await fixtureDb();
    const made = await hcas(
      'keys',
      'create',
      '--plan',
      'business',
      '--name',
      'Acme widget',
      '--widget-only',
      '--origin',
      'https://acme.example',
      '--origin',
      'https://*.acme.example',
    );
    expect(made.code, made.stderr).toBe(0);
    widgetKey = made.stdout.trim();
    expect(made.stderr).toBe(
      'created key 1 for Acme widget on the Business plan (500,000 calls per month, widget endpoints only, from https://acme.example, https://*.acme.example); store it now: it is not shown again\n',
    );
    fullKey = (await hcas('keys', 'create', '--plan', 'business', '--name', 'Acme server')).stdout.trim();
    limits = await createLimits({ state }, process.env, ROUTES, API_BASE);
    server = await startServer({ db, port: 0, host: '127.0.0.1', quiet: true, watch: false, log: () => {}, gate: limits.gate });
  });
  afterAll(async () => {
    await server.close();
    await limits.close();
  });

  const call = (target: string, headers: Record<string, string>) =>
    request(server.url, target, { headers: { 'X-API-Key': widgetKey, ...headers } });
  const remaining = (result: HttpResult) => Number(result.headers['x-ratelimit-remaining']);
  const widget = '/api/v1/widget-score/02801/';

  it('keys create needs --origin with --widget-only, and checks each origin', async () => {
    expect(await hcas('keys', 'create', '--plan', 'business', '--name', 'x', '--widget-only')).toMatchObject({
      code: 2,
      stderr: 'hcas: --widget-only needs the page origins that may use the key: add --origin https://your.site (repeat it for several)\n',
    });
    const bad = await hcas('keys', 'create', '--plan', 'business', '--name', 'x', '--widget-only', '--origin', 'acme.example');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^hcas: --origin takes a page origin such as https:\/\/example.org/);
  });

  it('keys list shows the limits; --json has widget_only and origins', async () => {
    const listed = (await hcas('keys', 'list', '--table')).stdout.split('\n');
    expect(listed[0]).toMatch(/^id +name +plan +created +revoked +hint +limits$/);
    expect(listed.find((line) => line.includes('Acme widget'))).toMatch(
      /widget only; https:\/\/acme\.example https:\/\/\*\.acme\.example$/,
    );
    const json = JSON.parse((await hcas('keys', 'list', '--json')).stdout);
    expect(json[0]).toMatchObject({ name: 'Acme widget', widget_only: true, origins: ['https://acme.example', 'https://*.acme.example'] });
    expect(json[1]).toMatchObject({ name: 'Acme server', widget_only: false, origins: [] });
  });

  it("answers the widget from its pages (Origin, Referer, a subdomain) and counts each call on the key's plan", async () => {
    const first = await call(widget, { Origin: 'https://acme.example' });
    expect(first.status).toBe(200);
    expect((bodyJson(first) as { white_label: boolean }).white_label).toBe(true);
    const second = await call(widget, { Referer: 'https://www.acme.example/listings/12' });
    expect(second.status).toBe(200);
    expect(remaining(second)).toBe(remaining(first) - 1);
    expect(first.headers['x-ratelimit-limit']).toBe('500000');
    // A browser's preflight carries no key; it is answered as ever.
    expect((await request(server.url, widget, { method: 'OPTIONS', headers: { Origin: 'https://elsewhere.example' } })).status).toBe(204);
  });

  it('refuses other pages, and requests that name no page, with 403 origin_not_allowed, uncounted', async () => {
    const before = remaining(await call(widget, { Origin: 'https://acme.example' }));
    const pages: Array<Record<string, string>> = [
      { Origin: 'https://copycat.example' },
      { Referer: 'https://acme.example.copycat.example/' },
      { Origin: 'http://acme.example' },
      {},
    ];
    for (const headers of pages) {
      const refused = await call(widget, headers);
      expect(refused.status, JSON.stringify(headers)).toBe(403);
      expect(bodyJson(refused)).toMatchObject({ error: 'origin_not_allowed', status: 403 });
    }
    expect((bodyJson(await call(widget, { Origin: 'https://copycat.example' })) as { message: string }).message).toBe(
      'The API key sent is limited to the page origins it was created for, and the page origin https://copycat.example is not one of them. Create a widget key for this origin with `hcas keys create --widget-only --origin ORIGIN`',
    );
    expect(remaining(await call(widget, { Origin: 'https://acme.example' }))).toBe(before - 1);
  });

  it('opens nothing but the widget: every other endpoint of its plan is a 403 endpoint_not_allowed', async () => {
    for (const target of [
      '/api/v1/health-scores/02801/',
      '/api/v1/health-scores/geojson/',
      '/api/v1/compare/?zips=02801,02802',
      '/api/v1/meta/',
    ]) {
      const refused = await call(target, { Origin: 'https://acme.example' });
      expect(refused.status, target).toBe(403);
      expect(bodyJson(refused)).toMatchObject({ error: 'endpoint_not_allowed', status: 403 });
    }
    expect((bodyJson(await call('/api/v1/health-scores/02801/', { Origin: 'https://acme.example' })) as { message: string }).message).toBe(
      'The API key sent is a widget key: it opens only widget-score/{zip}/, not health-scores/{zip}/, so a key copied from a page opens nothing else. Call health-scores/{zip}/ with a full key, from a server',
    );
    // The same plan's full key opens them all, from anywhere.
    expect((await request(server.url, '/api/v1/health-scores/geojson/', { headers: { 'X-API-Key': fullKey } })).status).toBe(200);
    expect((await call('/widget/v1/widget.js', { Origin: 'https://acme.example' })).status).toBe(200);
  });
});
