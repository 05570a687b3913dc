import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccessTable } from '../../src/auth/access.ts';
import { Gate, NEW_KEY_WAIT_MS } from '../../src/auth/gate.ts';
import { generateKey, hashKey, keyHint } from '../../src/auth/keys.ts';
import { MemoryStore } from '../../src/auth/memory-store.ts';
import { loadPlans } from '../../src/auth/plans.ts';
import type { StoredKey } from '../../src/auth/store.ts';
import { API_BASE, ROUTES } from '../../src/api/index.ts';
import { tempDir } from '../helpers/files.ts';
import { fixtureDb } from '../helpers/fixture-db.ts';
import { hcas } from '../helpers/cli.ts';
import { request } from '../helpers/http.ts';
import { openLoop, percentile, type Landed } from '../helpers/open-loop.ts';
import { raisePriority } from '../helpers/priority.ts';
import { ServerProcess, serveArgs } from '../helpers/process.ts';
import { HAVE_REDIS_SERVER, OwnRedis, uniquePrefix, warnRedisSkipped } from '../helpers/redis.ts';
import { tally } from './helpers.ts';

/**
 * Point 1 of issue #44: Redis stopped with SIGSTOP for 10 s under 156 requests a second alternating over two
 * replicas held every request sent in the first quarter second of the pause for the whole pause (9.8-9.97 s);
 * later ones took 1.5 ms. A request waits at most the count wait (10 ms) for Redis: the first count of the
 * pause was answered late, but the calls that joined the batch waiting behind it were watched by a timer that
 * had already fired, and nothing answered them until Redis did. Here the same attack, shorter: an open-loop
 * load of a Professional key, a Free key and anonymous callers over two replicas, Redis paused for 3 s in the
 * middle. Every answer is judged against the same run's quiet phase before the pause.
 */

const dir = tempDir('hcas-attack-paused-store-');
const PER_SECOND = 150;
const QUIET_MS = 2_000;
const PAUSE_MS = 3_000;
const AFTER_MS = 1_000;
/** Anonymous callers come from this many addresses (through the trusted proxy), each far inside its 100 calls a day. */
const ADDRESSES = 30;
const PATH = '/api/v1/health-scores/10001/';
/** A quiet phase with a p99 above this was not quiet (other processes held the cores): its comparison says nothing. */
const QUIET_P99_MS = 50;

describe('a store paused under load, two replicas', { timeout: 120_000 }, () => {
  if (!HAVE_REDIS_SERVER) {
    warnRedisSkipped('a paused Redis under two replicas (needs the redis-server binary)');
    it.skip('a paused Redis under two replicas (no redis-server here)', () => {});
    return;
  }
  let redis: OwnRedis;
  let env: Record<string, string>;
  const servers: ServerProcess[] = [];
  /** Puts this process's priority back (undefined: it was not raised, and the file runs alone: vitest.config.ts). */
  let restorePriority: (() => void) | undefined;
  beforeAll(async () => {
    // Timed against its own quiet phase: before Redis and the servers start, they inherit it.
    restorePriority = raisePriority();
    redis = await OwnRedis.start();
    env = { REDIS_URL: redis.url, HCAS_REDIS_PREFIX: uniquePrefix('paused-store') };
  });
  afterAll(async () => {
    for (const server of servers) server.stop();
    redis.unpause();
    await redis.stop();
    restorePriority?.();
    rmSync(dir, { recursive: true, force: true });
  });

  it('costs each request at most the count wait from the first request of the pause on, on every replica', async () => {
    const db = await fixtureDb();
    const keyOf = async (plan: string) => {
      const run = await hcas(['keys', 'create', '--plan', plan, '--name', `${plan} caller`], { env });
      expect(run.code, run.stderr).toBe(0);
      return run.stdout.trim();
    };
    const keys = { professional: await keyOf('professional'), free: await keyOf('free') };
    for (let i = 0; i < 2; i++) servers.push(new ServerProcess(serveArgs(db, '--trust-proxy', '127.0.0.1', '--snapshot-dir', dir), env));
    const urls = await Promise.all(servers.map(async (s) => (await s.waitFor((e) => e.event === 'listening')).url as string));
    // Each replica has verified both keys before the load starts (what a key in use is).
    for (const url of urls)
      for (const key of Object.values(keys)) expect((await request(url, PATH, { headers: { 'X-API-Key': key } })).status).toBe(200);

    // Up to three attempts, each pausing Redis again: a p99 over the bound is measured again, as the flood test
    // does, whether the quiet phase was busy or the pause's own seconds were (a CI run here: quiet p99 19 ms,
    // the pause's 141 ms, its slowest 198 ms, none held); a request held for the pause fails at once, busy or
    // not, and a cost the code adds to every request of the pause fails every attempt.
    const summaries = [];
    for (let attempt = 1; attempt <= 3; attempt++) {
      const summary = await pauseUnderLoad(urls, keys);
      summaries.push(summary);
      console.log(`Redis paused ${PAUSE_MS} ms under ${PER_SECOND} requests a second over two replicas: ${JSON.stringify(summary)}`);
      expect(summary.statuses).toEqual({ 200: (PER_SECOND * (QUIET_MS + PAUSE_MS + AFTER_MS)) / 1000 });
      // A request the store holds waits for the pause to end.
      expect(summary.held, JSON.stringify(summary)).toBe(0);
      // The count wait is 10 ms: a request of the pause may take that, plus what this shared machine adds to any
      // request (the pause, the recovery and the recount after it make work the quiet phase does not have).
      if (summary.paused.p99 < summary.quiet.p99 + 100) break;
    }
    const last = summaries.at(-1)!;
    if (last.paused.p99 >= last.quiet.p99 + 100 && last.quiet.p99 >= QUIET_P99_MS) {
      const line = '!'.repeat(100);
      console.warn(
        `\n${line}\n!! NOT JUDGED: the p99 during the pause (the machine was busy in every attempt): ${JSON.stringify(summaries)}\n${line}\n`,
      );
      expect(process.env.CI, 'CI=true: the pause must be measured on a quiet machine').not.toBe('true');
    } else {
      expect(last.paused.p99, JSON.stringify(summaries)).toBeLessThan(last.quiet.p99 + 100);
    }
  });

  /** The open-loop load over both replicas with Redis paused in its middle: the latencies before and from the pause. */
  async function pauseUnderLoad(urls: string[], keys: { professional: string; free: string }) {
    const count = (PER_SECOND * (QUIET_MS + PAUSE_MS + AFTER_MS)) / 1000;
    setTimeout(() => redis.pause(), QUIET_MS).unref();
    setTimeout(() => redis.unpause(), QUIET_MS + PAUSE_MS).unref();
    const landed = await openLoop(urls[0], PER_SECOND, count, (i) => {
      const who = i % 3;
      const headers: Record<string, string> =
        who === 0
          ? { 'X-API-Key': keys.professional }
          : who === 1
            ? { 'X-API-Key': keys.free }
            : { 'X-Forwarded-For': `203.0.113.${1 + (Math.floor(i / 3) % ADDRESSES)}` };
      return { path: PATH, headers, base: urls[(i >> 1) % 2] };
    });
    // Redis counts again (the recount of the pause's calls done) before the next attempt.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const dueMs = (i: number) => (i * 1000) / PER_SECOND;
    // A count sent just before the pause waits in it too: the quiet phase ends a little before.
    const quiet = landed.filter((_, i) => dueMs(i) < QUIET_MS - 200);
    const paused = landed.filter((_, i) => dueMs(i) >= QUIET_MS - 200);
    const ms = (some: Landed[]) => some.map((l) => l.latencyMs);
    return {
      quiet: { p50: percentile(ms(quiet), 50), p99: percentile(ms(quiet), 99) },
      paused: { p50: percentile(ms(paused), 50), p99: percentile(ms(paused), 99), max: Math.max(...ms(paused)) },
      held: paused.filter((l) => l.latencyMs >= PAUSE_MS / 2).length,
      statuses: tally(landed),
    };
  }
});

