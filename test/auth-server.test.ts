import { rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccessTable } from '../src/auth/access.ts';
import { TrustedProxies } from '../src/auth/client-ip.ts';
import { Gate, KEY_CACHE_MS, KEY_TRUST_MS, REVOCATION_SYNC_MS, UNLIMITED } from '../src/auth/gate.ts';
import { generateKey, hashKey, keyHint } from '../src/auth/keys.ts';
import { loadPlans } from '../src/auth/plans.ts';
import { SqliteStore } from '../src/auth/sqlite-store.ts';
import { windowAt } from '../src/auth/windows.ts';
import { API_BASE, ROUTES } from '../src/api/index.ts';
import { startServer, type RunningServer } from '../src/server/server.ts';
import { tempDir } from './helpers/files.ts';
import { fixtureDb } from './helpers/fixture-db.ts';
import { bodyJson, request, type HttpResult } from './helpers/http.ts';

// The clock the limits read; tests move it instead of sleeping. Noon UTC: 12 hours to the daily reset.
const START = Date.parse('2024-05-15T12:00:00Z');
let nowMs = START;
const MIDNIGHT = Date.parse('2024-05-16T00:00:00Z') / 1000;
const FIRST_OF_JUNE = Date.parse('2024-06-01T00:00:00Z') / 1000;

const dir = tempDir('hcas-auth-');
const logLines: Array<Record<string, unknown>> = [];
let store: SqliteStore;
let server: RunningServer;
let trusting: RunningServer;
let mainGate: Gate;
const keys: Record<string, string> = {};
let keyIds: Record<string, number> = {};

