import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccessTable } from '../../src/auth/access.ts';
import { Gate } from '../../src/auth/gate.ts';
import { generateKey, hashKey, keyHint } from '../../src/auth/keys.ts';
import { TrustedProxies } from '../../src/auth/client-ip.ts';
import { MemoryStore } from '../../src/auth/memory-store.ts';
import { loadPlans } from '../../src/auth/plans.ts';
import type { StateStore } from '../../src/auth/store.ts';
import { BAD_CREDENTIALS_BURST } from '../../src/auth/throttle.ts';
import type { QuotaWindow } from '../../src/auth/windows.ts';
import { API_BASE, ROUTES } from '../../src/api/index.ts';
import { startServer, type RunningServer } from '../../src/server/server.ts';
import { fixtureDb } from '../helpers/fixture-db.ts';
import { heldMb, tally } from './helpers.ts';

/** Finding 6 of issue #16: the smaller items, each reproduced on loopback and checked fixed. */

let server: RunningServer;
let store: MemoryStore;
let gate: Gate;
let key: string;

beforeAll(async () => {
  store = new MemoryStore();
  gate = new Gate({ store, access: new AccessTable(loadPlans('a'), ROUTES, API_BASE) });
  key = generateKey();
  await store.addKey(hashKey(key), { name: 'attack', plan: 'professional', hint: keyHint(key), createdAt: new Date().toISOString() });
  server = await startServer({ db: await fixtureDb(), port: 0, host: '127.0.0.1', quiet: true, watch: false, log: () => {}, gate });
});
afterAll(async () => {
  await server.close();
  await gate.close();
});

/** One raw HTTP/1.1 request (headers exactly as written), and the status, headers and body of its answer. */
function raw(head: string, port = server.port): Promise<{ status: number; headers: Record<string, string>; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    socket.on('error', reject);
    socket.on('close', () => {
      const split = text.indexOf('\r\n\r\n');
      const [statusLine, ...lines] = text.slice(0, split).split('\r\n');
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(text.slice(split + 4)) });
    });
    socket.end(`${head}Connection: close\r\n\r\n`);
  });
}

describe('headers a request may send only once', () => {
  it('two Host headers: 400 bad_request (RFC 9112, 3.2), not counted', async () => {
    const before = await raw('GET /api/v1/states/ HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    const answer = await raw('GET /api/v1/states/ HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: evil.example\r\n');
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ error: 'bad_request', status: 400, message: 'The request has 2 Host headers; send exactly one (RFC 9112, section 3.2)' });
    // Not counted: the anonymous bucket's remaining calls are what the call before left.
    expect(answer.headers['x-ratelimit-remaining']).toBe(before.headers['x-ratelimit-remaining']);
  });

  it('two Authorization headers: 400 conflicting_credentials, never the first one silently', async () => {
    const answer = await raw(`GET /api/v1/health-scores/10001/all-scores/ HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nAuthorization: Bearer ${generateKey()}\r\n`);
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ error: 'conflicting_credentials', message: 'The request has 2 Authorization headers; send one API key, in one header' });
    const same = await raw(`GET /api/v1/states/ HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\nX-API-Key: ${key}\r\n`);
    expect(same.body).toMatchObject({ error: 'conflicting_credentials', status: 400 });
    // One of each, the same key: still fine (decisions.md).
    const both = await raw(`GET /api/v1/health-scores/10001/all-scores/ HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nX-API-Key: ${key}\r\n`);
    expect(both.status).toBe(200);
  });
});

/** A state that counts its reads. */
function countingStore(inner: StateStore): StateStore & { reads: { findKey: number; peek: number } } {
  const reads = { findKey: 0, peek: 0 };
  return Object.assign(Object.create(inner) as StateStore, {
    reads,
    findKey: (hash: string) => {
      reads.findKey++;
      return inner.findKey(hash);
    },
    peek: (subject: string, window: QuotaWindow) => {
      reads.peek++;
      return inner.peek(subject, window);
    },
  });
}

describe('a flood of requests with made-up keys', { timeout: 60_000 }, () => {
  it(`costs at most ${BAD_CREDENTIALS_BURST} state reads per address at once, then one a second; the rest are 429s that read nothing`, async () => {
    const store = countingStore(new MemoryStore());
    // The clock stands still: no read is earned back during the test, so the counts are exact.
    const flooded = new Gate({ store, access: new AccessTable(loadPlans('a'), ROUTES, API_BASE), now: () => Date.parse('2024-05-15T12:00:00Z') });
    const target = await startServer({ db: await fixtureDb(), port: 0, host: '127.0.0.1', quiet: true, watch: false, log: () => {}, gate: flooded, snapshotDir: false });
    try {
      const answers = [];
      for (let i = 0; i < 100; i++) answers.push(await raw(`GET /api/v1/states/ HTTP/1.1\r\nHost: x\r\nX-API-Key: ${generateKey()}\r\n`, target.port));
      expect(tally(answers)).toEqual({ 401: BAD_CREDENTIALS_BURST, 429: 100 - BAD_CREDENTIALS_BURST });
      expect(store.reads).toEqual({ findKey: BAD_CREDENTIALS_BURST, peek: BAD_CREDENTIALS_BURST });
      const throttled = answers.find((a) => a.status === 429)!;
      expect(throttled.headers['retry-after']).toBe('1');
      expect(throttled.body).toMatchObject({ error: 'rate_limited' });
      // Malformed keys from the same address: their 401 as ever, but no read for the headers either.
      expect((await raw('GET /api/v1/states/ HTTP/1.1\r\nHost: x\r\nX-API-Key: not-a-key\r\n', target.port)).status).toBe(401);
      expect(store.reads).toEqual({ findKey: BAD_CREDENTIALS_BURST, peek: BAD_CREDENTIALS_BURST });
      // A caller without a key from that address is served as ever.
      expect((await raw('GET /api/v1/states/ HTTP/1.1\r\nHost: x\r\n', target.port)).status).toBe(200);
    } finally {
      await target.close();
      await flooded.close();
    }
  });

  it('5,000 made-up keys from 5,000 addresses cost one read each, and the key cache stays within its 2 MiB', async () => {
    const store = countingStore(new MemoryStore());
    const flooded = new Gate({ store, access: new AccessTable(loadPlans('a'), ROUTES, API_BASE), proxies: new TrustedProxies(['127.0.0.1']) });
    const target = await startServer({ db: await fixtureDb(), port: 0, host: '127.0.0.1', quiet: true, watch: false, log: () => {}, gate: flooded, snapshotDir: false });
    try {
      for (let i = 0; i < 20; i++) await raw('GET /api/v1/states/ HTTP/1.1\r\nHost: x\r\n', target.port); // warm: what every server makes once
      const before = heldMb();
      const statuses = [];
      for (let i = 0; i < 5_000; i++) {
        const from = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
        const { status } = await raw(`GET /api/v1/states/ HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: ${from}\r\nX-API-Key: ${generateKey()}\r\n`, target.port);
        statuses.push({ status });
      }
      expect(tally(statuses)).toEqual({ 401: 5_000 });
      expect(store.reads.findKey).toBe(5_000);
      // Measured: about 3 MiB (the key cache's 2 MiB budget, full, and the throttle's buckets).
      expect(heldMb() - before).toBeLessThan(6);
    } finally {
      await target.close();
      await flooded.close();
    }
  });
});
