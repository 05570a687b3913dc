/**
 * What each per-request step of the keyed ZIP lookup costs, in nanoseconds a call, measured in this process on
 * the real objects over the default build: the request id, the metrics, the rate-limit headers, the gate
 * (key verdict, quota counting of an unlimited plan, plan access), the response cache lookup and ETag check,
 * the request log line, and Node's own writing of the answer's headers. Each answer is checked before it is
 * timed. For scale, bench/request-path.ts prints the CPU a request of a bare Node server (most of it the
 * kernel's loopback TCP) and of hcas with the defaults; docs/BENCHMARKS.md keeps the figures measured.
 * Stand-alone: node bin/run-ts.js bench/request-costs.ts --db FILE
 */
import { closeSync, copyFileSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { API_BASE, Api, ROUTES } from '../src/api/index.ts';
import { AccessTable } from '../src/auth/access.ts';
import { rateHeaders, withHeaders, type Caller } from '../src/auth/answers.ts';
import { clientAddress, TrustedProxies } from '../src/auth/client-ip.ts';
import { Gate, type GateRequest } from '../src/auth/gate.ts';
import { generateKey, hashKey, keyHint, redactKeys } from '../src/auth/keys.ts';
import { loadPlans } from '../src/auth/plans.ts';
import { SqliteStore } from '../src/auth/sqlite-store.ts';
import { windowAt } from '../src/auth/windows.ts';
import type { ApiResponse } from '../src/http/response.ts';
import type { LiveApi } from '../src/server/live.ts';
import { isoTime, jsonLines } from '../src/server/log.ts';
import { logOutput } from '../src/server/log-output.ts';
import { requestLineBytes, writeRequestLine, type RequestRecord } from '../src/server/request-line.ts';
import { ServerMetrics } from '../src/server/metrics.ts';
import { RequestIds } from '../src/server/request-id.ts';
import { requestError } from '../src/server/request-headers.ts';
import { sampleZips } from './api.ts';
import { fmt, printTable, runDirectly } from './lib.ts';

const CALLS = 200_000;
/** Calls of an uncached answer a run (each makes its answer from SQLite: about a hundred times a cache hit). */
const UNCACHED_CALLS = 10_000;

/** Nanoseconds a call of `step`, the median of five runs of `calls` calls after a warm-up run. */
function timed(step: (i: number) => unknown, calls = CALLS): number {
  const runs: number[] = [];
  for (let run = 0; run < 6; run++) {
    const started = process.hrtime.bigint();
    for (let i = 0; i < calls; i++) step(i);
    if (run > 0) runs.push(Number(process.hrtime.bigint() - started) / calls);
  }
  return runs.sort((a, b) => a - b)[2];
}

/** Calls a server hands a step in one event-loop turn under the request-path bench's load (wrk, 32 connections). */
const TURN = 32;

/**
 * Nanoseconds a call of an asynchronous `step`, as `timed` measures, in turns of TURN calls each awaited
 * together: the gate counts a turn's calls in one batch and settles them after it, as in the server. Called
 * CALLS times without a wait, the pending answers piled up and the garbage collector's work on them was timed
 * (10 to 30 times the step's own cost, varying from run to run).
 */
async function timedTurns(step: (i: number) => unknown, calls = CALLS): Promise<number> {
  const runs: number[] = [];
  const turn: unknown[] = new Array(TURN);
  for (let run = 0; run < 6; run++) {
    const started = process.hrtime.bigint();
    for (let i = 0; i < calls; i += TURN) {
      for (let j = 0; j < TURN; j++) turn[j] = step(i + j);
      await Promise.all(turn);
    }
    if (run > 0) runs.push(Number(process.hrtime.bigint() - started) / calls);
  }
  return runs.sort((a, b) => a - b)[2];
}

/** Prints the cost of each step of a keyed lookup answered from the response cache. */
export async function benchRequestCosts(options: { db: string }): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'hcas-bench-costs-'));
  const api = Api.open(options.db);
  const store = new SqliteStore(path.join(dir, 'state.sqlite'));
  const plans = loadPlans('a');
  const gate = new Gate({ store, access: new AccessTable(plans, ROUTES, API_BASE) });
  const logFd = openSync(path.join(dir, 'requests.log'), 'w');
  try {
    const key = generateKey();
    await store.addKey(hashKey(key), { name: 'bench', plan: 'enterprise', hint: keyHint(key), createdAt: new Date().toISOString() });
    await gate.syncKeys();
    const urls = sampleZips(options.db).map((zip) => `/api/v1/health-scores/${zip}/`);
    const headers = { 'x-api-key': key, host: '127.0.0.1' };
    const keyed = (i: number): GateRequest => ({ method: 'GET', url: urls[i % urls.length], headers, remoteAddress: '127.0.0.1' });
    // Every answer made once (and checked): the timed calls are all cache hits, as under load.
    for (let i = 0; i < urls.length; i++) {
      const { response: answer } = await gate.respond(api, keyed(i));
      if (answer.status !== 200 || typeof JSON.parse(answer.body.toString('utf8')).healthscore !== 'number')
        throw new Error(`${urls[i]}: answered ${answer.status}`);
      if (answer.headers['X-RateLimit-Limit'] === undefined) throw new Error('the gate added no rate-limit headers');
    }
    const ids = new RequestIds();
    const proxies = new TrustedProxies();
    // The metrics' collectors read the live builds only when /metrics is scraped, never in record().
    const metrics = new ServerMetrics({} as LiveApi, () => gate.stats());
    const caller: Caller = { subject: 'key:1', plan: plans.plans[0], quota: null, window: 'month', who: 'bench', anonymous: false };
    const window = windowAt('month', Date.now());
    const rate = rateHeaders(caller, window, undefined);
    const cached = api.respond({ method: 'GET', url: urls[0] }) as ApiResponse;
    const etag = String(cached.headers.ETag);
    const answer = withHeaders(cached, rate, { 'X-Request-Id': 'x' });
    if (answer.text === undefined || !Buffer.from(answer.text, 'latin1').equals(answer.body))
      throw new Error('the cached answer has no text of its body');
    const rawHeaders = ['Host', '127.0.0.1:8080', 'User-Agent', 'curl/8.5.0', 'Accept', '*/*', 'X-API-Key', key];
    if (requestError(rawHeaders, 1, 1) !== undefined) throw new Error('a request with one of each header was refused');
    // A response as the server has one per request, without a socket: writeHead only builds the header block.
    const client = new IncomingMessage(new Socket());
    client.httpVersionMajor = 1;
    client.httpVersionMinor = 1;
    const record = (i: number): RequestRecord => ({
      time: isoTime(),
      level: 'info',
      request_id: ids.next(),
      method: 'GET',
      path: redactKeys(urls[i % urls.length]),
      route: '/api/v1/health-scores/:zip/',
      status: 200,
      duration_ms: 0.123,
      bytes: 723,
      client: clientAddress('127.0.0.1', undefined, proxies),
      key_id: 1,
      plan: 'enterprise',
    });
    const records = Array.from({ length: 1024 }, (_, i) => record(i));
    const logged = (log: ReturnType<typeof jsonLines>, i: number) => {
      // As the server logs a request: its record, written as bytes into the turn's batch.
      log.request(record(i));
      if ((i & 31) === 31) log.flush();
    };
    // An output that takes the bytes and drops them: the batching without the writes.
    const discard = jsonLines({ write: () => {}, close: async () => {}, flushSync: () => {} });
    const slab = Buffer.allocUnsafeSlow(64 * 1024);
    let slabAt = 0;
    const lineBytes = (line: RequestRecord) => {
      if (slabAt + requestLineBytes(line) > slab.length) slabAt = 0;
      slabAt = writeRequestLine(slab, slabAt, line);
    };
    lineBytes(records[0]);
    if (slab.toString('utf8', 0, slabAt) !== `${JSON.stringify(records[0])}\n`)
      throw new Error('writeRequestLine wrote other bytes than JSON.stringify');
    const toFile = jsonLines(logOutput(logFd));
    // The same ZIP lookups with no response cache, the database's locking mode as named; each answer checked
    // first. On a copy of the file that no other connection of this process has open: SQLite takes a file lock
    // only when the process holds none, so the connections above would hide what normal mode costs.
    const copy = path.join(dir, 'uncached.sqlite');
    copyFileSync(options.db, copy);
    const uncached = async (mode: 'EXCLUSIVE' | 'NORMAL'): Promise<number> => {
      const fresh = Api.open(copy, { cacheBytes: 0 });
      try {
        fresh.db.pragma(`locking_mode = ${mode}`);
        for (const url of urls) {
          const made = await fresh.respond({ method: 'GET', url });
          if (made.status !== 200) throw new Error(`${url}: answered ${made.status} uncached`);
        }
        // Awaited in turns: a route made off the event loop on a server answers here through a promise.
        return await timedTurns((i) => fresh.respond({ method: 'GET', url: urls[i % urls.length] }), UNCACHED_CALLS);
      } finally {
        fresh.retire();
      }
    };
    const rows: Array<[string, number, string]> = [
      [
        'request id (RequestIds.next)',
        timed(() => ids.next()),
        'kept: X-Request-Id ties a client report to a log line; a counter, no randomness',
      ],
      [
        'request check (requestError: version, Host, repeats)',
        timed(() => requestError(rawHeaders, 1, 1)),
        'kept: RFC 9112 3.2; no allocation',
      ],
      [
        'metrics (ServerMetrics.record)',
        timed((i) => metrics.record('/api/v1/health-scores/:zip/', 200, 'enterprise', i * 1e-7)),
        'kept: plain counters, summed only when scraped',
      ],
      [
        'rate-limit headers (withHeaders)',
        timed(() => withHeaders(cached, rate, { 'X-Request-Id': 'x' })),
        "kept: the contract; an unlimited plan's headers are made once a window",
      ],
      [
        'response cache + ETag (Api.respond, cached)',
        timed((i) => api.respond({ method: 'GET', url: urls[i % urls.length], headers })),
        'kept: answers without parsing or SQLite',
      ],
      [
        '  with If-None-Match (304)',
        timed(() => api.respond({ method: 'GET', url: urls[0], headers: { 'if-none-match': etag } })),
        'kept: the ETag itself is made once per entry',
      ],
      [
        'gate: key, quota count, plan (Gate.respond)',
        await timedTurns((i) => gate.respond(api, keyed(i))),
        'kept: includes the cached Api.respond above; timed in turns of 32 calls, each turn awaited',
      ],
      // Uncached (the server's response cache off): the lookup's SQL and its JSON, as every first request of a
      // URL and every list and search pays them. Each connection holds its read lock (src/query/database.ts);
      // the row below it takes the lock for each statement, SQLite's normal mode, for what that costs.
      ['uncached answer (Api.respond, SQL and JSON)', await uncached('EXCLUSIVE'), 'kept: the read lock held, not taken per statement'],
      ['  the lock taken per statement (normal mode)', await uncached('NORMAL'), ''],
      // A server hands the log its lines once per event-loop turn (about 32 under this load): so do these.
      ['request log line: record, bytes, batching', timed((i) => logged(discard, i)), 'kept: one line per request, the same fields'],
      ['  and written to a file', timed((i) => logged(toFile, i)), 'kept: off the event loop, in 64 KiB writes'],
      ['  the line alone (writeRequestLine)', timed((i) => lineBytes(records[i & 1023])), ''],
      ['  JSON.stringify of the record, for scale', timed((i) => JSON.stringify(records[i & 1023])), ''],
      // Last: a million response objects leave the heap slower for whatever is timed after them.
      [
        "headers written (writeHead, Node's checks)",
        timed(() => new ServerResponse(client).writeHead(200, answer.headers)),
        "Node's own: it checks each of the answer's 12 names and values (a flat list instead measured slower in the server)",
      ],
    ];
    await toFile.close();
    printTable(
      ['per-request step (keyed ZIP lookup, cache hit)', 'ns/call'],
      rows.map(([name, ns]) => [name, fmt(ns, 0)]),
    );
    for (const [name, , why] of rows) if (why) console.log(`  ${name.trim()}: ${why}`);
    console.log(`medians of 5 runs of ${CALLS.toLocaleString('en-US')} calls in this process, after a warm-up run`);
  } finally {
    closeSync(logFd);
    await gate.close();
    await store.close();
    api.retire();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (runDirectly(import.meta.filename)) {
  const i = process.argv.indexOf('--db');
  await benchRequestCosts({ db: i > 0 ? process.argv[i + 1] : 'dist-api/hcas.sqlite' });
}
