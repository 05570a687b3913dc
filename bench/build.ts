/**
 * Build benchmark: time and peak memory of `hcas sample` + `hcas build` for the default build and at full
 * national scale (a synthetic nation), each build stage with its own time, beside baselines measured in the same run:
 * - read-only: streaming the same input files through the reader alone (gunzip + split, no processing);
 * - for the NPPES file (the build's largest input): `zcat | wc -c` (decompression alone) and DuckDB's
 *   multi-threaded CSV reader (bench/duckdb-read.ts), against the build's own NPPES ingest time.
 * Ratios are what to compare across machines; other processes on the machine move absolute times.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { tmpdir } from 'node:os';
import Database from 'better-sqlite3';
import { PIPELINE_COMMANDS } from '../pipeline/cli/index.ts';
import { median, printTable, runDirectly } from './lib.ts';

export interface Run {
  seconds: number;
  peakRssMb: number;
  stdout: string;
}

const ROOT = path.resolve(import.meta.dirname, '..');
/** Targets from the issue: NPPES ingest within 1.5x of DuckDB; the full build within 150 s and 1.5 GB. */
const TARGETS = { nppesPerDuckdb: 1.5, fullBuildSeconds: 150, fullBuildPeakMb: 1536 };

/**
 * Runs a command in a child and reads its wall time and peak RSS (GNU time's %M: the largest peak among the
 * process and the children it waited for). `hcas build` builds in a child of its own (src/cli/rerun.ts), so this
 * is that child's peak; the launcher waiting beside it holds a little more (docs/BENCHMARKS.md).
 */
export function measure(command: string, args: string[], env: Record<string, string> = {}, expectedStatus = 0): Run {
  const started = process.hrtime.bigint();
  const child = spawnSync('/usr/bin/time', ['-f', '%M', command, ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    maxBuffer: 1 << 26,
    env: { ...process.env, ...env },
  });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (child.status !== expectedStatus)
    throw new Error(`${command} ${args.join(' ')} exited ${child.status}, not ${expectedStatus}:\n${child.stdout}\n${child.stderr}`);
  const kb = Number(child.stderr.trim().split('\n').at(-1));
  return { seconds, peakRssMb: kb / 1024, stdout: child.stdout };
}

const node = (args: string[]) => measure(process.execPath, args);

/** Rounds of DuckDB and the NPPES-only ingest, alternating, so both see the same moments of a noisy host. */
const ALTERNATING_ROUNDS = 3;

/** Each build stage's own time, from the section lines of the build log (`geography:   62.3 s   741 MB`). */
export function stageTimes(log: string): Array<{ stage: string; seconds: number; rssMb: number }> {
  const marks = [...log.matchAll(/^(\S[^\n]*?):\s+([\d.]+) s\s+(\d+) MB$/gm)].map((m) => ({
    stage: m[1],
    at: Number(m[2]),
    rssMb: Number(m[3]),
  }));
  return marks
    .slice(0, -1)
    .map((mark, i) => ({ stage: mark.stage.replace(/ \(.*\)$/, ''), seconds: marks[i + 1].at - mark.at, rssMb: marks[i + 1].rssMb }));
}

/** The build log's time for one source (`  nppes   4340087 read ... 112.1s`). */
function sourceSeconds(log: string, key: string): number {
  const match = new RegExp(`^ {2}${key} +\\d+ read .* ([\\d.]+)s$`, 'm').exec(log);
  if (!match) throw new Error(`no ingest line for ${key} in the build log`);
  return Number(match[1]);
}

function table(title: string, header: string[], rows: string[][]): void {
  console.log(`\n${title}`);
  printTable(header, rows);
}

interface Size {
  name: string;
  /** The manifest the build reads; `hcas sample` writes the files it names under --root. */
  manifest: string;
  sampleArgs: string[];
}

/**
 * The default build (the bundled real public data with 250,000 synthetic providers) and the national scale
 * the targets are set at: a synthetic nation of 4 million providers and 85,000 facilities.
 */
