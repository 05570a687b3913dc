/**
 * API keys and rate limits benchmark: a keyed single-ZIP lookup (Enterprise key) on a server that
 * authenticates and counts every call (SQLite state; Redis state when a redis-server is at hand) next to the
 * same lookup with limits disabled (`--no-limits`) and a bare Node `http` server sending a body of the same
 * size. Load from `wrk -t1 -c32` when wrk is installed (autocannon otherwise, said in the output); same run,
 * alternating rounds, medians compared; each answer is checked (200, the record, the rate-limit headers)
 * before it is timed. Targets: keyed with SQLite state >= 90% of bare; limits on >= 80% of limits disabled.
 * Stand-alone: node bin/run-ts.js bench/auth.ts --db FILE [--seconds N]
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { medians, run, sampleZips, type Measured, type Timed } from './api.ts';
import { BARE_SERVER, fmt, numberOption, option, printTable, runDirectly, startProcess } from './lib.ts';
import { runWrk, WRK } from './wrk.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const HCAS = path.join(ROOT, 'bin/hcas.js');
/** Limits on against limits disabled; the keyed lookup with SQLite state against a bare Node server. */
const TARGET_PERCENT = 80;
const TARGET_BARE_PERCENT = 90;

/** One timed round of a contender, by wrk when it is installed. */
const load = (contender: Timed, seconds: number): Promise<Measured> =>
  WRK
    ? Promise.resolve(runWrk({ url: contender.url, paths: contender.paths, headers: contender.headers, pids: [contender.pid] }, seconds))
    : run(contender, seconds);

