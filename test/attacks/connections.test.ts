import type net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TrustedProxies } from '../../src/auth/client-ip.ts';
import { startServer, type RunningServer } from '../../src/server/server.ts';
import { fixtureDb } from '../helpers/fixture-db.ts';
import { request } from '../helpers/http.ts';
import { connect, rssMb, tally, until } from './helpers.ts';

/**
 * Finding 2 (and "no cap on connections" of finding 6) of issue #16: nothing bounded the connections one
 * client, or all of them, could hold. Now each server process caps both; a connection over a cap gets its
 * answer at once and is closed.
 */

const PER_CLIENT = 10;
const TOTAL = 12;
/** Long enough that the idle connections of a test stay open while it counts them. */
const TIMEOUTS = { headersMs: 30_000, requestMs: 30_000, keepAliveMs: 30_000 };
let perClient: RunningServer;
let behindProxy: RunningServer;

beforeAll(async () => {
  const db = await fixtureDb();
  const common = { db, port: 0, host: '127.0.0.1', quiet: true, watch: false, log: () => {}, timeouts: TIMEOUTS };
  perClient = await startServer({ ...common, connections: { maxConnections: 1_000, maxPerClient: PER_CLIENT } });
  // Loopback is a trusted proxy here: its connections carry many clients, so only the total caps them.
  behindProxy = await startServer({
    ...common,
    proxies: new TrustedProxies(['127.0.0.1']),
    connections: { maxConnections: TOTAL, maxPerClient: 2 },
  });
});
afterAll(async () => {
  await Promise.all([perClient.close(), behindProxy.close()]);
});

/** Sends one request on an open connection and resolves with the status and body of the answer (0: none). */
function ask(socket: net.Socket): Promise<{ status: number; body: string; headers: string }> {
  return new Promise((resolve) => {
    let text = '';
    const done = () => {
      const split = text.indexOf('\r\n\r\n');
      resolve({ status: Number(text.slice(9, 12)) || 0, headers: text.slice(0, split), body: text.slice(split + 4) });
    };
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    socket.once('close', done);
    socket.on('error', () => {});
    socket.write('GET /api/v1/states/ HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n', () => {});
    setTimeout(() => socket.destroy(), 20_000).unref();
  });
}

/** Opens `count` connections one after another (so they arrive in order) and keeps them idle. */
async function open(server: RunningServer, count: number): Promise<net.Socket[]> {
  const sockets: net.Socket[] = [];
  for (let i = 0; i < count; i++) sockets.push(await connect(server.port));
  return sockets;
}

describe('connection caps', { timeout: 60_000 }, () => {
  it(`a client past ${PER_CLIENT} connections: exactly the ones over the cap are answered 429 too_many_connections and closed`, async () => {
    const sockets = await open(perClient, PER_CLIENT + 5);
    const answers = await Promise.all(sockets.map(ask));
    expect(tally(answers)).toEqual({ 200: PER_CLIENT, 429: 5 });
    expect(answers.slice(0, PER_CLIENT).every((a) => a.status === 200)).toBe(true);
    const refused = answers.find((a) => a.status === 429)!;
    expect(JSON.parse(refused.body)).toMatchObject({ error: 'too_many_connections', status: 429 });
    expect(refused.headers).toMatch(/\r\nRetry-After: 1\r\n/);
    // Closed connections are counted out: the client gets its share back.
    await until(async () => (await request(perClient.url, '/api/v1/states/')).status === 200, 'a connection to be admitted again');
  });

  it(`the process past ${TOTAL} connections: the ones over the cap are answered 503 server_busy; a trusted proxy is capped by the total only`, async () => {
    const sockets = await open(behindProxy, TOTAL + 3);
    const answers = await Promise.all(sockets.map(ask));
    expect(tally(answers)).toEqual({ 200: TOTAL, 503: 3 });
    expect(JSON.parse(answers.find((a) => a.status === 503)!.body)).toMatchObject({ error: 'server_busy', status: 503 });
  });

  it('a flood of 2,000 connections from one address leaves the server serving and its memory flat', async () => {
    const held = await open(perClient, PER_CLIENT);
    const before = rssMb(process.pid);
    const statuses: number[] = [];
    for (let i = 0; i < 2_000; i++) {
      const socket = await connect(perClient.port);
      statuses.push((await ask(socket)).status);
    }
    expect(tally(statuses.map((status) => ({ status })))).toEqual({ 429: 2_000 });
    // Measured: a few MiB (sockets refused are closed within a second).
    expect(rssMb(process.pid) - before).toBeLessThan(48);
    const answers = await Promise.all(held.map(ask));
    expect(answers.every((a) => a.status === 200)).toBe(true);
  });
});