const SIZES: Size[] = [
  { name: 'default sample', manifest: 'raw/manifests/sample.json', sampleArgs: [] },
  {
    name: 'full scale',
    manifest: 'raw/manifests/synthetic.json',
    sampleArgs: ['--synthetic-nation', '--providers', '4000000', '--facilities', '85000'],
  },
];

export async function benchBuild(options: { defaultOnly?: boolean } = {}): Promise<void> {
  if (!existsSync('/usr/bin/time')) throw new Error('bench/build needs GNU time (/usr/bin/time): apt-get install time');
  const rows: string[][] = [];
  for (const size of options.defaultOnly ? SIZES.slice(0, 1) : SIZES) {
    const manifest = path.join(ROOT, size.manifest);
    const nppesPath = (JSON.parse(readFileSync(manifest, 'utf8')) as { sources: Record<string, { path: string }> }).sources.nppes.path;
    const dir = path.join(tmpdir(), `hcas-bench-${size.name.replace(/\W+/g, '-')}`);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const raw = path.join(dir, 'raw');
    const sample = node(['bin/hcas.js', 'sample', '--out', raw, ...size.sampleArgs]);
    const out = path.join(dir, 'hcas.sqlite');
    const built = node(['bin/hcas.js', 'build', '--manifest', manifest, '--out', out, '--root', raw]);
    const baseline = node(['bin/run-ts.js', 'bench/read-only.ts', manifest, raw]);
    // Check the answer before reporting the time: every ZCTA scored and the providers all there.
    const db = new Database(out, { readonly: true });
    const zips = (db.prepare('SELECT COUNT(*) AS n FROM zips').get() as { n: number }).n;
    const providers = (db.prepare('SELECT COUNT(*) AS n FROM providers').get() as { n: number }).n;
    db.close();
    if (zips !== 33_791) throw new Error(`${size.name}: expected 33,791 ZIPs, got ${zips}`);
    rows.push([
      size.name,
      String(providers),
      sample.seconds.toFixed(1),
      sample.peakRssMb.toFixed(0),
      built.seconds.toFixed(1),
      built.peakRssMb.toFixed(0),
      baseline.seconds.toFixed(1),
      (built.seconds / baseline.seconds).toFixed(2),
    ]);

    table(
      `Build stages, ${size.name} (each stage's own time; RSS at its end)`,
      ['stage', 's', 'MB'],
      stageTimes(built.stdout).map((s) => [s.stage, s.seconds.toFixed(1), String(s.rssMb)]),
    );
    table(
      `Build sources, ${size.name}`,
      ['source', 's'],
      [...built.stdout.matchAll(/^ {2}(\S+) +\d+ read .* ([\d.]+)s$/gm)].map((m) => [m[1], m[2]]),
    );
    benchNppes(size.name, path.join(raw, nppesPath), sourceSeconds(built.stdout, 'nppes'), { manifest, root: raw });
    rmSync(dir, { recursive: true, force: true });
  }
  table(
    `Build (targets: full scale < ${TARGETS.fullBuildSeconds} s and < ${TARGETS.fullBuildPeakMb} MB peak)`,
    ['size', 'providers', 'sample s', 'sample MB', 'build s', 'build peak MB', 'read-only s', 'build/read'],
    rows,
  );
}

/**
 * The NPPES file read by the contenders, right after the build read it; then DuckDB and the build's NPPES ingest
 * alone (bench/nppes-ingest.ts, with the build's runtime) in alternating rounds. The host's speed drifts by a
 * quarter within minutes, so a ratio of two runs minutes apart moves with it; the rounds' median ratio does not.
 */
