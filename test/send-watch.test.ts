import type { Server } from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SendWatch } from '../src/server/send-watch.ts';
import { createHttpServer } from '../src/server/transport.ts';

/**
 * The send watch's second rule: a connection on which no byte moves for the send timeout is cut. Node's
 * socket timeout did this before (server.timeout); the watch does it from its one timer instead, so no
 * timer is refreshed on every read and write. A connection that keeps moving is never cut, however long
 * its answer takes.
 */

const SEND_MS = 600;
const CHECK_MS = 100;
let server: Server;
let watch: SendWatch;
let port: number;

beforeAll(async () => {
  server = createHttpServer(
    (req, res) => {
      if (req.url === '/never') return; // an answer that never comes (a stalled producer, a hung handler)
      // A slow answer: a few bytes every CHECK_MS for three send timeouts, then the end.
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      let sent = 0;
      const timer = setInterval(() => {
        res.write('tick\n');
        if (++sent * CHECK_MS >= 3 * SEND_MS) {
          clearInterval(timer);
          res.end();
        }
      }, CHECK_MS);
      res.once('close', () => clearInterval(timer));
    },
    { sendMs: SEND_MS, checkIntervalMs: CHECK_MS },
  );
  watch = new SendWatch(SEND_MS, CHECK_MS);
  watch.attach(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as net.AddressInfo).port;
});
afterAll(async () => {
  watch.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** Sends one GET and resolves with what came back and how long the connection lived after the request. */
function get(path: string): Promise<{ text: string; ms: number }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let text = '';
    let sentMs = 0;
    socket.setEncoding('latin1');
    socket.on('connect', () => {
      sentMs = performance.now();
      socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    });
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve({ text, ms: performance.now() - sentMs }));
  });
}

describe('the send watch', { timeout: 20_000 }, () => {
  it('cuts a connection on which nothing moves for the send timeout, about when it ends', async () => {
    const { text, ms } = await get('/never');
    expect(text).toBe('');
    expect(ms).toBeGreaterThanOrEqual(SEND_MS - CHECK_MS);
    expect(ms).toBeLessThan(SEND_MS + 8 * CHECK_MS);
  });

  it('never cuts a connection that keeps moving, though its answer takes three send timeouts', async () => {
    const { text, ms } = await get('/slow');
    expect(ms).toBeGreaterThanOrEqual(3 * SEND_MS - CHECK_MS);
    expect(text).toMatch(/^HTTP\/1\.1 200 OK/);
    expect(text.match(/tick/g)?.length).toBe((3 * SEND_MS) / CHECK_MS);
  });
});
