import { rmSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryStore } from '../src/auth/memory-store.ts';
import { RedisStore } from '../src/auth/redis-store.ts';
import { SqliteStore } from '../src/auth/sqlite-store.ts';
import type { StateStore } from '../src/auth/store.ts';
import { windowAt } from '../src/auth/windows.ts';
import { tempDir } from './helpers/files.ts';
import { REDIS_AVAILABLE, sharedRedis, uniquePrefix, warnRedisSkipped } from './helpers/redis.ts';

const NOW = Date.parse('2024-05-15T12:00:00Z');
const today = windowAt('day', NOW);
const thisMonth = windowAt('month', NOW);
const dir = tempDir('hcas-store-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The contract every state store keeps, run against each backend. */
function contract(name: string, open: () => Promise<StateStore>) {
  describe(`${name} store`, () => {
    let store: StateStore;
    beforeAll(async () => {
      store = await open();
    });
    afterAll(() => store.close());

    it('counts calls one by one, per subject and per window', async () => {
      expect(await store.peek('ip:1', today)).toBe(0);
      expect(await store.hit('ip:1', today)).toBe(1);
      expect(await store.hit('ip:1', today)).toBe(2);
      expect(await store.hit('ip:2', today)).toBe(1);
      expect(await store.hit('ip:1', thisMonth)).toBe(1);
      expect(await store.peek('ip:1', today)).toBe(2);
    });

    it('gives concurrent calls distinct running totals, in arrival order, however they are batched', async () => {
      const calls = Array.from({ length: 300 }, (_, i) => store.hit(`key:${i % 3}`, today));
      const totals = await Promise.all(calls);
      for (let subject = 0; subject < 3; subject++) {
        const mine = totals.filter((_, i) => i % 3 === subject);
        expect(mine).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
      }
      expect(await store.peek('key:0', today)).toBe(100);
    });

    it('keeps keys by hash: add, find, get, list, revoke once', async () => {
      const added = await store.addKey('a'.repeat(64), { name: 'Acme', plan: 'free', hint: 'wxyz', createdAt: '2024-05-15T12:00:00.000Z' });
      expect(added).toEqual({ id: expect.any(Number), name: 'Acme', plan: 'free', hint: 'wxyz', createdAt: '2024-05-15T12:00:00.000Z', revokedAt: null, restrictions: null });
      expect(await store.findKey('a'.repeat(64))).toEqual(added);
      expect(await store.findKey('b'.repeat(64))).toBeUndefined();
      expect(await store.getKey(added.id)).toEqual(added);
      expect(await store.listKeys()).toEqual([added]);
      expect((await store.revokeKey(added.id, '2024-05-15T13:00:00.000Z'))?.revokedAt).toBe('2024-05-15T13:00:00.000Z');
      expect((await store.revokeKey(added.id, '2024-05-16T00:00:00.000Z'))?.revokedAt).toBe('2024-05-15T13:00:00.000Z');
      expect(await store.revokeKey(9999, '2024-05-15T13:00:00.000Z')).toBeUndefined();
    });
  });
}

contract('memory', async () => new MemoryStore());
contract('SQLite', async () => new SqliteStore(path.join(dir, 'contract.sqlite'), () => NOW));
if (REDIS_AVAILABLE) {
  let redis: { url: string; stop: () => Promise<void> };
  contract('Redis', async () => {
    redis = await sharedRedis();
    const store = new RedisStore(redis.url, uniquePrefix('contract'), () => NOW);
    await store.ready();
    return { ...wrap(store), close: async () => { await store.close(); await redis.stop(); } };
  });
} else {
  warnRedisSkipped('the Redis state store contract');
  it.skip('Redis store contract (no Redis here)', () => {});
}

/** The store's methods bound, so the contract can replace `close`. */
function wrap(store: StateStore): StateStore {
  return {
    backend: store.backend, location: store.location,
    hit: store.hit.bind(store), peek: store.peek.bind(store), findKey: store.findKey.bind(store), addKey: store.addKey.bind(store),
    getKey: store.getKey.bind(store), listKeys: store.listKeys.bind(store), revokeKey: store.revokeKey.bind(store), ping: store.ping.bind(store), close: store.close.bind(store),
  };
}

describe('SQLite store and the write lock', () => {
  it('waits for another process\'s write transaction without blocking the event loop, then counts exactly', async () => {
    const file = path.join(dir, 'locked.sqlite');
    const store = new SqliteStore(file, () => NOW);
    const other = new Database(file);
    other.exec('BEGIN IMMEDIATE');
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 5);
    const counted = Promise.all([store.hit('ip:9', today), store.hit('ip:9', today)]);
    await new Promise((r) => setTimeout(r, 100));
    other.exec('COMMIT');
    expect(await counted).toEqual([1, 2]);
    clearInterval(ticker);
    expect(ticks).toBeGreaterThan(5); // the loop kept turning while the lock was held
    other.close();
    await store.close();
  });

  it('gives up after 2 seconds of a held lock, so the gate can fail open', async () => {
    const file = path.join(dir, 'stuck.sqlite');
    const store = new SqliteStore(file, () => NOW);
    const other = new Database(file);
    other.exec('BEGIN IMMEDIATE');
    const started = Date.now();
    await expect(store.hit('ip:9', today)).rejects.toThrow(/locked|busy/i);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_900);
    other.exec('ROLLBACK');
    other.close();
    await store.close();
  });
});