beforeAll(async () => {
  const db = await fixtureDb();
  store = new SqliteStore(path.join(dir, 'state.sqlite'), () => nowMs);
  const access = new AccessTable(loadPlans('a'), ROUTES, API_BASE);
  const gate = (proxies?: TrustedProxies) => new Gate({ store, access, now: () => nowMs, proxies });
  mainGate = gate();
  // Logs collected (not quiet) to check that no key ever reaches them.
  server = await startServer({
    db,
    port: 0,
    host: '127.0.0.1',
    watch: false,
    log: (line) => logLines.push(line as Record<string, unknown>),
    gate: mainGate,
  });
  trusting = await startServer({
    db,
    port: 0,
    host: '127.0.0.1',
    quiet: true,
    watch: false,
    log: () => {},
    gate: gate(new TrustedProxies(['127.0.0.1', '::1'])),
  });
  keyIds = {};
  for (const plan of ['free', 'professional', 'business', 'enterprise', 'revoked']) {
    const key = generateKey();
    const stored = await store.addKey(hashKey(key), {
      name: `test ${plan}`,
      plan: plan === 'revoked' ? 'professional' : plan,
      hint: keyHint(key),
      createdAt: new Date(START).toISOString(),
    });
    keys[plan] = key;
    keyIds[plan] = stored.id;
  }
});
afterAll(async () => {
  await Promise.all([server.close(), trusting.close()]);
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A request from its own client address (through the proxy-trusting server), so each test has a fresh anonymous bucket. */
let nextClient = 1;
function client(): string {
  nextClient++;
  return `198.51.100.${nextClient}`;
}
const asClient = (address: string, headers: Record<string, string> = {}) => ({ ...headers, 'X-Forwarded-For': address });

function rateLimit(result: HttpResult) {
  const header = (name: string) => {
    const value = result.headers[name];
    expect(value, `${name} on a ${result.status}`).toMatch(/^\d+$/);
    return Number(value);
  };
  return { limit: header('x-ratelimit-limit'), remaining: header('x-ratelimit-remaining'), reset: header('x-ratelimit-reset') };
}

function expectErrorBody(result: HttpResult, status: number, code: string): string {
  expect(result.status).toBe(status);
  const body = bodyJson(result) as { error: string; message: string; status: number };
  expect(Object.keys(body).sort()).toEqual(['error', 'message', 'status']);
  expect(body).toMatchObject({ error: code, status });
  return body.message;
}

describe('anonymous callers: 100 calls per day per client address', () => {
  it('exactly the 101st call of the day gets 429 with Retry-After; the next day starts again', async () => {
    nowMs = START;
    const address = client();
    for (let call = 1; call <= 100; call++) {
      const result = await request(trusting.url, '/api/v1/health-scores/10001/', { headers: asClient(address) });
      expect(result.status, `call ${call}`).toBe(200);
      expect(rateLimit(result)).toEqual({ limit: 100, remaining: 100 - call, reset: MIDNIGHT });
    }
    const refused = await request(trusting.url, '/api/v1/health-scores/10001/', { headers: asClient(address) });
    const message = expectErrorBody(refused, 429, 'rate_limited');
    expect(message).toBe(
      'Anonymous callers get 100 calls per day per client address. For more, send an API key (X-API-Key: KEY): the operator of this server makes one with `hcas keys create --plan free --name NAME`. The quota resets at 2024-05-16T00:00:00Z (see Retry-After)',
    );
    expect(rateLimit(refused)).toEqual({ limit: 100, remaining: 0, reset: MIDNIGHT });
    expect(refused.headers['retry-after']).toBe(String(12 * 3600));
    // Another address is another bucket.
    expect((await request(trusting.url, '/api/v1/states/', { headers: asClient(client()) })).status).toBe(200);
    // A minute before midnight: still refused, and Retry-After counts down.
    nowMs = Date.parse('2024-05-15T23:59:00Z');
    const later = await request(trusting.url, '/api/v1/states/', { headers: asClient(address) });
    expect(later.status).toBe(429);
    expect(later.headers['retry-after']).toBe('60');
    nowMs = Date.parse('2024-05-16T00:00:00Z');
    const nextDay = await request(trusting.url, '/api/v1/states/', { headers: asClient(address) });
    expect(nextDay.status).toBe(200);
    expect(rateLimit(nextDay)).toEqual({ limit: 100, remaining: 99, reset: MIDNIGHT + 86_400 });
    nowMs = START;
  });
});

describe('every response carries the rate-limit headers and nosniff', () => {
  const kinds: Array<[string, string, { method?: string; headers?: Record<string, string> }, number]> = [
    ['200', '/api/v1/states/', {}, 200],
    ['HEAD 200', '/api/v1/states/', { method: 'HEAD' }, 200],
    ['301 without the slash', '/api/v1/states', {}, 301],
    ['404', '/api/v1/nothing-here/', {}, 404],
    ['400 bad parameter', '/api/v1/health-scores/?page_size=500', {}, 400],
    ['405', '/api/v1/states/', { method: 'POST' }, 405],
    ['403 outside the plan', '/api/v1/health-scores/geojson/', {}, 403],
    ['204 OPTIONS preflight', '/api/v1/states/', { method: 'OPTIONS' }, 204],
    ['401 malformed key', '/api/v1/states/', { headers: { 'X-API-Key': 'wrong' } }, 401],
    ['401 unknown key', '/api/v1/states/', { headers: { Authorization: `Bearer ${generateKey()}` } }, 401],
    [
      '400 conflicting credentials',
      '/api/v1/states/',
      { headers: { 'X-API-Key': generateKey(), Authorization: `Bearer ${generateKey()}` } },
      400,
    ],
    ['414 URL too long', `/api/v1/states/?${'x'.repeat(3000)}`, {}, 414],
    ['400 too many parameters', `/api/v1/states/?${Array.from({ length: 40 }, (_, i) => `p${i}=1`).join('&')}`, {}, 400],
  ];
  for (const [name, url, options, status] of kinds) {
    it(`${name} (anonymous)`, async () => {
      const result = await request(trusting.url, url, { ...options, headers: asClient(client(), options.headers) });
      expect(result.status).toBe(status);
      expect(rateLimit(result)).toMatchObject({ limit: 100, reset: MIDNIGHT });
      expect(result.headers['x-content-type-options']).toBe('nosniff');
      expect(result.headers['access-control-expose-headers']).toContain('X-RateLimit-Remaining');
    });
  }
  it("304 (keyed), with the key's monthly window", async () => {
    const first = await request(server.url, '/api/v1/states/', { headers: { 'X-API-Key': keys.free } });
    const again = await request(server.url, '/api/v1/states/', {
      headers: { 'X-API-Key': keys.free, 'If-None-Match': first.headers.etag as string },
    });
    expect(again.status).toBe(304);
    expect(rateLimit(again)).toEqual({ limit: 1000, remaining: rateLimit(first).remaining - 1, reset: FIRST_OF_JUNE });
    expect(again.headers['x-content-type-options']).toBe('nosniff');
  });
  it('401 says which scheme to use', async () => {
    const result = await request(server.url, '/api/v1/states/', { headers: { 'X-API-Key': generateKey() } });
    expect(result.headers['www-authenticate']).toBe('Bearer realm="hcas"');
  });
});

describe('which calls count', () => {
  it('every answer counts (200, 301, 304, 404, 405, 403) except OPTIONS and bad credentials', async () => {
    const address = client();
    const send = (url: string, options: { method?: string; headers?: Record<string, string> } = {}) =>
      request(trusting.url, url, { ...options, headers: asClient(address, options.headers) });
    const counted = [
      await send('/api/v1/states/'),
      await send('/api/v1/states'),
      await send('/api/v1/none/'),
      await send('/api/v1/states/', { method: 'DELETE' }),
      await send('/api/v1/compare/?zips=10001,10002'),
    ];
    expect(counted.map((r) => r.status)).toEqual([200, 301, 404, 405, 403]);
    expect(counted.map((r) => rateLimit(r).remaining)).toEqual([99, 98, 97, 96, 95]);
    const free = [
      await send('/api/v1/states/', { method: 'OPTIONS' }),
      await send('/api/v1/states/', { headers: { 'X-API-Key': 'nope' } }),
      await send('/api/v1/states/', { headers: { 'X-API-Key': generateKey() } }),
    ];
    expect(free.map((r) => r.status)).toEqual([204, 401, 401]);
    expect(free.map((r) => rateLimit(r).remaining)).toEqual([95, 95, 95]);
    expect(await store.peek(`ip:${address}`, windowAt('day', nowMs))).toBe(5);
  });
});

describe('keys', () => {
  it("X-API-Key and Authorization: Bearer name the same caller; the plan's quota and monthly window apply", async () => {
    const one = await request(server.url, '/api/v1/health-scores/10001/all-scores/', { headers: { 'X-API-Key': keys.professional } });
    const two = await request(server.url, '/api/v1/health-scores/10001/all-scores/', {
      headers: { Authorization: `Bearer ${keys.professional}` },
    });
    const both = await request(server.url, '/api/v1/health-scores/10001/all-scores/', {
      headers: { 'X-API-Key': keys.professional, Authorization: `Bearer ${keys.professional}` },
    });
    expect([one.status, two.status, both.status]).toEqual([200, 200, 200]);
    expect([one, two, both].map((r) => rateLimit(r))).toEqual(
      [49_999, 49_998, 49_997].map((remaining) => ({ limit: 50_000, remaining, reset: FIRST_OF_JUNE })),
    );
  });

  it('two different keys are a 400 conflicting_credentials, not a silent choice', async () => {
    const result = await request(server.url, '/api/v1/states/', {
      headers: { 'X-API-Key': keys.free, Authorization: `Bearer ${keys.business}` },
    });
    expect(expectErrorBody(result, 400, 'conflicting_credentials')).toContain('different keys');
  });

  it('unknown and malformed keys are a 401 invalid_api_key', async () => {
    expect(
      expectErrorBody(await request(server.url, '/api/v1/states/', { headers: { 'X-API-Key': generateKey() } }), 401, 'invalid_api_key'),
    ).toContain('is not a key of this service');
    expect(
      expectErrorBody(
        await request(server.url, '/api/v1/states/', { headers: { Authorization: 'Basic dXNlcjpwYXNz' } }),
        401,
        'invalid_api_key',
      ),
    ).toContain('Authorization header does not carry an API key');
  });

  it(`a revoked key is refused at the next read of the revocation list (every second), within ${KEY_CACHE_MS / 1000} seconds in any case`, async () => {
    nowMs = START;
    expect((await request(server.url, '/api/v1/states/', { headers: { 'X-API-Key': keys.revoked } })).status).toBe(200);
    expect((await request(trusting.url, '/api/v1/states/', { headers: { 'X-API-Key': keys.revoked } })).status).toBe(200);
    await store.revokeKey(keyIds.revoked, new Date(nowMs).toISOString());
    await mainGate.syncKeys();
    const refused = await request(server.url, '/api/v1/states/', { headers: { 'X-API-Key': keys.revoked } });
    expect(expectErrorBody(refused, 401, 'invalid_api_key')).toContain('was revoked');
    // Another process that may not have read the list yet: the key's verdict expires in time.
    nowMs = START + KEY_TRUST_MS;
    const late = await request(trusting.url, '/api/v1/states/', { headers: { 'X-API-Key': keys.revoked } });
    expect(expectErrorBody(late, 401, 'invalid_api_key')).toContain('was revoked');
    expect(KEY_TRUST_MS + REVOCATION_SYNC_MS).toBe(KEY_CACHE_MS);
    nowMs = START;
  });

  it('an unlimited plan sends 2147483647 as limit and remaining, and the end of its month as reset', async () => {
    const result = await request(server.url, '/api/v1/exports/health-scores/?format=ndjson&state=RI', {
      headers: { 'X-API-Key': keys.enterprise },
    });
    expect(result.status).toBe(200);
    expect(rateLimit(result)).toEqual({ limit: UNLIMITED, remaining: UNLIMITED, reset: FIRST_OF_JUNE });
  });

  it('a call outside the plan is a 403 naming the cheapest plan that opens it', async () => {
    const result = await request(server.url, '/api/v1/health-scores/geojson/', { headers: { 'X-API-Key': keys.professional } });
    expect(expectErrorBody(result, 403, 'plan_upgrade_required')).toBe(
      'health-scores/geojson/ needs the Business plan (the cheapest that opens it). The Professional plan does not open it. ' +
        "On this machine, `hcas get /api/v1/health-scores/geojson/` answers it from the build file whatever the plan, and `hcas serve --loopback-unmetered` (as `npm start` runs it) serves every endpoint to this machine's own calls",
    );
    expect((await request(server.url, '/api/v1/health-scores/geojson/', { headers: { 'X-API-Key': keys.business } })).status).toBe(200);
  });
});

describe('client address and X-Forwarded-For', () => {
  it('is ignored from a peer that is not a trusted proxy', async () => {
    const a = await request(server.url, '/api/v1/states/', { headers: { 'X-Forwarded-For': '203.0.113.50' } });
    const b = await request(server.url, '/api/v1/states/', { headers: { 'X-Forwarded-For': '203.0.113.51' } });
    expect(rateLimit(b).remaining).toBe(rateLimit(a).remaining - 1); // one bucket: the socket's 127.0.0.1
  });
  it('from a trusted proxy, the right-most untrusted address is the client, whatever the client wrote', async () => {
    const address = client();
    const a = await request(trusting.url, '/api/v1/states/', { headers: { 'X-Forwarded-For': `1.1.1.1, ${address}` } });
    const b = await request(trusting.url, '/api/v1/states/', { headers: { 'X-Forwarded-For': `2.2.2.2, ${address}, 127.0.0.1` } });
    expect([rateLimit(a).remaining, rateLimit(b).remaining]).toEqual([99, 98]);
    expect(await store.peek(`ip:${address}`, windowAt('day', nowMs))).toBe(2);
  });
});

describe('the request log', () => {
  it('never holds an API key, wherever the client put it', async () => {
    const key = keys.free;
    await request(server.url, '/api/v1/states/', { headers: { 'X-API-Key': key } });
    await request(server.url, '/api/v1/states/', { headers: { Authorization: `Bearer ${key}` } });
    await request(server.url, `/api/v1/states/?api_key=${key}`);
    await new Promise((r) => setImmediate(r));
    const text = JSON.stringify(logLines);
    expect(text).not.toContain(key);
    expect(text).not.toContain(key.slice(10));
    expect(text).toContain('/api/v1/states/?api_key=hcas_live_[redacted]');
  });
});

describe('meta/', () => {
  it('reports the limits backend and its health', async () => {
    const body = bodyJson(await request(server.url, '/api/v1/meta/')) as Record<string, unknown>;
    expect(body.rate_limits).toEqual({ backend: 'sqlite', status: 'ok', plans: 'Plan list A' });
  });
});

describe("the server's owner on its own machine (issue 43, point 4)", () => {
  /** What an owner reaches for after the quick start: the endpoints the API root lists beyond the Free plan. */
  const PAID = [
    '/api/v1/health-scores/10001/all-scores/',
    '/api/v1/health-scores/10001/census/',
    '/api/v1/compare/?zips=10001,02903',
    '/api/v1/rankings/states/',
    '/api/v1/tvi/top-vulnerable/',
    '/api/v1/exports/health-scores/?format=ndjson&state=RI',
    '/api/v1/health-scores/geojson/?state=RI',
  ];

  it('gets every endpoint, as the top plan, uncounted, with --loopback-unmetered (npm start)', async () => {
    const owner = await startServer({
      db: await fixtureDb(),
      port: 0,
      host: '127.0.0.1',
      quiet: true,
      watch: false,
      log: () => {},
      gate: new Gate({ store, access: new AccessTable(loadPlans('a'), ROUTES, API_BASE), now: () => nowMs, loopbackUnmetered: true }),
    });
    try {
      for (const url of PAID) {
        const result = await request(owner.url, url);
        expect(result.status, `${url}: ${result.body.toString().slice(0, 200)}`).toBe(200);
        expect(rateLimit(result)).toMatchObject({ limit: UNLIMITED, remaining: UNLIMITED });
      }
    } finally {
      await owner.close();
    }
  }, 60_000);

  it("a 403 to a caller on the server's machine names `hcas get` with the path, and the flag; to anyone else, neither", async () => {
    const local = expectErrorBody(await request(server.url, '/api/v1/rankings/states/'), 403, 'plan_upgrade_required');
    expect(local).toBe(
      "rankings/states/ needs the Professional plan (the cheapest that opens it). Anonymous callers have the Free plan's endpoints; send an API key on a plan that opens it. " +
        "On this machine, `hcas get /api/v1/rankings/states/` answers it from the build file whatever the plan, and `hcas serve --loopback-unmetered` (as `npm start` runs it) serves every endpoint to this machine's own calls",
    );
    const remote = expectErrorBody(
      await request(trusting.url, '/api/v1/rankings/states/', { headers: asClient(client()) }),
      403,
      'plan_upgrade_required',
    );
    expect(remote).not.toMatch(/hcas get|loopback/);
  });
});
