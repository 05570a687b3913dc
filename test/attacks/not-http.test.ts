import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccessTable } from '../../src/auth/access.ts';
import { Gate } from '../../src/auth/gate.ts';
import { MemoryStore } from '../../src/auth/memory-store.ts';
import { loadPlans } from '../../src/auth/plans.ts';
import { API_BASE, ROUTES } from '../../src/api/index.ts';
import { startServer, type RunningServer } from '../../src/server/server.ts';
import { fixtureDb } from '../helpers/fixture-db.ts';

/**
 * Point 8 of issue #44: requests that are not valid HTTP/1.1 got no JSON error. HTTP/1.1 without `Host` got
 * Node's bare 400 (empty body, no rate-limit headers); `CONNECT host:22` and an HTTP/0.9 line got no answer,
 * the connection just closed. Each now gets `400 bad_request` in the API's error shape, with the rate-limit
 * headers of the client's anonymous window, uncounted, and the connection is closed.
 */

let server: RunningServer;
let gate: Gate;

beforeAll(async () => {
  gate = new Gate({ store: new MemoryStore(), access: new AccessTable(loadPlans('a'), ROUTES, API_BASE) });
  server = await startServer({ db: await fixtureDb(), port: 0, host: '127.0.0.1', quiet: true, watch: false, log: () => {}, gate });
});
afterAll(async () => {
  await server.close();
  await gate.close();
});

/**
 * Sends `bytes` exactly as written (then closes its side, when `halfClose`), and reads the answer until the
 * server closes the connection (or 4 s pass).
 */
function exchange(
  bytes: string,
  halfClose = false,
): Promise<{ status: number; headers: Record<string, string>; body: string; closed: boolean }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(server.port, '127.0.0.1', () => (halfClose ? socket.end(bytes) : socket.write(bytes)));
    let text = '';
    const gaveUp = setTimeout(() => socket.destroy(), 4_000);
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    socket.on('error', reject);
    socket.on('close', () => {
      clearTimeout(gaveUp);
      const split = text.indexOf('\r\n\r\n');
      const [statusLine = '', ...lines] = text.slice(0, Math.max(0, split)).split('\r\n');
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: split < 0 ? '' : text.slice(split + 4), closed: text !== '' });
    });
  });
}

describe('requests that are not valid HTTP/1.1', () => {
  it.each([
    ['HTTP/1.1 without Host', 'GET /api/v1/states/ HTTP/1.1\r\nAccept: */*\r\n\r\n', false, /must carry a Host header/],
    ['CONNECT to another port', 'CONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: 127.0.0.1:22\r\n\r\n', false, /this server is not a proxy/],
    ['an HTTP/0.9 request line', 'GET /api/v1/states/\r\n\r\n', false, /^HTTP\/0\.9 requests are not served/],
    // Without the blank line, the parser waits for headers: the 408 of the header timeout (10 s) answers it.
    ['an HTTP/0.9 request line, then the end of its sending', 'GET /api/v1/states/\r\n', true, /not valid HTTP\/1\.1/],
    ['HTTP/2.0 written as text', 'GET /api/v1/states/ HTTP/2.0\r\nHost: x\r\n\r\n', false, /^HTTP\/2\.0 requests are not served/],
  ])('%s: 400 bad_request in JSON with the rate-limit headers, not counted, connection closed', async (_, bytes, halfClose, message) => {
    const before = await exchange('GET /api/v1/states/ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    const answer = await exchange(bytes, halfClose);
    expect(answer.status, answer.body).toBe(400);
    expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(answer.headers.connection).toBe('close');
    const body = JSON.parse(answer.body) as { error: string; status: number; message: string };
    expect([body.error, body.status]).toEqual(['bad_request', 400]);
    expect(body.message).toMatch(message);
    expect(answer.headers['x-ratelimit-limit']).toBe('100');
    expect(answer.headers['x-ratelimit-remaining']).toBe(before.headers['x-ratelimit-remaining']);
  });
});
