/**
 * The request path with the production defaults on: `hcas serve` as it ships (worker processes `auto`, the
 * JSON request log on stdout written to a file, /metrics, SQLite quota state) answering the keyed ZIP lookup
 * (Enterprise key), against a bare Node `http` server answering the same body, in alternating rounds of
 * `wrk -t1 -c32`. One row per default turned off (--quiet, --no-metrics, --no-limits) shows what each costs,
 * and a bare server of as many processes as hcas has workers shows the same-shape baseline. CPU time per
 * request (every process of a contender, from /proc) is the stable figure on a busy machine; the load
 * average is printed beside each round. Fails (throws) when the defaults answer less than TARGET_RATIO of the
 * bare server's requests per second, or use more than CPU_LIMIT_RATIO times its CPU per request. With
 * --before, both checkouts are also loaded at once with one worker each, round by round (compareTogether):
 * the before/after difference that a drifting machine speed does not blur.
 * Stand-alone: node bin/run-ts.js bench/request-path.ts --db FILE [--seconds N] [--rounds N] [--before CHECKOUT]
 */
import { execFileSync, spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { medians, sampleZips, type Measured } from './api.ts';
import { BARE_SERVER, fetchBody, fmt, median, printTable } from './lib.ts';
import { benchRequestCosts } from './request-costs.ts';
import { runWrk, runWrkTogether, WRK } from './wrk.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const HCAS = path.join(ROOT, 'bin/hcas.js');
/** The target: the keyed lookup with the defaults on answers this share of the bare server's requests per second. */
export const TARGET_RATIO = 0.95;
/** The CPU per request the defaults may spend, as a multiple of the bare server's (the stable figure; #33 measured 1.8 to 2.4). */
export const CPU_LIMIT_RATIO = 2.5;

interface Contender {
  name: string;
  url: string;
  /** The process and every process it forked (cluster workers). */
  pids: number[];
  paths: string[];
  headers?: Record<string, string>;
  /** The file its stdout goes to (the request log). */
  logFile: string;
  stop(): void;
}

/** Starts `node ARGS` with stdout on `logFile`, and waits for the `listening` line there. */
async function start(name: string, args: string[], logFile: string, env: Record<string, string> = {}): Promise<Omit<Contender, 'paths'>> {
  const fd = openSync(logFile, 'w');
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', fd, 'inherit'], env: { ...process.env, ...env } });
  closeSync(fd);
  for (let waited = 0; waited < 60_000; waited += 100) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    // The cluster primary's line (with `workers`) comes once every worker listens; a single process has one line.
    const listening = readFileSync(logFile, 'utf8')
      .split('\n')
      .find((line) => line.includes('"event":"listening"'));
    if (listening) {
      const url = JSON.parse(listening).url as string;
      return { name, url, pids: [child.pid!, ...descendants(child.pid!)], logFile, stop: () => child.kill('SIGTERM') };
    }
    if (child.exitCode !== null) break;
  }
  child.kill('SIGKILL');
  throw new Error(`${name} did not start (see ${logFile})`);
}

function descendants(pid: number): number[] {
  try {
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
    return children.flatMap((child) => [child, ...descendants(child)]);
  } catch {
    return [];
  }
}

/** A bare Node server in `workers` cluster processes, each answering BARE_BODY as BARE_SERVER does. */
function bareCluster(workers: number): string {
  return `const cluster = require('node:cluster');
if (cluster.isPrimary) {
  let listening = 0;
  for (let i = 0; i < ${workers}; i++)
    cluster.fork().on('message', (url) => { if (++listening === ${workers}) console.log(JSON.stringify({ event: 'listening', url })); });
} else {
  const body = Buffer.from(process.env.BARE_BODY);
  const server = require('node:http').createServer((req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': body.length });
    res.end(body);
  });
  server.listen(0, '127.0.0.1', () => process.send('http://127.0.0.1:' + server.address().port));
}
`;
}

