/**
 * API server benchmark: the real server (one worker, quiet) against a bare Node `http` server that sends a
 * fixed JSON body of the same size as a single-ZIP answer. Each contender runs in its own process, and each
 * endpoint's answer is checked before it is timed. Stand-alone: node bin/run-ts.js bench/api.ts --db FILE [--seconds N]
 */
import { gunzipSync } from 'node:zlib';
import autocannon from 'autocannon';
import { serveArgs } from '../test/helpers/process.ts';
import Database from 'better-sqlite3';
import {
  BARE_SERVER,
  cpuSeconds,
  expectJson,
  fetchBody,
  fmt,
  medians as mediansOf,
  numberOption,
  option,
  printTable,
  runDirectly,
  startProcess,
} from './lib.ts';

const CONNECTIONS = 32;

export interface Scenario {
  name: string;
  /** Request paths, used in rotation. */
  paths: string[];
  headers?: Record<string, string>;
  /** Throws when a sample answer is wrong. */
  check(status: number, body: Buffer): void;
}

/** Runs the API benchmark and prints a table with ratios to the bare server. */
export async function benchApi(options: { db: string; seconds?: number }): Promise<void> {
  const seconds = options.seconds ?? 5;
  const zips = sampleZips(options.db);
  const api = await startProcess(serveArgs(options.db, '--no-limits'));
  try {
    const sample = await fetchBody(`${api.url}/api/v1/health-scores/${zips[0]}/`, {});
    const bare = await startProcess(['-e', BARE_SERVER], { BARE_BODY: sample.body.toString('utf8') });
    try {
      const baseline: Timed = {
        url: bare.url,
        pid: bare.pid,
        name: 'bare node:http (same body size)',
        paths: ['/'],
        check: (s, b) => expectJson(s, b, (v) => typeof v === 'object'),
      };
      const scenarios: Timed[] = [
        {
          url: api.url,
          pid: api.pid,
          name: 'health-scores/{zip}/',
          paths: zips.map((z) => `/api/v1/health-scores/${z}/`),
          check: (s, b) => expectJson(s, b, (v) => typeof (v as { healthscore?: unknown }).healthscore === 'number'),
        },
        {
          url: api.url,
          pid: api.pid,
          name: 'health-scores/?state=..&page=..',
          paths: listPaths(options.db),
          check: (s, b) => expectJson(s, b, (v) => Array.isArray((v as { results?: unknown }).results)),
        },
        {
          url: api.url,
          pid: api.pid,
          name: 'health-scores/{zip}/nearby/',
          paths: zips.map((z) => `/api/v1/health-scores/${z}/nearby/`),
          check: (s, b) => expectJson(s, b, (v) => Array.isArray(v)),
        },
        {
          url: api.url,
          pid: api.pid,
          name: 'health-scores/geojson/ (gzip)',
          paths: ['/api/v1/health-scores/geojson/'],
          headers: { 'Accept-Encoding': 'gzip' },
          check: (s, b) => expectJson(s, gunzipSync(b), (v) => (v as { type?: string }).type === 'FeatureCollection'),
        },
      ];
      for (const scenario of [baseline, ...scenarios]) {
        for (const p of scenario.paths.slice(0, 3)) {
          const answer = await fetchBody(`${scenario.url}${p}`, scenario.headers ?? {});
          scenario.check(answer.status, answer.body);
        }
      }
      // Each endpoint alternates with the bare server in short rounds and the medians are compared, so
      // other work on the machine coming and going hits both contenders alike.
      const rows: string[][] = [];
      const rounds = Math.max(1, Math.floor(seconds / 2));
      const roundSeconds = Math.max(1, Math.round(seconds / rounds));
      await run(baseline, 1);
      for (const scenario of scenarios) {
        await run(scenario, 1); // warm-up: JIT, SQLite pages, response cache
        const bareRuns: Measured[] = [];
        const runs: Measured[] = [];
        for (let round = 0; round < rounds; round++) {
          bareRuns.push(await run(baseline, roundSeconds));
          runs.push(await run(scenario, roundSeconds));
        }
        const bareMedian = medians(bareRuns);
        rows.push(row('bare node:http (same body size)', bareMedian, bareMedian));
        rows.push(row(scenario.name, medians(runs), bareMedian));
      }
      printTable(['endpoint', 'req/s', 'p50 ms', 'p99 ms', 'vs bare', 'CPU us/req', 'bare/CPU', 'MB/s', 'failed'], rows);
      console.log(
        `${CONNECTIONS} connections; per endpoint ${rounds} rounds of ${roundSeconds} s alternating with the bare server after 1 s warm-up; medians of the rounds`,
      );
      console.log('targets: single ZIP >= 90% of bare req/s, p99 < 5 ms');
    } finally {
      bare.stop();
    }
  } finally {
    api.stop();
  }
}