/** Runs the benchmark and prints a table with each backend's ratio to limits disabled. */
export async function benchAuth(options: { db: string; seconds?: number }): Promise<void> {
  const seconds = options.seconds ?? 6;
  const dir = mkdtempSync(path.join(tmpdir(), 'hcas-bench-auth-'));
  const stops: Array<() => void> = [];
  try {
    const zips = sampleZips(options.db);
    const paths = zips.map((zip) => `/api/v1/health-scores/${zip}/`);
    const serve = (extra: string[], env: Record<string, string> = {}) =>
      startProcess([HCAS, 'serve', '--db', options.db, '--port', '0', '--workers', '1', '--quiet', '--no-watch', ...extra], env);

    // Enterprise is unlimited, so no call is refused, but every call is still authenticated and counted.
    const sqliteState = path.join(dir, 'state.sqlite');
    const sqliteKey = createKey(['--state-file', sqliteState], {});
    const open = await serve(['--no-limits']);
    stops.push(open.stop);
    const sqlite = await serve(['--state-file', sqliteState]);
    stops.push(sqlite.stop);
    const contenders: Timed[] = [timed(sqlite, 'keyed, limits on (SQLite state)', paths, sqliteKey, true)];
    const redisUrl = await redisForBench(dir, stops);
    if (redisUrl) {
      const env = { REDIS_URL: redisUrl, HCAS_REDIS_PREFIX: `hcas-bench-${process.pid}:` };
      const redisKey = createKey([], env);
      const redis = await serve([], env);
      stops.push(redis.stop);
      contenders.push(timed(redis, 'keyed, limits on (Redis state)', paths, redisKey, true));
    } else {
      console.log('!! no Redis (set REDIS_URL or install redis-server): the Redis backend is not measured');
    }
    const baseline = timed(open, 'keyed, limits disabled (--no-limits)', paths, sqliteKey, false);
    for (const contender of [baseline, ...contenders]) await checkAnswers(contender);
    // The bare server answers every path with one record of the same size, the least a Node server can do.
    const sampleBody = (await get(`${sqlite.url}${paths[0]}`, { 'X-API-Key': sqliteKey })).body;
    const bareProcess = await startProcess(['-e', BARE_SERVER], { BARE_BODY: sampleBody.toString('utf8') });
    stops.push(bareProcess.stop);
    const bare: Timed = {
      url: bareProcess.url,
      pid: bareProcess.pid,
      name: 'bare node:http (same body size)',
      paths: ['/'],
      check: () => {},
    };

    const rounds = Math.max(1, Math.floor(seconds / 2));
    const roundSeconds = Math.max(1, Math.round(seconds / rounds));
    const everyone = [bare, baseline, ...contenders];
    for (const contender of everyone) await load(contender, 1); // warm-up: JIT, response cache, key cache, state pages
    const runs = new Map<Timed, Measured[]>(everyone.map((c) => [c, []]));
    // Rounds interleave the contenders, so a burst of other work on the machine falls on all of them.
    for (let round = 0; round < rounds; round++) {
      for (const contender of everyone) runs.get(contender)!.push(await load(contender, roundSeconds));
    }
    const measured = new Map([...runs].map(([c, m]) => [c, medians(m)]));
    const [bareM, baseM] = [measured.get(bare)!, measured.get(baseline)!];
    const rows = everyone.map((c) => row(c.name, measured.get(c)!, bareM, baseM));
    printTable(['single-ZIP lookup', 'req/s', 'p50 ms', 'p99 ms', 'vs bare', 'vs disabled', 'CPU us/req', 'failed'], rows);
    console.log(
      `${WRK ? 'wrk -t1 -c32' : "autocannon, 32 connections (install wrk for the targets' tool)"}; one worker each; ${rounds} rounds of ${roundSeconds} s interleaving the contenders after 1 s warm-up; medians of the rounds`,
    );
    console.log(
      `targets: keyed with SQLite state >= ${TARGET_BARE_PERCENT}% of bare req/s; limits on >= ${TARGET_PERCENT}% of limits disabled`,
    );
  } finally {
    for (const stop of stops.reverse()) stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

function timed(
  contender: { url: string; pid: number },
  name: string,
  paths: string[],
  key: string,
  limited: boolean,
): Timed & { limited: boolean } {
  return {
    url: contender.url,
    pid: contender.pid,
    name,
    paths,
    headers: { 'X-API-Key': key },
    limited,
    check: (status, body) => {
      if (status !== 200) throw new Error(`${name}: expected 200, got ${status}: ${body.toString('utf8').slice(0, 200)}`);
      if (typeof JSON.parse(body.toString('utf8')).healthscore !== 'number') throw new Error(`${name}: not a score record`);
    },
  };
}

/** Each contender answers the record, and the limited ones carry the rate-limit headers. */
async function checkAnswers(contender: Timed & { limited?: boolean }): Promise<void> {
  for (const p of contender.paths.slice(0, 3)) {
    const answer = await get(`${contender.url}${p}`, contender.headers ?? {});
    contender.check(answer.status, answer.body);
    const counted = answer.headers['x-ratelimit-limit'] !== undefined && answer.headers['x-ratelimit-reset'] !== undefined;
    if (counted !== Boolean(contender.limited)) throw new Error(`${contender.name}: rate-limit headers ${counted ? 'present' : 'missing'}`);
  }
}

function row(name: string, m: Measured, bare: Measured, disabled: Measured): string[] {
  return [
    name,
    fmt(m.rps, 0),
    fmt(m.p50, 2),
    fmt(m.p99, 2),
    `${fmt((100 * m.rps) / bare.rps, 0)}%`,
    `${fmt((100 * m.rps) / disabled.rps, 0)}%`,
    fmt(m.cpuMicroseconds, 1),
    String(m.failed),
  ];
}

/** A new Enterprise key from `hcas keys create` (stdout is the key alone). */
function createKey(args: string[], env: Record<string, string>): string {
  return execFileSync(process.execPath, [HCAS, 'keys', 'create', '--plan', 'enterprise', '--name', 'bench', ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  }).trim();
}

/** REDIS_URL when set; else a redis-server of our own on a free loopback port, when the binary exists. */
async function redisForBench(dir: string, stops: Array<() => void>): Promise<string | undefined> {
  if (process.env.REDIS_URL) return process.env.REDIS_URL;
  const port = await freePort();
  let child: ChildProcess;
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'ignore' });
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], {
      stdio: 'ignore',
    });
  } catch {
    return undefined;
  }
  stops.push(() => child.kill('SIGTERM'));
  for (let i = 0; i < 50; i++) {
    if (await canConnect(port)) return `redis://127.0.0.1:${port}`;
    await new Promise((r) => setTimeout(r, 100));
  }
  return undefined;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
    probe.on('error', reject);
  });
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

function get(url: string, headers: Record<string, string>): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      })
      .on('error', reject);
  });
}

if (runDirectly(import.meta.filename)) {
  await benchAuth({ db: option('--db') ?? 'dist-api/hcas.sqlite', seconds: numberOption('--seconds') });
}