/** Runs the benchmark, prints its tables, and throws when the defaults miss the target. */
export async function benchRequestPath(options: { db: string; seconds?: number; rounds?: number; before?: string }): Promise<void> {
  await benchRequestCosts({ db: options.db });
  if (!WRK) throw new Error('bench/request-path.ts needs wrk (apt-get install wrk): its target is stated in wrk rounds');
  const seconds = options.seconds ?? 5;
  const rounds = options.rounds ?? 3;
  const workers = availableParallelism();
  const dir = mkdtempSync(path.join(tmpdir(), 'hcas-bench-request-'));
  const contenders: Contender[] = [];
  try {
    const state = path.join(dir, 'state.sqlite');
    const key = execFileSync(process.execPath, [HCAS, 'keys', 'create', '--plan', 'enterprise', '--name', 'bench', '--state-file', state], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
    const paths = sampleZips(options.db).map((zip) => `/api/v1/health-scores/${zip}/`);
    const headers = { 'X-API-Key': key };
    // The defaults, as `hcas serve > requests.log` runs them; each other row turns one of them off.
    const serve = async (name: string, flags: string[], hcas = HCAS) => {
      const limits = flags.includes('--no-limits') ? [] : ['--state-file', state];
      const args = [hcas, 'serve', '--db', options.db, '--port', '0', '--no-watch', ...limits, ...flags];
      const started = await start(name, args, path.join(dir, `${contenders.length}.log`));
      contenders.push({ ...started, paths, headers });
      return started;
    };
    const defaults = await serve(`hcas defaults (${workers} workers, log to a file, metrics, SQLite state)`, []);
    // --before CHECKOUT: the same defaults served by another checkout's bin/hcas.js (built), in the same rounds.
    const beforeHcas = options.before && path.join(path.resolve(options.before), 'bin/hcas.js');
    if (beforeHcas) await serve('  the same, by the --before checkout', [], beforeHcas);
    await serve('  without the request log (--quiet)', ['--quiet']);
    await serve('  without metrics (--no-metrics)', ['--no-metrics']);
    await serve('  without keys and quotas (--no-limits)', ['--no-limits']);
    const sample = await fetchBody(`${defaults.url}${paths[0]}`, headers);
    const bareEnv = { BARE_BODY: sample.body.toString('utf8') };
    const bare = await start('bare node:http (1 process, same body)', ['-e', BARE_SERVER], path.join(dir, 'bare.log'), bareEnv);
    contenders.unshift({ ...bare, paths: ['/'] });
    // The same bare server sending every header hcas sends (the API's contract): what the headers alone cost Node.
    // wrk asks for no content coding: neither does this request (fetch would ask for gzip and br, and get a compressed answer's headers).
    const sent = await fetch(`${defaults.url}${paths[0]}`, { headers: { ...headers, 'Accept-Encoding': 'identity' } });
    const contractHeaders = Object.fromEntries([...sent.headers].filter(([name]) => !['date', 'connection', 'keep-alive'].includes(name)));
    const withContract = await start(
      'bare node:http, hcas headers (1 process)',
      [
        '-e',
        BARE_SERVER.replace('const body', 'const headers = JSON.parse(process.env.BARE_HEADERS);\nconst body').replace(
          "{ 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': body.length }",
          'headers',
        ),
      ],
      path.join(dir, 'bare-headers.log'),
      { ...bareEnv, BARE_HEADERS: JSON.stringify(contractHeaders) },
    );
    contenders.splice(1, 0, { ...withContract, paths: ['/'] });
    const clusterScript = path.join(dir, 'bare-cluster.cjs');
    writeFileSync(clusterScript, bareCluster(workers));
    const bareMany = await start(`bare node:http (${workers} processes)`, [clusterScript], path.join(dir, 'bare-cluster.log'), bareEnv);
    contenders.splice(1, 0, { ...bareMany, paths: ['/'] });
    for (const contender of contenders) await checkAnswers(contender, sample.body);
    const defaultsRow = contenders.find((contender) => contender.url === defaults.url)!;

    // Warm-up: every worker's response cache, key verdicts and JIT (a worker sees about half the ZIPs a second).
    for (const contender of contenders) measure(contender, 3);
    const runs = new Map<Contender, Measured[]>(contenders.map((c) => [c, []]));
    const logBytes = new Map<Contender, number>(contenders.map((c) => [c, statSync(c.logFile).size]));
    let requests = 0;
    const roundRows: string[][] = [];
    for (let round = 1; round <= rounds; round++) {
      for (const contender of contenders) {
        const load = loadavg()[0];
        const measured = measure(contender, seconds);
        runs.get(contender)!.push(measured);
        if (contender === defaultsRow) requests += measured.rps * seconds;
        roundRows.push([String(round), contender.name.trim(), fmt(measured.rps, 0), fmt(measured.cpuMicroseconds, 1), fmt(load, 2)]);
      }
    }
    printTable(['round', 'contender', 'req/s', 'CPU us/req', 'load (1 min)'], roundRows);
    const measured = new Map([...runs].map(([c, m]) => [c, medians(m)]));
    const bareMedian = measured.get(contenders[0])!;
    const rows = contenders.map((c) => {
      const m = measured.get(c)!;
      return [
        c.name,
        fmt(m.rps, 0),
        `${fmt(m.rps / bareMedian.rps, 2)}x`,
        fmt(m.cpuMicroseconds, 1),
        `${fmt(m.cpuMicroseconds / bareMedian.cpuMicroseconds, 2)}x`,
        fmt(m.p99, 2),
        String(m.failed),
      ];
    });
    console.log('');
    printTable(['keyed ZIP lookup', 'req/s', 'vs bare', 'CPU us/req', 'CPU vs bare', 'p99 ms', 'failed'], rows);
    const written = statSync(defaultsRow.logFile).size - logBytes.get(defaultsRow)!;
    console.log(
      `wrk -t1 -c32, ${rounds} rounds of ${seconds} s alternating the contenders after a 3 s warm-up each; medians of the rounds; ` +
        `CPU is every process of a contender; the defaults' log took ${fmt(written / Math.max(1, requests), 0)} bytes a request`,
    );
    if (beforeHcas) {
      // One worker each: two servers of two workers and two wrk on two cores measure mostly their own crowding.
      const pair = [
        await serve('this checkout, 1 worker', ['--workers', '1']),
        await serve('--before, 1 worker', ['--workers', '1'], beforeHcas),
      ];
      const [after, before] = pair.map((started) => contenders.find((contender) => contender.url === started.url)!);
      for (const contender of [after, before]) {
        await checkAnswers(contender, sample.body);
        measure(contender, 3); // warm-up
      }
      await compareTogether(after, before, seconds, Math.max(rounds, 4));
    }
    const ratio = measured.get(defaultsRow)!.rps / bareMedian.rps;
    const cpuRatio = measured.get(defaultsRow)!.cpuMicroseconds / bareMedian.cpuMicroseconds;
    console.log(
      `targets: defaults >= ${TARGET_RATIO}x bare req/s (measured ${fmt(ratio, 2)}x); CPU per request <= ${CPU_LIMIT_RATIO}x bare (measured ${fmt(cpuRatio, 2)}x)`,
    );
    if (ratio < TARGET_RATIO || cpuRatio > CPU_LIMIT_RATIO) {
      throw new Error(
        `request path below target: defaults ${fmt(ratio, 2)}x bare req/s (target ${TARGET_RATIO}x), CPU ${fmt(cpuRatio, 2)}x bare (limit ${CPU_LIMIT_RATIO}x)`,
      );
    }
  } finally {
    for (const contender of contenders) contender.stop();
    await new Promise((resolve) => setTimeout(resolve, 500));
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * This checkout against the --before checkout (one worker each, the other defaults on), loaded at once (a wrk
 * of 16 connections each): both see the same machine speed, so their CPU per request compares to a few
 * tenths of a microsecond where consecutive rounds, minutes apart, differ by more than a microsecond here.
 */
async function compareTogether(after: Contender, before: Contender, seconds: number, rounds: number): Promise<void> {
  const rows: string[][] = [];
  const differences: number[] = [];
  for (let round = 1; round <= rounds; round++) {
    // Alternating which one's wrk starts first.
    const pair = round % 2 === 1 ? [after, before] : [before, after];
    const [first, second] = await runWrkTogether(pair, seconds);
    const [a, b] = pair[0] === after ? [first, second] : [second, first];
    differences.push(a.cpuMicroseconds - b.cpuMicroseconds);
    rows.push([
      String(round),
      fmt(a.cpuMicroseconds, 2),
      fmt(b.cpuMicroseconds, 2),
      fmt(a.cpuMicroseconds - b.cpuMicroseconds, 2),
      `${fmt(a.cpuMicroseconds / b.cpuMicroseconds, 3)}x`,
    ]);
  }
  console.log('');
  printTable(['loaded at once (1 worker each)', 'this checkout CPU us/req', '--before CPU us/req', 'difference', 'ratio'], rows);
  console.log(`this checkout against --before, loaded at once: median difference ${fmt(median(differences), 2)} us a request`);
}

function measure(contender: Contender, seconds: number): Measured {
  return runWrk({ url: contender.url, paths: contender.paths, headers: contender.headers, pids: contender.pids }, seconds);
}

/** The bare servers send the sample body; hcas sends a score record, with rate-limit headers when limits are on. */
async function checkAnswers(contender: Contender, sample: Buffer): Promise<void> {
  for (const p of contender.paths.slice(0, 3)) {
    const answer = await fetchBody(`${contender.url}${p}`, contender.headers ?? {});
    if (answer.status !== 200) throw new Error(`${contender.name}: ${p} answered ${answer.status}`);
    if (contender.headers === undefined) {
      if (!answer.body.equals(sample)) throw new Error(`${contender.name}: not the sample body`);
    } else if (typeof JSON.parse(answer.body.toString('utf8')).healthscore !== 'number') {
      throw new Error(`${contender.name}: ${p} is not a score record`);
    }
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const arg = (name: string) => {
    const i = process.argv.indexOf(name);
    return i > 0 ? process.argv[i + 1] : undefined;
  };
  await benchRequestPath({
    db: arg('--db') ?? 'dist-api/hcas.sqlite',
    seconds: arg('--seconds') ? Number(arg('--seconds')) : undefined,
    rounds: arg('--rounds') ? Number(arg('--rounds')) : undefined,
    before: arg('--before'),
  });
}
