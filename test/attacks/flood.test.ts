import http from 'node:http';
import { rmSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/files.ts';
import { fixtureDb } from '../helpers/fixture-db.ts';
import { request } from '../helpers/http.ts';
import { anonymousFloodPath, keyedFloodPath, openLoop, percentile, type Landed, type Shot } from '../helpers/open-loop.ts';
import { raisePriority } from '../helpers/priority.ts';
import { ServerProcess, serveArgs } from '../helpers/process.ts';
import { seeded } from '../helpers/seeded.ts';
import { createKey, nationalCopy, othersCores, tally } from './helpers.ts';

/**
 * Point 1 of issue #30: uncached list queries blocked everyone. 391 requests in 15 s from eight anonymous
 * addresses, well inside their quotas, each a distinct combination of filters and pages, took a keyed
 * client reading one cached ZIP from p99 0.9 ms to p99 1,136 ms: every such query ran on the event loop,
 * 23-115 ms each, with no bound on how many. Here every list and search endpoint is flooded at a fixed
 * rate (open loop, twice the audit's) from twelve addresses within their quotas and a Business key, while a
 * keyed client reads a cached ZIP at a fixed rate: its p99 during the flood must stay within
 * `FLOOD_ALLOWANCE_MS` of its p99 in the quiet moments just before and after it (the same run, the same
 * machine: no absolute time is judged), and every flood request gets an answer (an answer, a 404 past the
 * last page, or a 503 with Retry-After when the query workers are full). An attempt whose quiet moments were
 * not quiet (other processes holding the cores) is measured again.
 *
 * The file runs alone, after the other test files (vitest.config.ts): beside them it failed CI runs even with
 * its priority raised. Where this user may raise a process's priority (root, as CI runs), its process, and so
 * the server it starts, also runs above anything else on the machine (test/helpers/priority.ts).
 */

const dir = tempDir('hcas-attack-flood-');
const ADDRESSES = 12;
/** Each address stays inside the anonymous quota of 100 calls a day. */
const PER_ADDRESS = 60;
const KEYED_FLOOD = 80;
const FLOOD_SECONDS = 15;
const PROBES_PER_SECOND = 40;
let server: ServerProcess;
let url: string;
let reader: string;
let business: string;
let zips: string[];
/** Puts this process's priority back (undefined: it was not raised, and the file runs alone). */
let restorePriority: (() => void) | undefined;

beforeAll(async () => {
  // Before the server starts: it inherits the priority, its workers and their threads too.
  restorePriority = raisePriority();
  const db = nationalCopy(await fixtureDb(), path.join(dir, 'hcas.sqlite'));
  const file = new Database(db, { readonly: true });
  zips = (file.prepare('SELECT zip_code FROM zips ORDER BY zip_code').pluck().all() as string[]).filter((_, i) => i % 97 === 0);
  file.close();
  const stateFile = path.join(dir, 'state.sqlite');
  const state = ['--state-file', stateFile];
  reader = await createKey(stateFile, 'professional', 'reader');
  business = await createKey(stateFile, 'business', 'flooder');
  server = new ServerProcess(serveArgs(db, '--trust-proxy', '127.0.0.1', '--snapshot-dir', dir, ...state));
  url = (await server.waitFor((e) => e.event === 'listening')).url as string;
}, 60_000);
afterAll(() => {
  server?.stop();
  restorePriority?.();
  rmSync(dir, { recursive: true, force: true });
});

/** The keyed client: one keep-alive connection, the same cached ZIP at a fixed rate. */
function readCachedZip(agent: http.Agent, seconds: number): Promise<Landed[]> {
  return openLoop(url, PROBES_PER_SECOND, PROBES_PER_SECOND * seconds, () => ({
    path: '/api/v1/health-scores/10001/',
    headers: { 'X-API-Key': reader },
    agent,
  }));
}

/** A quiet phase, the flood (from `network`.1-12 and the Business key), and a quiet phase again. */
async function attempt(network: string) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  const before = await readCachedZip(agent, 3);
  const random = seeded(30);
  const agents = Array.from({ length: ADDRESSES + 1 }, () => new http.Agent({ keepAlive: true, maxSockets: 16 }));
  const total = ADDRESSES * PER_ADDRESS + KEYED_FLOOD;
  let anonymous = 0;
  const flood = openLoop(url, total / FLOOD_SECONDS, total, (i): Shot => {
    // The Business key's requests are spread evenly through the flood; the others go round the addresses.
    if (Math.floor(((i + 1) * KEYED_FLOOD) / total) > Math.floor((i * KEYED_FLOOD) / total))
      return { path: keyedFloodPath(i, random, zips), headers: { 'X-API-Key': business }, agent: agents[ADDRESSES] };
    const address = anonymous++ % ADDRESSES;
    return {
      path: anonymousFloodPath(anonymous, random, zips),
      headers: { 'X-Forwarded-For': `${network}.${address + 1}` },
      agent: agents[address],
    };
  });
  const during = await readCachedZip(agent, FLOOD_SECONDS - 1);
  const flooded = await flood;
  const after = await readCachedZip(agent, 3);
  for (const a of [agent, ...agents]) a.destroy();
  const ms = (landed: Landed[]) => landed.map((l) => l.latencyMs);
  const quiet = [...ms(before), ...ms(after)];
  return {
    during,
    flooded,
    summary: {
      idle: { p50: percentile(quiet, 50), p99: percentile(quiet, 99) },
      flood: { p50: percentile(ms(during), 50), p99: percentile(ms(during), 99) },
      floodAnswers: tally(flooded),
      floodP99: percentile(ms(flooded), 99),
    },
  };
}

