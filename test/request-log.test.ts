import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, constants, openSync, readFileSync, readSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { jsonLines } from '../src/server/log.ts';
import { ATOMIC_WRITE_BYTES } from '../src/server/log-output.ts';
import { requestLineBytes, writeRequestLine, type RequestRecord } from '../src/server/request-line.ts';
import { logOutput, MAX_HELD_BYTES } from '../src/server/log-output.ts';
import { CRASH_KEY } from './helpers/crash-server.ts';
import { until } from './attacks/helpers.ts';
import { tempDir } from './helpers/files.ts';
import { seeded } from './helpers/seeded.ts';
import { fixtureDb } from './helpers/fixture-db.ts';
import { request } from './helpers/http.ts';

// The request log is written in the background (src/server/log-output.ts): these tests start real server
// processes with stdout on a file, as `hcas serve > requests.log` has it, and count every line after the
// process ends, whichever way it ends.
const root = path.resolve(import.meta.dirname, '..');
const dir = tempDir('hcas-request-log-');
/** A key sent percent-encoded in the query by mistake: it must never reach the log in any spelling. */
const QUERY_KEY = `hcas_live_${'Q'.repeat(32)}`;
const ENCODED_KEY = encodeURIComponent(QUERY_KEY).replaceAll('_', '%5F');
const running: ChildProcess[] = [];
let db: string;