export interface Measured {
  rps: number;
  p50: number;
  p99: number;
  megabytesPerSecond: number;
  /** Server CPU time per request, microseconds. */
  cpuMicroseconds: number;
  failed: number;
}

/** The median of each measure over the rounds (failures are summed). */
export function medians(runs: Measured[]): Measured {
  return mediansOf(runs, ['failed']);
}

function row(name: string, m: Measured, bare: Measured): string[] {
  return [
    name,
    fmt(m.rps, 0),
    fmt(m.p50, 2),
    fmt(m.p99, 2),
    `${fmt((100 * m.rps) / bare.rps, 0)}%`,
    fmt(m.cpuMicroseconds, 1),
    `${fmt((100 * bare.cpuMicroseconds) / m.cpuMicroseconds, 0)}%`,
    fmt(m.megabytesPerSecond, 1),
    String(m.failed),
  ];
}

export type Timed = Scenario & { url: string; pid: number };

/** Loads one contender for `seconds`; also measures the CPU time its server process spent per request. */
export async function run(scenario: Timed, seconds: number): Promise<Measured> {
  let next = 0;
  const cpuBefore = cpuSeconds(scenario.pid);
  const result = await autocannon({
    url: scenario.url,
    connections: CONNECTIONS,
    duration: seconds,
    headers: scenario.headers,
    requests: [{ setupRequest: (request) => ({ ...request, path: scenario.paths[next++ % scenario.paths.length] }) }],
  });
  const cpuMicroseconds = ((cpuSeconds(scenario.pid) - cpuBefore) * 1e6) / Math.max(1, result.requests.total);
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    megabytesPerSecond: result.throughput.average / 1e6,
    cpuMicroseconds,
    failed: result.errors + result.timeouts + result.non2xx,
  };
}

/** ZIPs to rotate through: every scored ZIP, spread in a fixed shuffled order, at most 5,000. */
export function sampleZips(db: string): string[] {
  const handle = new Database(db, { readonly: true, fileMustExist: true });
  try {
    const zips = (
      handle.prepare('SELECT zip_code FROM health_scores WHERE score_type_id = 1 ORDER BY (id * 2654435761) % 4294967296').all() as Array<{
        zip_code: string;
      }>
    ).map((r) => r.zip_code);
    return zips.slice(0, 5000);
  } finally {
    handle.close();
  }
}

/** List requests: the first pages of every state. */
function listPaths(db: string): string[] {
  const handle = new Database(db, { readonly: true, fileMustExist: true });
  try {
    const states = handle.prepare('SELECT state_code, zip_count FROM states ORDER BY state_code').all() as Array<{
      state_code: string;
      zip_count: number;
    }>;
    return states.flatMap((s) =>
      Array.from(
        { length: Math.min(3, Math.ceil(s.zip_count / 20)) },
        (_, i) => `/api/v1/health-scores/?state=${s.state_code}&page=${i + 1}`,
      ),
    );
  } finally {
    handle.close();
  }
}

if (runDirectly(import.meta.filename)) await benchApi({ db: option('--db') ?? 'dist-api/hcas.sqlite', seconds: numberOption('--seconds') });
