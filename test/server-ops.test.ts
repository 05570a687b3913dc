import { copyFileSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccessTable } from '../src/auth/access.ts';
import { TrustedProxies } from '../src/auth/client-ip.ts';
import { COUNT_BEHIND_MS, Gate } from '../src/auth/gate.ts';
import { generateKey, hashKey, keyHint } from '../src/auth/keys.ts';
import { MemoryStore } from '../src/auth/memory-store.ts';
import { parsePlans } from '../src/auth/plans.ts';
import { SqliteStore } from '../src/auth/sqlite-store.ts';
import { windowAt } from '../src/auth/windows.ts';
import { API_BASE, ROUTES } from '../src/api/index.ts';
import { jsonLines } from '../src/server/log.ts';
import { startServer, type RunningServer } from '../src/server/server.ts';
import { CHECKPOINT_EVERY_MS, StateCheckpoints } from '../src/server/state-checkpoints.ts';
import { ServingState } from '../src/server/serving-state.ts';
import { tempDir } from './helpers/files.ts';
import { FIXTURE_BUILD_ID, fixtureDb } from './helpers/fixture-db.ts';
import { bodyJson, request, type HttpResult } from './helpers/http.ts';
import { ServerProcess } from './helpers/process.ts';

const root = path.resolve(import.meta.dirname, '..');
const dir = tempDir('hcas-ops-');
/** Plan list A with a tiny anonymous quota, so a test can spend it. */
const ANONYMOUS_QUOTA = 3;
const planJson = JSON.parse(readFileSync(path.join(root, 'config/plans/a.json'), 'utf8'));
planJson.anonymous.quota = ANONYMOUS_QUOTA;
const plans = parsePlans(planJson, 'test plans');

let db: string;
let store: SqliteStore;
let gate: Gate;
let server: RunningServer;
let tokenServer: RunningServer;
const lines: Array<Record<string, unknown>> = [];
const keys: Record<string, string> = {};
const keyIds: Record<string, number> = {};
const TOKEN = 'a-long-random-metrics-token';

