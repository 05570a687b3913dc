/**
 * Degradation benchmark (issue #30, point 1): a keyed client reads one cached ZIP at a fixed rate (open
 * loop: each request sent when due, timed from then, whatever is outstanding), first with nothing else
 * running (the baseline, measured in the same run), then while every list and search endpoint is flooded
 * with distinct uncached parameter combinations from 12 anonymous addresses within their daily quota and a
 * Business key (test/helpers/open-loop.ts, as test/attacks/flood.test.ts sends them). Prints the cached
 * lookup's p50, p99 and max idle and under the flood, and what the flood got. Target: p99 under 50 ms.
 * Stand-alone: node bin/run-ts.js bench/flood.ts --db FILE [--seconds N]
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { anonymousFloodPath, keyedFloodPath, openLoop, percentile, type Landed, type Shot } from '../test/helpers/open-loop.ts';
import { serveArgs } from '../test/helpers/process.ts';
import { seeded } from '../test/helpers/seeded.ts';
import { fetchBody, fmt, printTable, sampleZips, startProcess } from './api.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const HCAS = path.join(ROOT, 'bin/hcas.js');
const ADDRESSES = 12;
/** Calls per anonymous address: inside its quota of 100 a day. */
const PER_ADDRESS = 95;
const PROBES_PER_SECOND = 100;
const TARGET_P99_MS = 50;

/** Runs the benchmark and prints its table. */
export async function benchFlood(options: { db: string; seconds?: number }): Promise<void> {
  const seconds = options.seconds ?? 10;
  const dir = mkdtempSync(path.join(tmpdir(), 'hcas-bench-flood-'));
  const state = ['--state-file', path.join(dir, 'state.sqlite')];
  const key = (plan: string) =>
    execFileSync(process.execPath, [HCAS, 'keys', 'create', '--plan', plan, '--name', `bench ${plan}`, ...state], {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  const reader = key('professional');
  const business = key('business');
  const server = await startProcess(serveArgs(options.db, '--trust-proxy', '127.0.0.1', ...state));
  try {
    const zips = sampleZips(options.db).slice(0, 500);
    const lookup = '/api/v1/health-scores/10001/';
    const checked = await fetchBody(`${server.url}${lookup}`, { 'X-API-Key': reader });
    if (checked.status !== 200 || typeof JSON.parse(checked.body.toString('utf8')).healthscore !== 'number')
      throw new Error(`the cached lookup answered ${checked.status}: ${checked.body.toString('utf8').slice(0, 200)}`);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
    const probe = (secs: number) =>
      openLoop(server.url, PROBES_PER_SECOND, PROBES_PER_SECOND * secs, () => ({ path: lookup, headers: { 'X-API-Key': reader }, agent }));
    await probe(1); // warm-up: connections, JIT
    const idle = await probe(seconds);

    const random = seeded(30);
    const keyed = Math.round((ADDRESSES * PER_ADDRESS) / 5);
    const total = ADDRESSES * PER_ADDRESS + keyed;
    const agents = Array.from({ length: ADDRESSES + 1 }, () => new http.Agent({ keepAlive: true, maxSockets: 16 }));
    let anonymous = 0;
    const flood = openLoop(server.url, total / seconds, total, (i): Shot => {
      if (Math.floor(((i + 1) * keyed) / total) > Math.floor((i * keyed) / total))
        return { path: keyedFloodPath(i, random, zips), headers: { 'X-API-Key': business }, agent: agents[ADDRESSES] };
      const address = anonymous++ % ADDRESSES;
      return {
        path: anonymousFloodPath(anonymous, random, zips),
        headers: { 'X-Forwarded-For': `198.51.100.${address + 1}` },
        agent: agents[address],
      };
    });
    const during = await probe(seconds);
    const flooded = await flood;
    for (const a of [agent, ...agents]) a.destroy();

    const row = (name: string, landed: Landed[]) => {
      const ms = landed.map((l) => l.latencyMs);
      return [
        name,
        String(landed.length),
        fmt(percentile(ms, 50), 2),
        fmt(percentile(ms, 99), 2),
        fmt(Math.max(...ms), 1),
        String(landed.filter((l) => l.status !== 200).length),
      ];
    };
    printTable(
      ['cached keyed lookup (open loop)', 'requests', 'p50 ms', 'p99 ms', 'max ms', 'not 200'],
      [
        row('idle', idle),
        row(`under a flood of ${fmt(total / seconds, 0)} uncached list requests/s`, during),
        row('  (the flood itself)', flooded),
      ],
    );
    const answers: Record<number, number> = {};
    for (const l of flooded) answers[l.status] = (answers[l.status] ?? 0) + 1;
    console.log(
      `flood answers by status: ${JSON.stringify(answers)}; ${PROBES_PER_SECOND} lookups/s for ${seconds} s idle, then ${seconds} s under the flood; one server process (--workers 1)`,
    );
    const ratio =
      percentile(
        during.map((l) => l.latencyMs),
        99,
      ) /
      percentile(
        idle.map((l) => l.latencyMs),
        99,
      );
    console.log(`flood p99 / idle p99: ${fmt(ratio, 2)}; target: flood p99 under ${TARGET_P99_MS} ms`);
  } finally {
    server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const arg = (name: string) => {
    const i = process.argv.indexOf(name);
    return i > 0 ? process.argv[i + 1] : undefined;
  };
  await benchFlood({ db: arg('--db') ?? 'dist-api/hcas.sqlite', seconds: arg('--seconds') ? Number(arg('--seconds')) : undefined });
}
