import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccessTable } from '../../src/auth/access.ts';
import { Gate } from '../../src/auth/gate.ts';
import { generateKey, hashKey, keyHint } from '../../src/auth/keys.ts';
import { MemoryStore } from '../../src/auth/memory-store.ts';
import { loadPlans } from '../../src/auth/plans.ts';
import { API_BASE, ROUTES } from '../../src/api/index.ts';
import { startServer, type RunningServer } from '../../src/server/server.ts';
import { fixtureDb } from '../helpers/fixture-db.ts';

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
function raw(head: string): Promise<{ status: number; headers: Record<string, string>; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(server.port, '127.0.0.1');
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
