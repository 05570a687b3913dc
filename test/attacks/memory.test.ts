import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccessTable } from '../../src/auth/access.ts';
import { Gate } from '../../src/auth/gate.ts';
import { MemoryStore } from '../../src/auth/memory-store.ts';
import { loadPlans } from '../../src/auth/plans.ts';
import { API_BASE, ROUTES } from '../../src/api/index.ts';
import { ResponseCache } from '../../src/http/cache.ts';
import { jsonBytes, Representation } from '../../src/http/response.ts';
import { startServer, type RunningServer } from '../../src/server/server.ts';
import { fixtureDb } from '../helpers/fixture-db.ts';
import { heldMb, rssMb, tally } from './helpers.ts';

/**
 * Finding 5 of issue #16: memory that inputs could grow without bound. The gate's path memo kept up to
 * 10,000 raw paths before the 2,048-character check (19,000 distinct 14 KB paths, all 414, added about
 * 140 MB per worker); the response cache charged 512 bytes per entry and nothing for its keys (240,000 small
 * distinct answers added 110-135 MB per worker, peaks of +300 MB, with a 64 MiB budget). Now every cache
 * is bounded by the bytes it really holds, keys included, and inputs are rejected before anything keeps them.
 */

const CACHE_BYTES = 8 * 1024 * 1024;
let server: RunningServer;
let gate: Gate;

beforeAll(async () => {
  // Limits on, with room for every call of the test: the gate asks the dispatcher for each request's route.
  const plans = loadPlans('a');
  (plans.anonymous as { quota: number }).quota = 1_000_000;
  gate = new Gate({ store: new MemoryStore(), access: new AccessTable(plans, ROUTES, API_BASE) });
  server = await startServer({
    db: await fixtureDb(),
    port: 0,
    host: '127.0.0.1',
    quiet: true,
    watch: false,
    log: () => {},
    gate,
    snapshotDir: false,
    api: { cacheBytes: CACHE_BYTES },
  });
});
afterAll(async () => {
  await server.close();
  await gate.close();
});

/** `count` GETs one after another on one keep-alive connection; resolves with each status. */
async function sequence(count: number, pathOf: (i: number) => string): Promise<Array<{ status: number }>> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const statuses: Array<{ status: number }> = [];
  for (let i = 0; i < count; i++) {
    statuses.push(
      await new Promise((resolve) => {
        http
          .get(`${server.url}${pathOf(i)}`, { agent }, (res) => {
            res.resume();
            res.on('end', () => resolve({ status: res.statusCode ?? 0 }));
          })
          .on('error', () => resolve({ status: 0 }));
      }),
    );
  }
  agent.destroy();
  return statuses;
}

describe('the response cache', { timeout: 120_000 }, () => {
  it('charges at least what its entries hold on the heap, keys included: a budget of 8 MiB holds at most 8 MiB', () => {
    const cache = new ResponseCache(CACHE_BYTES);
    const before = heldMb();
    for (let i = 0; i < 40_000; i++) {
      const key = `/api/v1/autocomplete/?q=${i.toString(36)}${'k'.repeat(40)}`;
      cache.set(
        key,
        new Representation(jsonBytes({ q: key.slice(25), suggestions: [] }), `"0123456789abcdef-${i.toString(16).padStart(16, '0')}"`),
      );
    }
    expect(cache.size.bytes).toBeLessThanOrEqual(CACHE_BYTES);
    // Measured: 5.7 MiB held for a full 8 MiB budget (the charges round up).
    expect(heldMb() - before).toBeLessThan(CACHE_BYTES / 2 ** 20 + 1);
    (globalThis as { keep?: unknown }).keep = cache;
  });

  it('16,000 distinct small answers through the server keep its memory within the budget', async () => {
    // One answer first: autocomplete answers come from a query thread, which starts on first use and holds
    // 30-40 MB of its own (in-process here, under this process's RSS). What is measured is what the answers keep.
    expect(tally(await sequence(1, () => '/api/v1/autocomplete/?q=new'))).toEqual({ 200: 1 });
    const before = heldMb();
    const rss = rssMb(process.pid);
    const answers = await sequence(16_000, (i) => `/api/v1/autocomplete/?q=zz${i.toString(36)}`);
    expect(tally(answers)).toEqual({ 200: 16_000 });
    expect(server.live.cacheStats().bytes).toBeLessThanOrEqual(CACHE_BYTES);
    // Measured: 6.9 MiB held (the budget, and what the route memo keeps), RSS +13-20 MiB.
    expect(heldMb() - before).toBeLessThan(CACHE_BYTES / 2 ** 20 + 4);
    expect(rssMb(process.pid) - rss).toBeLessThan(64);
  });
});

describe('the route memo', { timeout: 120_000 }, () => {
  it('2,000 distinct 14 KB paths, all 414, keep nothing', async () => {
    const before = heldMb();
    const answers = await sequence(2_000, (i) => `/api/v1/${i.toString(36)}${'p'.repeat(14_000)}/`);
    expect(tally(answers)).toEqual({ 414: 2_000 });
    // Measured: 0.1 MiB. Before: about 28 MB of paths kept (one-byte strings), up to 10,000 of them.
    expect(heldMb() - before).toBeLessThan(4);
  });
});