/** A state whose key lookups answer `delayMs` late (a busy machine, a busy Redis); Infinity: never. */
class SlowLookups extends MemoryStore {
  delayMs = 0;
  override async findKey(hash: string): Promise<StoredKey | undefined> {
    if (this.delayMs === Number.POSITIVE_INFINITY) return new Promise(() => {});
    await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    return super.findKey(hash);
  }
}

/**
 * Point 4 of issue #44: a new Free key's first request got 401 (`plan: unverified`) 14 s after
 * `limits_recovered`, on a loaded machine: its lookup took longer than the 10 ms count wait, and a key with no
 * last verdict to fall back on was refused. It now waits NEW_KEY_WAIT_MS for the state; 401 only past that.
 */
describe('a new key while the state answers slowly', () => {
  const answer = {
    respond: () => ({ status: 200, headers: {}, body: Buffer.from('{}') }),
    routeOf: (target: string) => ({ target, route: undefined }),
  };

  it(`is served when its lookup takes longer than the count wait, and refused only when the state does not answer in ${NEW_KEY_WAIT_MS} ms`, async () => {
    const store = new SlowLookups();
    const gate = new Gate({ store, access: new AccessTable(loadPlans('a'), ROUTES, API_BASE) });
    const ask = async (key: string) => {
      const started = performance.now();
      const { response } = await gate.respond(answer, { method: 'GET', url: '/api/v1/states/', headers: { 'x-api-key': key } });
      return { status: response.status, retryAfter: response.headers['Retry-After'], ms: performance.now() - started };
    };
    const newKey = async () => {
      const key = generateKey();
      await store.addKey(hashKey(key), { name: 'new', plan: 'free', hint: keyHint(key), createdAt: new Date().toISOString() });
      return key;
    };
    try {
      await gate.syncKeys();
      // Six times the count wait (10 ms), as a loaded machine answered: the key is served.
      store.delayMs = 60;
      const slow = await ask(await newKey());
      expect(slow.status).toBe(200);
      expect(slow.ms).toBeGreaterThanOrEqual(55);
      // A state that does not answer: the key cannot be checked, after the documented wait and no longer.
      store.delayMs = Number.POSITIVE_INFINITY;
      const silent = await ask(await newKey());
      expect([silent.status, silent.retryAfter]).toEqual([401, '1']);
      expect(silent.ms).toBeGreaterThanOrEqual(NEW_KEY_WAIT_MS - 5);
      expect(silent.ms).toBeLessThan(NEW_KEY_WAIT_MS + 500);
    } finally {
      await gate.close();
    }
  });
});
