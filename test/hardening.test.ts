import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccessTable } from '../src/auth/access.ts';
import { Gate } from '../src/auth/gate.ts';
import { MemoryStore } from '../src/auth/memory-store.ts';
import { parsePlans } from '../src/auth/plans.ts';
import { MAX_URL_LENGTH } from '../src/http/request-limits.ts';
import { NO_PARAMS, route } from '../src/http/route.ts';
import { API_BASE, ROUTES } from '../src/api/index.ts';
import { startServer, type RunningServer } from '../src/server/server.ts';
import { fixtureDb } from './helpers/fixture-db.ts';
import { bodyJson, request } from './helpers/http.ts';

/** A route whose handler fails the way a bug would: with SQL and a stack in the error. */
const boom = route({
  path: '/api/v1/test/boom/',
  exported: { write: 'server', why: 'a test route' },
  summary: 'Test only: throws',
  pathParams: NO_PARAMS,
  query: NO_PARAMS,
  handle: () => {
    throw new Error('SQLITE_ERROR: no such column: secret_column in SELECT secret_column FROM health_scores');
  },
});

const plans = parsePlans(
  {
    name: 'hardening',
    open: [],
    anonymous: { quota: 1_000_000, window: 'day', access: 'all' },
    plans: [{ id: 'all', quota: 1_000_000, window: 'day', endpoints: ['*'] }],
  },
  'inline',
);
const TIMEOUTS = { headersMs: 1_000, requestMs: 2_000, keepAliveMs: 1_000, checkIntervalMs: 200 };
const logged: Array<Record<string, unknown>> = [];
let server: RunningServer;
let port: number;

beforeAll(async () => {
  const routes = [...ROUTES, boom];
  const gate = new Gate({ store: new MemoryStore(), access: new AccessTable(plans, routes, API_BASE) });
  server = await startServer({
    db: await fixtureDb(),
    port: 0,
    host: '127.0.0.1',
    quiet: true,
    watch: false,
    log: (line) => logged.push(line as Record<string, unknown>),
    api: { routes },
    gate,
    timeouts: TIMEOUTS,
  });
  port = server.port;
});
afterAll(() => server.close());

/** Writes `chunks` to a raw connection (a pause of `gapMs` between them) and collects what comes back until the server closes. */
function raw(chunks: string[], gapMs = 0): Promise<{ text: string; closedAfterMs: number; chunksSent: number }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = net.connect(port, '127.0.0.1');
    let text = '';
    let sent = 0;
    let timer: NodeJS.Timeout | undefined;
    const sendNext = () => {
      if (sent >= chunks.length || socket.destroyed) return;
      socket.write(chunks[sent++]);
      timer = setTimeout(sendNext, gapMs);
    };
    socket.on('connect', sendNext);
    socket.on('data', (chunk) => (text += chunk.toString('latin1')));
    socket.on('error', (error: NodeJS.ErrnoException) =>
      error.code === 'ECONNRESET' || error.code === 'EPIPE' ? undefined : reject(error),
    );
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ text, closedAfterMs: Date.now() - started, chunksSent: sent });
    });
    // Bounded: a test never waits on a connection longer than this.
    setTimeout(() => socket.destroy(), 20_000).unref();
  });
}

/** The status line, headers and JSON body of a raw HTTP/1.1 answer. */
function parse(text: string) {
  const [head, body] = [text.slice(0, text.indexOf('\r\n\r\n')), text.slice(text.indexOf('\r\n\r\n') + 4)];
  const [statusLine, ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
  return { status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(body) };
}

describe('slow and malformed clients', { timeout: 30_000 }, () => {
  it('a slowloris client sending its headers byte by byte is cut off with a 408 (headersTimeout)', async () => {
    const request = 'GET /api/v1/states/ HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ' + 'a'.repeat(200) + '\r\n\r\n';
    const result = await raw([...request], 50); // would take 12 s to send
    expect(result.closedAfterMs).toBeLessThan(TIMEOUTS.headersMs + 3 * TIMEOUTS.checkIntervalMs + 1_000);
    expect(result.chunksSent).toBeLessThan(request.length);
    const answer = parse(result.text);
    expect(answer.status).toBe(408);
    expect(answer.body).toEqual({ error: 'request_timeout', message: expect.any(String), status: 408 });
    expect(answer.headers['x-ratelimit-limit']).toBe('1000000');
    expect(answer.headers['x-content-type-options']).toBe('nosniff');
    expect(answer.headers.connection).toBe('close');
  });

  it('a header section over 16 KiB is a 431 with the error shape', async () => {
    const result = await raw([`GET /api/v1/states/ HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(20_000)}\r\n\r\n`]);
    const answer = parse(result.text);
    expect(answer.status).toBe(431);
    expect(answer.body).toMatchObject({ error: 'headers_too_large', status: 431 });
    expect(answer.headers['x-ratelimit-remaining']).toMatch(/^\d+$/);
  });

  it('a request that is not HTTP is a 400 with the error shape', async () => {
    const answer = parse((await raw(['GET /api/v1/states/ HTTP/1.1\r\nHost: x\r\nBroken header line\r\n\r\n'])).text);
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ error: 'bad_request', status: 400 });
  });

  it('an idle keep-alive connection is closed (keepAliveTimeout)', async () => {
    const result = await raw(['GET /api/v1/states/ HTTP/1.1\r\nHost: x\r\n\r\n']);
    expect(result.text.startsWith('HTTP/1.1 200')).toBe(true);
    expect(result.closedAfterMs).toBeLessThan(TIMEOUTS.keepAliveMs + 2_000);
  });
});

describe('bad input gets a clear error, never a 500 or a hang', () => {
  it(`a request target over ${MAX_URL_LENGTH} characters is a 414`, async () => {
    const result = await request(server.url, `/api/v1/health-scores/?city=${'x'.repeat(MAX_URL_LENGTH)}`);
    expect(result.status).toBe(414);
    expect(bodyJson(result)).toEqual({
      error: 'uri_too_long',
      status: 414,
      message: `The request target is 2,076 characters long; at most 2,048 are accepted`,
    });
  });

  it('too many query parameters, or one too long, is a 400 naming the limit', async () => {
    const many = await request(server.url, `/api/v1/states/?${Array.from({ length: 33 }, (_, i) => `a${i}=1`).join('&')}`);
    expect(bodyJson(many)).toEqual({
      error: 'invalid_parameter',
      status: 400,
      message: 'the query string has 33 parameters; at most 32 are accepted',
    });
    const long = await request(server.url, `/api/v1/health-scores/?city=${'y'.repeat(600)}`);
    expect(bodyJson(long)).toEqual({
      error: 'invalid_parameter',
      status: 400,
      message: 'the query parameter city is 605 characters long; at most 512 are accepted',
    });
  });

  it('an unexpected error is a 500 internal_error without stack or SQL, logged in full', async () => {
    const result = await request(server.url, '/api/v1/test/boom/');
    expect(result.status).toBe(500);
    expect(bodyJson(result)).toEqual({
      error: 'internal_error',
      status: 500,
      message: 'The server could not answer this request; the error has been logged',
    });
    expect(result.body.toString()).not.toMatch(/SQLITE|SELECT|secret_column|at .*\.ts/);
    expect(result.headers['x-ratelimit-limit']).toBe('1000000');
    const logLine = logged.find((l) => l.event === 'error');
    expect(String(logLine?.error)).toContain('no such column: secret_column');
  });
});