/**
 * What the flood may add to the keyed client's p99 over its quiet p99: the work of answering a flood beside it
 * on two cores (16 against 6 ms on a quiet machine). The flaw this guards against added a second (1,136 ms).
 */
const FLOOD_ALLOWANCE_MS = 40;
const withinAllowance = (summary: { idle: { p99: number }; flood: { p99: number } }) =>
  summary.flood.p99 < summary.idle.p99 + FLOOD_ALLOWANCE_MS;
/** An idle p99 above this means the machine is too busy (other processes) for the flood's p99 to say anything. */
const QUIET_IDLE_P99_MS = 20;
/**
 * Other processes keeping more than this many cores busy during an attempt make it inconclusive (the machine
 * has two), unless the server and client run above them (then the quiet phases' p99 says whether they got a
 * core when they woke).
 */
const BUSY_OTHERS_CORES = 0.5;
/**
 * Past this share of an attempt in which some process waited for the disk, the attempt is inconclusive
 * whatever the priorities: other test files writing tens of thousands of files make the server's own small
 * writes wait (a CI run saw a p99 of 651 ms beside them, 7 ms alone).
 */
const BUSY_DISK_SHARE = 0.1;

describe('a flood of uncached list and search requests', { timeout: 180_000 }, () => {
  it('leaves a keyed client reading a cached ZIP within 40 ms of its quiet p99, and every flood request is answered', async () => {
    expect((await request(url, '/api/v1/health-scores/10001/', { headers: { 'X-API-Key': reader } })).status).toBe(200);
    // Up to three attempts, each from addresses of its own (their quotas are per day): a machine busy with
    // other work (a slow idle phase, or other processes holding the cores during the attempt) is measured
    // again; a failure on a quiet machine is final.
    let result: Awaited<ReturnType<typeof attempt>> | undefined;
    let conclusive = false;
    const summaries = [];
    for (const network of ['203.0.113', '198.51.100', '192.0.2']) {
      const measured = await othersCores(
        () => [server.pid],
        () => attempt(network),
      );
      result = measured.result;
      summaries.push({
        ...result.summary,
        othersCores: Number(measured.othersCores.toFixed(2)),
        ioStalled: Number(measured.ioStalled.toFixed(3)),
        raisedPriority: restorePriority !== undefined,
      });
      console.log(
        `cached keyed lookup under a flood of ${result.flooded.length} uncached list requests: ${JSON.stringify(summaries.at(-1))}`,
      );
      conclusive =
        result.summary.idle.p99 < QUIET_IDLE_P99_MS &&
        (measured.othersCores <= BUSY_OTHERS_CORES || restorePriority !== undefined) &&
        !(measured.ioStalled > BUSY_DISK_SHARE);
      if (withinAllowance(result.summary) || conclusive) break;
    }
    const { during, flooded, summary } = result!;
    // Each probe not answered 200: its status (0 with the network error's code), when it was due and how long it took.
    const missed = during.flatMap((l, i) => (l.status === 200 ? [] : [{ ...l, dueSeconds: i / PROBES_PER_SECOND }]));
    expect(missed, JSON.stringify(summaries)).toEqual([]);
    if (!withinAllowance(summary) && !conclusive) {
      // Other processes held the cores in every attempt: the latency says nothing about the server. Said loudly;
      // under CI=true (a machine of its own) it is a failure, never a silent pass.
      const line = '!'.repeat(100);
      console.warn(
        `\n${line}\n!! NOT JUDGED: the flood p99 (other processes kept the cores or the disk busy in every attempt): ${JSON.stringify(summaries)}\n${line}\n`,
      );
      expect(process.env.CI, 'CI=true: the flood must be measured on a quiet machine').not.toBe('true');
    } else {
      expect(summary.flood.p99, JSON.stringify(summaries)).toBeLessThan(summary.idle.p99 + FLOOD_ALLOWANCE_MS);
    }
    // Every flood request was answered; a refusal says when to come back.
    expect(flooded.filter((l) => l.status === 0 || l.status >= 500).every((l) => l.status === 503 && l.retryAfter !== undefined)).toBe(
      true,
    );
    expect(flooded.filter((l) => l.status === 200).length).toBeGreaterThan(flooded.length / 2);
    expect(flooded.some((l) => l.status === 429)).toBe(false);
  });
});