function benchNppes(name: string, file: string, ingestSeconds: number, inputs: { manifest: string; root: string }): void {
  const contenders: string[][] = [];
  const zcat = measure('/bin/sh', ['-c', `zcat '${file}' | wc -c`]);
  const textBytes = Number(zcat.stdout.trim());
  let duckSeconds = Number.NaN;
  const rounds: string[][] = [];
  let medianRatio = Number.NaN;
  if (existsSync(path.join(ROOT, 'node_modules/@duckdb/node-api'))) {
    const duck = duckdbRead(file);
    duckSeconds = duck.seconds;
    contenders.push([
      'DuckDB read_csv, 2 threads (all columns as text)',
      duck.seconds.toFixed(1),
      duck.peakRssMb.toFixed(0),
      `${duck.rows} rows`,
    ]);
    const ratios: number[] = [];
    for (let round = 1; round <= ALTERNATING_ROUNDS; round++) {
      const duckRound = duckdbRead(file);
      const ingest = nppesIngestAlone(inputs.manifest, inputs.root, duck.rows);
      // Both times leave out process start: DuckDB's read as its script times it, the NPPES source as ingest logs it.
      ratios.push(ingest.seconds / duckRound.readSeconds);
      rounds.push([String(round), duckRound.readSeconds.toFixed(1), ingest.seconds.toFixed(1), ratios.at(-1)!.toFixed(2)]);
    }
    medianRatio = median(ratios);
  }
  contenders.push([
    'zcat | wc -c (decompression alone)',
    zcat.seconds.toFixed(1),
    zcat.peakRssMb.toFixed(0),
    `${(textBytes / 1e9).toFixed(2)} GB of text`,
  ]);
  contenders.push([
    'hcas build: NPPES ingest (read, parse, stage)',
    ingestSeconds.toFixed(1),
    '',
    `${(textBytes / 1e6 / ingestSeconds).toFixed(0)} MB/s`,
  ]);
  const ratio = ingestSeconds / duckSeconds;
  table(
    `NPPES ingest, ${name} (target: <= ${TARGETS.nppesPerDuckdb}x DuckDB; ingest/DuckDB = ${Number.isNaN(ratio) ? 'n/a (npm install @duckdb/node-api)' : ratio.toFixed(2)})`,
    ['contender', 's', 'MB', 'note'],
    contenders,
  );
  if (rounds.length > 0)
    table(
      `NPPES ingest alone against DuckDB, ${name}, alternating (target: <= ${TARGETS.nppesPerDuckdb}x; median ratio = ${medianRatio.toFixed(2)})`,
      ['round', 'DuckDB read s', 'hcas NPPES ingest s', 'ratio'],
      rounds,
    );
}

/**
 * DuckDB's read of the file (bench/duckdb-read.ts): `seconds` is its whole process, startup included, and
 * `readSeconds` the read alone as the script times it (what the rounds compare with the ingest's own time).
 */
function duckdbRead(file: string): Run & { rows: number; readSeconds: number } {
  const duck = node(['bin/run-ts.js', 'bench/duckdb-read.ts', file, '2']);
  const result = JSON.parse(duck.stdout.trim().split('\n').at(-1)!) as { rows: number; seconds: number };
  return { ...duck, rows: result.rows, readSeconds: result.seconds };
}

/** The build's NPPES ingest alone, in a process started as `hcas build` starts its child; it must read every row DuckDB read. */
function nppesIngestAlone(manifest: string, root: string, rows: number): { seconds: number } {
  const runtime = PIPELINE_COMMANDS.find((command) => command.names.includes('build'))?.runtime;
  const run = measure(
    process.execPath,
    [...(runtime?.nodeFlags ?? []), 'bin/run-ts.js', 'bench/nppes-ingest.ts', manifest, root],
    runtime?.env,
  );
  const result = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as { rows: number; seconds: number };
  if (result.rows !== rows) throw new Error(`NPPES ingest alone read ${result.rows} rows, DuckDB ${rows}`);
  return { seconds: result.seconds };
}

if (runDirectly(import.meta.filename)) {
  await benchBuild({ defaultOnly: process.argv.includes('--default-only') });
}