beforeAll(async () => {
  db = await fixtureDb();
  store = new SqliteStore(path.join(dir, 'state.sqlite'));
  const access = new AccessTable(plans, ROUTES, API_BASE);
  gate = new Gate({ store, access, proxies: new TrustedProxies(['127.0.0.1', '::1']) });
  // The log at debug level, through the real JSON-lines writer, so levels are filtered as in production.
  const log = jsonLines(
    {
      write: (chunk: string) =>
        lines.push(
          ...chunk
            .trim()
            .split('\n')
            .map((line) => JSON.parse(line)),
        ),
    },
    'debug',
  );
  server = await startServer({ db, port: 0, host: '127.0.0.1', watch: false, log, gate });
  tokenServer = await startServer({
    db,
    port: 0,
    host: '127.0.0.1',
    quiet: true,
    watch: false,
    log: () => {},
    metrics: { enabled: true, token: TOKEN },
  });
  for (const plan of ['professional', 'enterprise']) {
    const key = generateKey();
    const stored = await store.addKey(hashKey(key), { name: plan, plan, hint: keyHint(key), createdAt: new Date().toISOString() });
    keys[plan] = key;
    keyIds[plan] = stored.id;
  }
});
afterAll(async () => {
  await Promise.all([server.close(), tokenServer.close()]);
  await gate.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

let nextClient = 10;
/** A fresh anonymous bucket: a client address forwarded by the trusted loopback "proxy". */
const asClient = () => ({ 'X-Forwarded-For': `198.51.100.${nextClient++}` });
const remaining = (result: HttpResult) => Number(result.headers['x-ratelimit-remaining']);
const flushLog = () => new Promise((resolve) => setImmediate(resolve));

describe('/healthz and /readyz', () => {
  it('answer JSON, uncached, never counted: probing past the anonymous quota leaves the quota whole', async () => {
    const client = asClient();
    for (let probe = 0; probe < ANONYMOUS_QUOTA * 3; probe++) {
      const health = await request(server.url, '/healthz', { headers: client });
      expect(health.status).toBe(200);
      // A caller through the proxy is the public: the status alone (test/attacks/probes.test.ts has the rest).
      expect(bodyJson(health)).toEqual({ status: 'ok' });
      expect(health.headers['cache-control']).toBe('no-store');
      expect(health.headers['x-ratelimit-limit']).toBeUndefined();
      const ready = await request(server.url, '/readyz?verbose=1', { headers: client, method: probe % 2 ? 'HEAD' : 'GET' });
      expect(ready.status).toBe(200);
    }
    const api = await request(server.url, '/api/v1/states/', { headers: client });
    expect(api.status).toBe(200);
    expect(remaining(api)).toBe(ANONYMOUS_QUOTA - 1);
  });

  it('/readyz names the build, its age, and each check', async () => {
    const ready = bodyJson(await request(server.url, '/readyz')) as Record<string, unknown>;
    expect(ready).toMatchObject({
      status: 'ready',
      build_id: FIXTURE_BUILD_ID,
      built_at: '2024-01-02T03:04:05.000Z',
      pid: process.pid,
      checks: {
        server: { status: 'ok' },
        database: { status: 'ok', file: path.basename(db) },
        rate_limits: { status: 'ok', backend: 'sqlite' },
      },
    });
    expect(ready.build_age_seconds).toBeGreaterThan(0);
  });

  it('/readyz says degraded (still 200: the replica serves, uncounted) while the state does not answer', async () => {
    const lost = new SqliteStore(path.join(dir, 'lost.sqlite'));
    await lost.close(); // every operation now fails, as a lost Redis would
    const failing = new Gate({ store: lost, access: new AccessTable(plans, ROUTES, API_BASE) });
    const degraded = await startServer({ db, port: 0, host: '127.0.0.1', quiet: true, watch: false, log: () => {}, gate: failing });
    try {
      expect((await request(degraded.url, '/api/v1/states/')).status).toBe(200);
      const ready = await request(degraded.url, '/readyz');
      expect(ready.status).toBe(200);
      expect(bodyJson(ready)).toMatchObject({ status: 'degraded', checks: { rate_limits: { status: 'degraded', backend: 'sqlite' } } });
      const metrics = (await request(degraded.url, '/metrics')).body.toString('utf8');
      expect(metrics).toContain('hcas_state_degraded{backend="sqlite"} 1');
      expect(metric(metrics, 'hcas_state_errors_total{backend="sqlite"}')).toBeGreaterThanOrEqual(1);
    } finally {
      await degraded.close();
      await failing.close();
    }
  });

  it('a failing check, or a server shutting down, makes /readyz a 503', () => {
    const state = new ServingState({ buildId: 'b1', builtAt: '2024-01-01T00:00:00Z' }, () => Date.parse('2024-01-01T01:00:00Z'));
    expect(state.readiness()).toMatchObject({
      httpStatus: 503,
      body: { status: 'not_ready', checks: { server: { status: 'failing', detail: 'starting up' } } },
    });
    state.phase = 'serving';
    state.setCheck('database', () => ({ status: 'ok' }));
    expect(state.readiness()).toMatchObject({ httpStatus: 200, body: { status: 'ready', build_age_seconds: 3600 } });
    state.setCheck('database', () => ({ status: 'degraded', detail: 'the replaced file could not be opened' }));
    expect(state.readiness()).toMatchObject({ httpStatus: 200, body: { status: 'degraded' } });
    state.setCheck('database', () => {
      throw new Error('closed');
    });
    expect(state.readiness()).toMatchObject({
      httpStatus: 503,
      body: { checks: { database: { status: 'failing', detail: 'the check failed: closed' } } },
    });
    state.setCheck('database', () => ({ status: 'ok' }));
    state.phase = 'stopping';
    expect(state.readiness()).toMatchObject({ httpStatus: 503, body: { checks: { server: { status: 'failing' } } } });
  });

  it('other methods are a 405 with Allow', async () => {
    const post = await request(server.url, '/healthz', { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe('GET, HEAD');
    expect(bodyJson(post)).toMatchObject({ error: 'method_not_allowed', status: 405 });
  });

  it('probes are logged at debug level only: an info log has no line for them', async () => {
    await request(server.url, '/healthz');
    await flushLog();
    const probes = lines.filter((line) => line.path === '/healthz');
    expect(probes.length).toBeGreaterThan(0);
    expect(probes.every((line) => line.level === 'debug' && line.route === '/healthz')).toBe(true);
    const infoLines: string[] = [];
    const info = jsonLines({ write: (chunk: string) => infoLines.push(chunk) }, 'info');
    const quietOps = await startServer({ db, port: 0, host: '127.0.0.1', watch: false, log: info });
    try {
      await request(quietOps.url, '/healthz');
      await request(quietOps.url, '/readyz');
      await request(quietOps.url, '/api/v1/states/');
      await flushLog();
    } finally {
      await quietOps.close();
    }
    const written = infoLines
      .join('')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(written.filter((line) => line.path !== undefined).map((line) => line.path)).toEqual(['/api/v1/states/']);
  });
});

describe('the widget script is a static asset', () => {
  it('is never counted, and still served once the address has spent its quota', async () => {
    const client = asClient();
    for (let i = 0; i < ANONYMOUS_QUOTA; i++) expect((await request(server.url, '/api/v1/states/', { headers: client })).status).toBe(200);
    expect((await request(server.url, '/api/v1/states/', { headers: client })).status).toBe(429);
    for (let i = 0; i < 5; i++) {
      const script = await request(server.url, '/widget/v1/widget.js', { headers: client });
      expect(script.status).toBe(200);
      expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
      // The headers still tell the page where its quota stands, without spending it.
      expect(script.headers['x-ratelimit-remaining']).toBe('0');
    }
    const fresh = asClient();
    await request(server.url, '/widget/v1/widget.js', { headers: fresh });
    expect(remaining(await request(server.url, '/api/v1/states/', { headers: fresh }))).toBe(ANONYMOUS_QUOTA - 1);
  });
});

describe('request ids and the request log', () => {
  it("every answer carries X-Request-Id, a new one each time; a trusted proxy's id is kept", async () => {
    const a = await request(server.url, '/api/v1/states/', { headers: asClient() });
    const b = await request(server.url, '/api/v1/nope/', { headers: asClient() });
    expect(a.headers['x-request-id']).toMatch(/^[0-9a-f]{12}[0-9a-z]{6,}$/);
    expect(b.headers['x-request-id']).not.toBe(a.headers['x-request-id']);
    const fromProxy = await request(server.url, '/api/v1/states/', {
      headers: { ...asClient(), 'X-Request-Id': '0123456789abcdef0123456789abcdef' },
    });
    expect(fromProxy.headers['x-request-id']).toBe('0123456789abcdef0123456789abcdef');
    // A header that is not an id (a proxy would never send it) is replaced, not echoed.
    const odd = await request(server.url, '/api/v1/states/', { headers: { 'X-Request-Id': 'x'.repeat(200) } });
    expect(odd.headers['x-request-id']).toMatch(/^[0-9a-f]{12}/);
  });

  it("an untrusted peer's X-Request-Id is not believed", async () => {
    const untrusting = await startServer({ db, port: 0, host: '127.0.0.1', quiet: true, watch: false, log: () => {} });
    try {
      const answer = await request(untrusting.url, '/api/v1/states/', { headers: { 'X-Request-Id': 'spoofed-id' } });
      expect(answer.headers['x-request-id']).not.toBe('spoofed-id');
    } finally {
      await untrusting.close();
    }
  });

  it('one info line per API request: request id, route, client, key id and plan, never the key', async () => {
    const client = asClient();
    const keyed = await request(server.url, '/api/v1/health-scores/02801/all-scores/', {
      headers: { ...client, 'X-API-Key': keys.professional },
    });
    expect(keyed.status).toBe(200);
    const refused = await request(server.url, '/api/v1/states/', { headers: { ...client, 'X-API-Key': generateKey() } });
    expect(refused.status).toBe(401);
    await flushLog();
    const line = lines.find((l) => l.request_id === keyed.headers['x-request-id']);
    expect(line).toMatchObject({
      level: 'info',
      method: 'GET',
      path: '/api/v1/health-scores/02801/all-scores/',
      route: '/api/v1/health-scores/:zip/all-scores/',
      status: 200,
      client: client['X-Forwarded-For'],
      key_id: keyIds.professional,
      plan: 'professional',
    });
    expect(line?.bytes).toBe(keyed.body.length);
    expect(lines.find((l) => l.request_id === refused.headers['x-request-id'])).toMatchObject({ status: 401, plan: 'invalid' });
    expect(JSON.stringify(lines)).not.toContain(keys.professional.slice(10));
  });
});

describe('/metrics', () => {
  it('loopback callers get the Prometheus text: requests by route, status and plan, latency, cache, quota denials, build', async () => {
    const before = await metricsText(server.url);
    const route = '/api/v1/health-scores/:zip/';
    const series = `hcas_http_requests_total{route="${route}",status="200",plan="anonymous"}`;
    const client = asClient();
    for (let i = 0; i < ANONYMOUS_QUOTA + 2; i++) await request(server.url, '/api/v1/health-scores/02801/', { headers: client });
    const after = await metricsText(server.url);
    expect(metric(after, series) - metric(before, series)).toBe(ANONYMOUS_QUOTA);
    const denied = `hcas_http_requests_total{route="${route}",status="429",plan="anonymous"}`;
    expect(metric(after, denied) - metric(before, denied)).toBe(2);
    expect(metric(after, 'hcas_quota_denials_total{plan="anonymous"}') - metric(before, 'hcas_quota_denials_total{plan="anonymous"}')).toBe(
      2,
    );
    const count = `hcas_http_request_duration_seconds_count{route="${route}"}`;
    expect(metric(after, count) - metric(before, count)).toBe(ANONYMOUS_QUOTA + 2);
    expect(metric(after, `hcas_http_request_duration_seconds_bucket{route="${route}",le="+Inf"}`)).toBe(metric(after, count));
    expect(metric(after, 'hcas_response_cache_requests_total{result="hit"}')).toBeGreaterThan(
      metric(before, 'hcas_response_cache_requests_total{result="hit"}'),
    );
    expect(after).toContain(`hcas_build_info{build_id="${FIXTURE_BUILD_ID}",built_at="2024-01-02T03:04:05.000Z"} 1`);
    expect(metric(after, 'hcas_build_age_seconds')).toBeGreaterThan(0);
    expect(after).toContain('hcas_state_degraded{backend="sqlite"} 0');
    expect(after).toContain('# TYPE process_cpu_seconds_total counter');
    expect(after).toContain('# TYPE hcas_http_request_duration_seconds histogram');
  });

  it('refuses callers behind a proxy (a proxy on this machine connects from loopback) and callers elsewhere without the token', async () => {
    for (const header of ['X-Forwarded-For', 'Forwarded', 'X-Real-IP']) {
      const proxied = await request(server.url, '/metrics', { headers: { [header]: '203.0.113.9' } });
      expect(proxied.status, header).toBe(403);
      expect(bodyJson(proxied)).toMatchObject({ error: 'forbidden', status: 403 });
    }
    const withToken = await request(tokenServer.url, '/metrics', {
      headers: { 'X-Forwarded-For': '203.0.113.9', Authorization: `Bearer ${TOKEN}` },
    });
    expect(withToken.status).toBe(200);
    expect(withToken.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    const wrong = await request(tokenServer.url, '/metrics', {
      headers: { 'X-Forwarded-For': '203.0.113.9', Authorization: `Bearer ${TOKEN}x` },
    });
    expect(wrong.status).toBe(403);
    // Limits off: requests are counted under the plan "none"; a path no route serves is "unmatched", not itself.
    await request(tokenServer.url, '/api/v1/states/');
    await request(tokenServer.url, '/api/v1/nope/');
    const text = await metricsText(tokenServer.url);
    expect(metric(text, 'hcas_http_requests_total{route="/api/v1/states/",status="200",plan="none"}')).toBe(1);
    expect(metric(text, 'hcas_http_requests_total{route="unmatched",status="404",plan="none"}')).toBe(1);
  });

  it('is a 404 when turned off', async () => {
    const off = await startServer({
      db,
      port: 0,
      host: '127.0.0.1',
      quiet: true,
      watch: false,
      log: () => {},
      metrics: { enabled: false },
    });
    try {
      const answer = await request(off.url, '/metrics');
      expect(answer.status).toBe(404);
      expect(bodyJson(answer)).toMatchObject({ error: 'not_found' });
    } finally {
      await off.close();
    }
  });
});

describe('unlimited plans are answered at once and counted behind', () => {
  it('every call lands in the state within the write-behind interval, and closing the gate writes what waits', async () => {
    const window = windowAt('month', Date.now());
    const subject = `key:${keyIds.enterprise}`;
    const before = await store.peek(subject, window);
    const calls = 25;
    await Promise.all(
      Array.from({ length: calls }, () => request(server.url, '/api/v1/states/', { headers: { 'X-API-Key': keys.enterprise } })),
    );
    await new Promise((r) => setTimeout(r, COUNT_BEHIND_MS * 3));
    expect(await store.peek(subject, window)).toBe(before + calls);

    const own = new SqliteStore(path.join(dir, 'behind.sqlite'));
    const key = generateKey();
    const stored = await own.addKey(hashKey(key), {
      name: 'behind',
      plan: 'enterprise',
      hint: keyHint(key),
      createdAt: new Date().toISOString(),
    });
    const ownGate = new Gate({ store: own, access: new AccessTable(plans, ROUTES, API_BASE) });
    const ownServer = await startServer({ db, port: 0, host: '127.0.0.1', quiet: true, watch: false, log: () => {}, gate: ownGate });
    for (let i = 0; i < 3; i++)
      expect((await request(ownServer.url, '/api/v1/states/', { headers: { 'X-API-Key': key } })).status).toBe(200);
    await ownServer.close();
    await ownGate.close();
    expect(await own.peek(`key:${stored.id}`, window)).toBe(3);
    await own.close();
  });
});

describe('closing the gate while calls counted behind are being written', () => {
  it('waits for that write too, so what the state holds after close is every call (a race seen under load)', async () => {
    // A state that answers a count 40 ms late: the timer's write is still under way when the gate closes.
    const slow = new MemoryStore();
    const hit = slow.hit.bind(slow);
    slow.hit = async (subject, window, options) => {
      await new Promise((resolve) => setTimeout(resolve, 40));
      return hit(subject, window, options);
    };
    const key = generateKey();
    const stored = await slow.addKey(hashKey(key), {
      name: 'behind',
      plan: 'enterprise',
      hint: keyHint(key),
      createdAt: '2024-05-01T00:00:00Z',
    });
    const closing = new Gate({ store: slow, access: new AccessTable(plans, ROUTES, API_BASE) });
    const api = {
      respond: () => ({ status: 200, headers: {}, body: Buffer.from('{}') }),
      routeOf: (target: string) => ({ target, route: undefined }),
    };
    expect((await closing.respond(api, { method: 'GET', url: '/api/v1/states/', headers: { 'x-api-key': key } })).response.status).toBe(
      200,
    );
    await new Promise((resolve) => setTimeout(resolve, COUNT_BEHIND_MS + 15)); // the timer has fired; its write waits
    await closing.close();
    expect(await slow.peek(`key:${stored.id}`, windowAt('month', Date.now()))).toBe(1);
  });
});

describe("the SQLite state's checkpoints", () => {
  it('run in a thread of their own: the counts reach the file while no commit checkpoints (issue #44, point 5)', async () => {
    const file = path.join(dir, 'checkpointed.sqlite');
    const store = new SqliteStore(file);
    const window = windowAt('day', Date.now());
    // The rows of the file itself, without its WAL: what checkpoints have copied into it.
    const inFile = () => {
      const copy = path.join(dir, 'checkpointed-copy.sqlite');
      copyFileSync(file, copy);
      const db = new Database(copy, { readonly: true });
      try {
        return db.prepare('SELECT count(*) FROM counters').pluck().get() as number;
      } catch {
        return 0; // the table itself not checkpointed yet
      } finally {
        db.close();
      }
    };
    const checkpoints = StateCheckpoints.start(store, () => {});
    try {
      await Promise.all(Array.from({ length: 10 }, (_, i) => store.hit(`ip:192.0.2.${i}`, window)));
      await new Promise((resolve) => setTimeout(resolve, CHECKPOINT_EVERY_MS * 2.5));
      expect(inFile()).toBe(10);
    } finally {
      await checkpoints.close();
    }
    // Without the thread, and commits told not to checkpoint, the counts stay in the WAL.
    await Promise.all(Array.from({ length: 10 }, (_, i) => store.hit(`ip:198.51.100.${i}`, window)));
    await new Promise((resolve) => setTimeout(resolve, CHECKPOINT_EVERY_MS * 1.5));
    expect(inFile()).toBe(10);
    await store.close();
  });
});

describe('a cluster', { timeout: 60_000 }, () => {
  it("sums every worker's metrics, whichever worker the scrape reaches; HCAS_* settings start it", async () => {
    const server = new ServerProcess(['bin/hcas.js', 'serve', '--no-limits'], {
      HCAS_DB: db,
      HCAS_PORT: '0',
      HCAS_WORKERS: '2',
      HCAS_QUIET: 'true',
      HCAS_WATCH: 'false',
    });
    try {
      const listening = await server.waitFor((e) => e.event === 'listening' && e.workers === 2);
      const url = listening.url as string;
      const calls = 40;
      // Each request on its own connection: the primary deals connections to the workers round-robin.
      await Promise.all(Array.from({ length: calls }, () => request(url, '/api/v1/states/')));
      for (let scrape = 0; scrape < 4; scrape++) {
        const text = await metricsText(url);
        expect(metric(text, 'hcas_http_requests_total{route="/api/v1/states/",status="200",plan="none"}')).toBe(calls);
      }
    } finally {
      server.signal('SIGTERM');
      expect(await server.exited).toBe(0);
    }
  });
});

async function metricsText(url: string): Promise<string> {
  const answer = await request(url, '/metrics');
  expect(answer.status).toBe(200);
  return answer.body.toString('utf8');
}

/** The value of one series (its name and labels exactly as printed); 0 when absent. */
function metric(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}