beforeAll(async () => {
  db = await fixtureDb();
});
afterEach(() => {
  for (const child of running.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

interface Started {
  child: ChildProcess;
  url: string;
  file: string;
  exited: Promise<number | null>;
  stderr: () => string;
}

/** Starts `node ARGS` with stdout on a file of its own, and waits for the line saying it listens. */
async function start(name: string, args: string[]): Promise<Started> {
  const file = path.join(dir, `${name}.log`);
  const fd = openSync(file, 'w');
  const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', fd, 'pipe'] });
  closeSync(fd);
  running.push(child);
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const deadline = Date.now() + 30_000;
  for (;;) {
    const listening = records(file).find((line) => line.event === 'listening');
    if (listening) return { child, url: listening.url as string, file, exited, stderr: () => stderr };
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`${name} did not start: ${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function records(file: string): Array<Record<string, unknown>> {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** `count` requests, eight at a time, every third with a percent-encoded key in the query. */
async function traffic(url: string, count: number): Promise<void> {
  for (let sent = 0; sent < count; sent += 8) {
    await Promise.all(
      Array.from({ length: Math.min(8, count - sent) }, (_, i) =>
        request(url, (sent + i) % 3 === 0 ? `/api/v1/health-scores/02801/?api_key=${ENCODED_KEY}` : '/api/v1/health-scores/02801/'),
      ),
    );
  }
}

describe('the request log', { timeout: 90_000 }, () => {
  it('loses no line when the server stops on SIGTERM: two workers, stdout on a file', async () => {
    const server = await start('sigterm', [
      'bin/hcas.js',
      'serve',
      '--db',
      db,
      '--port',
      '0',
      '--workers',
      '2',
      '--no-limits',
      '--no-watch',
    ]);
    await traffic(server.url, 400);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    const lines = records(server.file);
    const requests = lines.filter((line) => line.request_id !== undefined);
    expect(requests).toHaveLength(400);
    expect(new Set(requests.map((line) => line.request_id)).size).toBe(400);
    // Same fields as before the log went asynchronous.
    expect(Object.keys(requests[0]).sort()).toEqual(
      ['bytes', 'client', 'duration_ms', 'level', 'method', 'path', 'request_id', 'route', 'status', 'time'].sort(),
    );
    // Every process said it stopped (two workers and the primary), after its last request line.
    expect(lines.filter((line) => line.event === 'stopped')).toHaveLength(3);
    const text = readFileSync(server.file, 'utf8');
    expect(text).not.toContain(QUERY_KEY);
    expect(text).not.toContain(ENCODED_KEY);
    expect(requests.filter((line) => line.path === '/api/v1/health-scores/02801/?api_key=hcas_live_[redacted]')).toHaveLength(134);
  });

  it('loses no line when an uncaught exception ends the process, and logs it redacted', async () => {
    const server = await start('crash', ['bin/run-ts.js', 'test/helpers/crash-server.ts', '--db', db]);
    await traffic(server.url, 200);
    expect((await request(server.url, '/api/v1/test/crash/')).status).toBe(200);
    expect(await server.exited).toBe(1);
    const lines = records(server.file);
    expect(lines.filter((line) => line.request_id !== undefined)).toHaveLength(201);
    const fatal = lines.find((line) => line.event === 'fatal');
    expect(fatal).toMatchObject({ level: 'error', pid: server.child.pid });
    expect(fatal?.error).toContain('test crash while holding hcas_live_[redacted]');
    expect(fatal?.error).toContain('crash-server.ts');
    expect(readFileSync(server.file, 'utf8')).not.toContain(CRASH_KEY);
    // Node's own report stays on stderr, as without the handler.
    expect(server.stderr()).toContain('test crash while holding');
  });
});

describe('writeRequestLine', () => {
  it('writes exactly what JSON.stringify writes, for any text in any field', () => {
    const random = seeded(33);
    // Printable ASCII, quotes, backslashes, control characters, DEL, Latin-1, CJK, emoji and lone surrogates.
    const alphabet = [
      'a',
      'Z',
      '0',
      '/',
      '?',
      '%',
      ' ',
      '"',
      '\\',
      '\n',
      '\t',
      '\u0000',
      '\u001f',
      '\u007f',
      'é',
      '\u00ff',
      '中',
      '😀',
      '\ud800',
      '\udfff',
    ];
    const text = () => Array.from({ length: Math.floor(random() * 12) }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
    // Durations as the server rounds them, and the ones it never makes (they go as JSON.stringify writes them).
    const durations = [
      0,
      -0,
      0.001,
      0.01,
      0.1,
      0.12,
      1,
      10,
      999.999,
      1000.5,
      123456789.001,
      1e12 + 0.5,
      1e21,
      0.0001,
      1 / 3,
      -1,
      NaN,
      Infinity,
    ];
    for (let i = 0; i < 2_000; i++) {
      const record: RequestRecord = {
        // The line's first bytes are kept while the time and level repeat: runs of lines share them, then change.
        time: new Date(1_700_000_000_000 + Math.floor(i / 3) * 997).toISOString(),
        level: i % 11 === 0 ? 'debug' : 'info',
        request_id: i % 3 === 0 ? text() : `46c8934777ba${i.toString(36)}`,
        method: i % 5 === 0 ? text() : 'GET',
        path: `/api/v1/${text()}`,
        route: i % 4 === 0 ? undefined : text(),
        status: [200, 304, 404, 429, 500][i % 5],
        duration_ms: i % 4 === 3 ? durations[Math.floor(i / 4) % durations.length] : Math.round(random() * 1e9) / 1000,
        bytes: i % 9 === 0 ? [0, 9, 10, 99, 100, 2 ** 53, -5, 1.5][i % 8] : Math.floor(random() * 1e6),
        client: i % 7 === 0 ? text() : '203.0.113.9',
        key_id: i % 2 === 0 ? undefined : i,
        plan: i % 3 === 1 ? undefined : text(),
      };
      // Within the room it asks for.
      const slab = Buffer.alloc(requestLineBytes(record));
      expect(slab.subarray(0, writeRequestLine(slab, 0, record)).toString('utf8')).toBe(`${JSON.stringify(record)}\n`);
    }
  });
});

describe('the batched lines', () => {
  it('go out in order, in chunks that end at a line and stay within PIPE_BUF unless one line is longer', () => {
    const chunks: string[] = [];
    const log = jsonLines({ write: (chunk: string) => chunks.push(chunk) });
    const record = (i: number, path = `/api/v1/states/?n=${i}`): RequestRecord => ({
      time: '2026-01-01T00:00:00.000Z',
      level: 'info',
      request_id: `r${i}`,
      method: 'GET',
      path,
      status: 200,
      duration_ms: 0.1,
      bytes: 10,
      client: '127.0.0.1',
    });
    const expected: string[] = [];
    // Three turns' worth: about 90 KB (more than a block of 64 KiB), a 10 KB line, an event between them.
    for (let i = 0; i < 1_200; i++) {
      const line = i === 700 ? record(i, `/api/v1/${'é"'.repeat(5_000)}`) : record(i);
      log.request(line);
      expected.push(`${JSON.stringify(line)}\n`);
      if (i === 500) {
        log({ level: 'warn', event: 'reload_failed', n: i });
        expected.push(`${JSON.stringify({ level: 'warn', event: 'reload_failed', n: i })}\n`);
      }
      if (i % 400 === 399) log.flush();
    }
    log.flush();
    expect(chunks.join('')).toBe(expected.join(''));
    for (const chunk of chunks) {
      expect(chunk.endsWith('\n')).toBe(true);
      if (Buffer.byteLength(chunk) > ATOMIC_WRITE_BYTES) expect(chunk.indexOf('\n')).toBe(chunk.length - 1);
    }
    expect(chunks.length).toBeGreaterThan(20);
  });
});

describe('the log output', () => {
  it('writes lines in order, in few writes, and all of them on close', async () => {
    const file = path.join(dir, 'output.log');
    const fd = openSync(file, 'w');
    const log = jsonLines(logOutput(fd));
    for (let i = 0; i < 5_000; i++) log({ time: 't', level: 'info', n: i });
    await log.close();
    closeSync(fd);
    expect(records(file).map((line) => line.n)).toEqual(Array.from({ length: 5_000 }, (_, i) => i));
  });

  it('writes an event line at once, after every request line held before it, through a pipe in PIPE_BUF writes', async () => {
    const fifo = path.join(dir, 'event.fifo');
    execFileSync('mkfifo', [fifo]);
    const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    const writer = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
    // Request lines would wait a minute for a write to fill: only the event can make them go.
    const log = jsonLines(logOutput(writer, MAX_HELD_BYTES, 60_000));
    const record = (i: number): RequestRecord => ({
      time: '2026-01-01T00:00:00.000Z',
      level: 'info',
      request_id: `r${i}`,
      method: 'GET',
      path: `/api/v1/states/?n=${i}`,
      status: 200,
      duration_ms: 0.1,
      bytes: 10,
      client: '127.0.0.1',
    });
    // About 30 KB of request lines: several writes of at most 4 KiB each must follow one another.
    for (let i = 0; i < 200; i++) log.request(record(i));
    log({ time: 't', level: 'warn', event: 'reload_failed' });
    let text = '';
    const buffer = Buffer.alloc(65_536);
    await until(
      () => {
        for (;;) {
          try {
            const read = readSync(reader, buffer);
            if (read === 0) break;
            text += buffer.toString('utf8', 0, read);
          } catch {
            break; // EAGAIN: nothing more for now
          }
        }
        return text.includes('reload_failed');
      },
      'the event line to be written',
      5_000,
    );
    const lines = text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.map((line) => line.request_id ?? line.event)).toEqual([
      ...Array.from({ length: 200 }, (_, i) => `r${i}`),
      'reload_failed',
    ]);
    log.flushSync();
    closeSync(writer);
    closeSync(reader);
  });

  it('writes what it holds synchronously when the process is about to end', () => {
    const file = path.join(dir, 'sync.log');
    const fd = openSync(file, 'w');
    const log = jsonLines(logOutput(fd));
    for (let i = 0; i < 100; i++) log({ level: 'info', n: i });
    log.flushSync();
    closeSync(fd);
    expect(records(file)).toHaveLength(100);
  });

  it('drops lines past its memory bound when the reader stalls, and says how many once it reads again', async () => {
    const fifo = path.join(dir, 'stalled.fifo');
    execFileSync('mkfifo', [fifo]);
    const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    const writer = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
    const line = `${JSON.stringify({ level: 'info', pad: 'x'.repeat(200) })}\n`;
    const output = logOutput(writer, 256 * 1024);
    // The pipe takes 64 KiB, the output holds 256 KiB more: of 2,000 lines of 228 bytes, about 600 are dropped.
    for (let i = 0; i < 2_000; i++) output.write(line);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const drain = () => {
      let text = '';
      const buffer = Buffer.alloc(65_536);
      for (;;) {
        try {
          const read = readSync(reader, buffer);
          if (read === 0) return text;
          text += buffer.toString('utf8', 0, read);
        } catch {
          return text; // EAGAIN: nothing more for now
        }
      }
    };
    let text = '';
    for (let i = 0; i < 40; i++) {
      text += drain();
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    output.write(line);
    await output.close();
    text += drain();
    closeSync(writer);
    closeSync(reader);
    const lines = text
      .trim()
      .split('\n')
      .map((each) => JSON.parse(each) as Record<string, unknown>);
    const note = lines.find((each) => each.event === 'log_lines_dropped');
    const kept = lines.filter((each) => each.pad !== undefined).length;
    expect(note).toMatchObject({ level: 'warn' });
    expect(kept + (note?.count as number)).toBe(2_001);
    expect(note?.count).toBeGreaterThan(400);
  });
});
