import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisStore } from '../src/auth/redis-store.ts';
import { windowAt } from '../src/auth/windows.ts';
import { tempDir } from './helpers/files.ts';
import { FIXTURE_BUILD_ID, fixtureDb } from './helpers/fixture-db.ts';
import { request } from './helpers/http.ts';
import { type Planned, TlsClient } from './helpers/tls-client.ts';
import { freePort, NGINX, selfSignedCertificate, TestNginx } from './helpers/nginx.ts';
import { ServerProcess } from './helpers/process.ts';
import { REDIS_AVAILABLE, sharedRedis, uniquePrefix } from './helpers/redis.ts';
import { hasCommand, serviceMissing } from './helpers/services.ts';

/**
 * The deployment kit, proven: Redis, two `hcas serve` replicas and nginx running deploy/nginx/hcas.conf (TLS
 * on loopback with a throwaway certificate), bounded load through nginx while a replica is killed and
 * restarted and while the database file is replaced. Every loop stops by itself (a request budget and a
 * deadline); every address is loopback.
 */

const root = path.resolve(import.meta.dirname, '..');
const HOST_NAME = 'api.example.org';
// Replicas and the test read the same windows however long the test takes.
const CLOCK = { HCAS_TEST_NOW: '2024-05-15T12:00:00Z' };
const NOW = Date.parse(CLOCK.HCAS_TEST_NOW);
const NEW_BUILD_ID = 'feedfacefeedface';
const haveOpenssl = hasCommand('openssl', ['version']);

describe('the deployment kit: two replicas behind nginx, sharing Redis', { timeout: 240_000 }, () => {
  if (!NGINX || !haveOpenssl || !REDIS_AVAILABLE) {
    const missing = [!NGINX && 'nginx', !haveOpenssl && 'openssl', !REDIS_AVAILABLE && 'Redis'].filter(Boolean).join(', ');
    serviceMissing(
      'the deployment kit behind nginx (test/deploy-nginx.test.ts)',
      `Missing: ${missing}. Install them (apt-get install -y nginx openssl redis-server), as .ci/run does.`,
    );
    it.skip(`the deployment kit behind nginx (missing ${missing})`, () => {});
    return;
  }

  const dir = tempDir('hcas-deploy-');
  const dbFile = path.join(dir, 'data', 'hcas.sqlite');
  let fixture: string;
  let redis: { url: string; stop: () => Promise<void> };
  let env: NodeJS.ProcessEnv;
  let nginx: TestNginx;
  let replicas: Replica[];
  let client: TlsClient;
  let counts: RedisStore;

  beforeAll(async () => {
    fixture = await fixtureDb();
    mkdirSync(path.dirname(dbFile), { recursive: true });
    copyFileSync(fixture, dbFile);
    redis = await sharedRedis();
    const prefix = uniquePrefix('deploy');
    // Exact counts while Redis answers within the count wait: a second here, so a busy test machine cannot
    // turn a count into an estimate (the default, 10 ms, is held by test/auth-processes.test.ts).
    env = { ...CLOCK, REDIS_URL: redis.url, HCAS_REDIS_PREFIX: prefix, HCAS_TRUST_PROXY: '127.0.0.1,::1', HCAS_COUNT_WAIT: '1000' };
    counts = new RedisStore(redis.url, prefix, () => NOW);
    await counts.ready();
    const certificate = selfSignedCertificate(dir, HOST_NAME)!;
    replicas = [new Replica('A', await freePort(), dbFile, env), new Replica('B', await freePort(), dbFile, env)];
    await Promise.all(replicas.map((replica) => replica.start()));
    nginx = new TestNginx(path.join(dir, 'nginx'), await freePort(), await freePort());
    nginx.configure([replicas[0].port, replicas[1].port], certificate);
    nginx.check();
    await nginx.start();
    client = new TlsClient(nginx.httpsPort, certificate.cert, HOST_NAME);
  }, 60_000); // two servers and nginx started: over vitest's 10 s when the suite's container tests load the machine

  afterAll(async () => {
    client?.close();
    await nginx?.stop();
    for (const replica of replicas ?? []) replica.stop();
    await counts?.close();
    await redis?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('nginx serves the API over TLS; plain HTTP redirects, /metrics is not served at the edge', async () => {
    const answer = await client.get('/api/v1/states/', { 'X-Forwarded-For': '203.0.113.1' });
    expect(answer.status).toBe(200);
    // nginx's request id reaches the replica, which logs and echoes it.
    expect(answer.headers['x-request-id']).toMatch(/^[0-9a-f]{32}$/);
    expect((await client.get('/readyz')).status).toBe(200);
    expect((await client.get('/metrics')).status).toBe(404);
    const plain = await request(`http://127.0.0.1:${nginx.httpPort}`, '/api/v1/states/', { headers: { Host: HOST_NAME } });
    expect(plain.status).toBe(301);
    expect(plain.headers.location).toBe(`https://${HOST_NAME}/api/v1/states/`);
    expect((await request(`http://127.0.0.1:${nginx.httpPort}`, '/healthz')).status).toBe(200);
  });

  it('counts each call once across the replicas: the 101st anonymous call from one forwarded address is the first 429', async () => {
    const address = '203.0.113.7';
    const ids: string[] = [];
    for (let call = 1; call <= 100; call++) {
      const answer = await client.get('/api/v1/health-scores/02801/', { 'X-Forwarded-For': address });
      expect(answer.status, `call ${call}`).toBe(200);
      expect(answer.headers['x-ratelimit-remaining'], `call ${call}`).toBe(String(100 - call));
      ids.push(answer.headers['x-request-id'] as string);
    }
    const refused = await client.get('/api/v1/health-scores/02801/', { 'X-Forwarded-For': address });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    // Both replicas answered some of the 100 (nginx alternates), and each call was logged by exactly one.
    const servedBy = await Promise.all(ids.map((id) => whoServed(replicas, id)));
    expect(servedBy.filter((name) => name === 'A').length).toBeGreaterThan(10);
    expect(servedBy.filter((name) => name === 'B').length).toBeGreaterThan(10);
    expect(await counts.peek(`ip:${address}`, windowAt('day', NOW))).toBe(101);
  });

  it('kill -9 one replica under load and restart it: no client request fails, /readyz reports it, every call counted once', async () => {
    const key = await createKey(env, 'kill test');
    const addresses = Array.from({ length: 16 }, (_, i) => `198.51.100.${i + 1}`);
    const sentFrom = new Map<string, number>();
    let keyed = 0;
    const monitor = new ReadinessMonitor(replicas);
    let stop = false;
    const loadRun = client.load({
      concurrency: 8,
      // The load must outlast the restart (a passing run sent about 18,000): it stops when the restarted
      // replica has served again or 20 s after it is ready; this cap only bounds a run that goes wrong.
      maxRequests: 200_000,
      until: () => stop,
      next: (i): Planned => {
        if (i % 4 === 3) {
          const address = addresses[i % addresses.length];
          sentFrom.set(address, (sentFrom.get(address) ?? 0) + 1);
          return { path: '/api/v1/health-scores/02801/', headers: { 'X-Forwarded-For': address }, ok: [200, 429] };
        }
        keyed++;
        return {
          path: `/api/v1/health-scores/${['02801', '02802', '02806'][i % 3]}/all-scores/`,
          headers: { 'X-API-Key': key.key, 'X-Forwarded-For': '203.0.113.50' },
          ok: [200],
        };
      },
    });
    await sleep(1_500);
    const [victim, survivor] = replicas;
    const servedBeforeKill = loadRun.answered;
    victim.kill();
    const killedAt = Date.now();
    await sleep(1_500);
    await victim.start();
    await monitor.waitUntilReady(victim, killedAt);
    // nginx leaves a failed replica out for fail_timeout (5 s), then sends it traffic again.
    const deadline = Date.now() + 20_000;
    while (victim.requestLines() < 20 && Date.now() < deadline) await sleep(100);
    await sleep(500);
    stop = true;
    const result = await loadRun.done;
    monitor.stop();

    expect(result.failures, JSON.stringify(result.failures.slice(0, 5))).toEqual([]);
    expect(result.answered).toBe(result.sent);
    expect(servedBeforeKill).toBeGreaterThan(20);
    expect(result.answered - servedBeforeKill).toBeGreaterThan(20);
    // /readyz, asked directly as a load balancer would: the killed replica was not ready, then ready again;
    // the other was ready throughout.
    expect(monitor.notReady(victim, killedAt)).toBeGreaterThan(0);
    expect(monitor.last(victim)).toBe('ready');
    expect(monitor.notReady(survivor, 0)).toBe(0);
    // The restarted replica serves again.
    expect(victim.requestLines(), `the restarted replica served again (load: ${result.sent} sent)`).toBeGreaterThanOrEqual(20);
    // nginx sent requests to the dead replica and retried them on the other (its log names both upstreams).
    const retried = nginx.accessLog().filter((line) => /upstream=[^ ]+, /.test(line)).length;
    console.log(
      `kill test: ${result.answered} requests answered through nginx (${result.answered - servedBeforeKill} after the kill), ${retried} retried on the other replica, 0 failed`,
    );
    expect(retried).toBeGreaterThan(0);
    // Exactly once: the state holds one count per call the clients made, retries on the survivor included.
    expect(await counts.peek(`key:${key.id}`, windowAt('month', NOW))).toBe(keyed);
    for (const [address, sent] of sentFrom) expect(await counts.peek(`ip:${address}`, windowAt('day', NOW)), address).toBe(sent);
  });

  it('swaps in a rebuilt database under load: no request fails, and answers move to the new build id', async () => {
    const key = await createKey(env, 'swap test');
    const seen: Array<{ at: number; buildId: string }> = [];
    let stop = false;
    const loadRun = client.load({
      concurrency: 8,
      // The load must outlast the restart (a passing run sent about 18,000): it stops when the restarted
      // replica has served again or 20 s after it is ready; this cap only bounds a run that goes wrong.
      maxRequests: 200_000,
      until: () => stop,
      next: (i) => ({
        path: i % 2 ? '/api/v1/meta/' : '/api/v1/health-scores/02801/',
        headers: { 'X-API-Key': key.key },
        ok: [200],
        onAnswer: (answer) => seen.push({ at: Date.now(), buildId: String(answer.headers.etag).slice(1, 17) }),
      }),
    });
    await sleep(1_000);
    const next = `${dbFile}.next`;
    copyFileSync(fixture, next);
    const db = new Database(next);
    db.prepare("UPDATE meta SET value = ? WHERE key = 'build_id'").run(JSON.stringify(NEW_BUILD_ID));
    db.close();
    renameSync(next, dbFile); // as `hcas build` does: a finished file renamed into place
    const deadline = Date.now() + 20_000;
    while (!(await Promise.all(replicas.map((r) => r.buildId()))).every((id) => id === NEW_BUILD_ID)) {
      if (Date.now() > deadline) throw new Error('the replicas did not reload the new file within 20 s');
      await sleep(100);
    }
    const switched = Date.now();
    await sleep(1_000);
    stop = true;
    const result = await loadRun.done;

    expect(result.failures, JSON.stringify(result.failures.slice(0, 5))).toEqual([]);
    expect(seen.filter((s) => s.buildId === FIXTURE_BUILD_ID).length).toBeGreaterThan(0);
    const after = seen.filter((s) => s.at > switched + 50);
    expect(after.length).toBeGreaterThan(10);
    expect(after.filter((s) => s.buildId !== NEW_BUILD_ID)).toEqual([]);
    for (const replica of replicas)
      expect(
        replica.events.some((e) => e.event === 'reload' && e.build_id === NEW_BUILD_ID),
        replica.name,
      ).toBe(true);
  });
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One `hcas serve` replica on a fixed port (so a restart comes back where nginx expects it). */
class Replica {
  readonly name: string;
  readonly port: number;
  private process: ServerProcess | undefined;
  private readonly past: ServerProcess[] = [];
  private readonly env: NodeJS.ProcessEnv;
  private readonly db: string;

  constructor(name: string, port: number, db: string, env: NodeJS.ProcessEnv) {
    this.name = name;
    this.port = port;
    this.db = db;
    this.env = env;
  }

  get events(): Array<Record<string, unknown>> {
    return [...this.past, ...(this.process ? [this.process] : [])].flatMap((p) => p.events);
  }

  async start(): Promise<void> {
    // Settings from the environment, as the container and systemd examples give them.
    this.process = new ServerProcess(['bin/hcas.js', 'serve'], {
      ...this.env,
      HCAS_DB: this.db,
      HCAS_PORT: String(this.port),
      HCAS_WORKERS: '1',
    });
    await this.process.waitFor((e) => e.event === 'listening');
  }

  /** SIGKILL: the process is gone at once, with whatever it had in flight. */
  kill(): void {
    if (this.process) {
      this.process.signal('SIGKILL');
      this.past.push(this.process);
      this.process = undefined;
    }
  }

  stop(): void {
    this.process?.stop();
  }

  /** Request log lines of the current process. */
  requestLines(): number {
    return this.process?.events.filter((e) => e.request_id !== undefined).length ?? 0;
  }

  async buildId(): Promise<string | undefined> {
    try {
      const answer = await request(`http://127.0.0.1:${this.port}`, '/readyz');
      return (JSON.parse(answer.body.toString('utf8')) as { build_id: string }).build_id;
    } catch {
      return undefined;
    }
  }
}

/** Which replica logged the request id (its log is batched per event-loop turn: wait a little). */
async function whoServed(replicas: Replica[], id: string): Promise<string | undefined> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const found = replicas.filter((r) => r.events.some((e) => e.request_id === id));
    if (found.length > 1) throw new Error(`request ${id} was logged by ${found.map((r) => r.name).join(' and ')}`);
    if (found.length === 1) return found[0].name;
    await sleep(20);
  }
  return undefined;
}

/** Asks each replica's /readyz every 100 ms, directly, as a load balancer's health check would. */
class ReadinessMonitor {
  private readonly seen: Array<{ at: number; replica: string; state: 'ready' | 'not_ready' | 'unreachable' }> = [];
  private readonly timer: NodeJS.Timeout;

  constructor(replicas: Replica[]) {
    this.timer = setInterval(() => {
      for (const replica of replicas) {
        const at = Date.now();
        request(`http://127.0.0.1:${replica.port}`, '/readyz').then(
          (answer) => this.seen.push({ at, replica: replica.name, state: answer.status === 200 ? 'ready' : 'not_ready' }),
          () => this.seen.push({ at, replica: replica.name, state: 'unreachable' }),
        );
      }
    }, 100);
  }

  notReady(replica: Replica, since: number): number {
    return this.seen.filter((s) => s.replica === replica.name && s.at >= since && s.state !== 'ready').length;
  }

  last(replica: Replica): string | undefined {
    return this.seen
      .filter((s) => s.replica === replica.name)
      .sort((a, b) => a.at - b.at)
      .at(-1)?.state;
  }

  async waitUntilReady(replica: Replica, since: number): Promise<void> {
    const deadline = Date.now() + 20_000;
    while (!this.seen.some((s) => s.replica === replica.name && s.at > since && s.state === 'ready' && this.notReady(replica, since) > 0)) {
      if (Date.now() > deadline) throw new Error(`${replica.name} was not reported ready again within 20 s`);
      await sleep(50);
    }
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

/** `hcas keys create` against the replicas' Redis: a Professional key (limited, so counted before it is answered). */
function createKey(env: NodeJS.ProcessEnv, name: string): Promise<{ key: string; id: number }> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['bin/hcas.js', 'keys', 'create', '--plan', 'professional', '--name', name, '--json'],
      { cwd: root, env: { ...process.env, ...env }, timeout: 30_000 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`hcas keys create: ${stderr || error.message}`));
        else {
          const created = JSON.parse(stdout) as { key: string; id: number };
          resolve({ key: created.key, id: created.id });
        }
      },
    );
  });
}
