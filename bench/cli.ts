/**
 * CLI startup benchmark: one-shot commands (a process started, one answer printed, exit) against
 * `node -e 0`, the least a Node process can cost on this machine. The runs alternate, so load from other
 * work hits every contender alike; medians are compared. Each command's output is checked before it is timed.
 * Target (issue 45): every one-shot command within 2.5x of `node -e 0`. Stand-alone: node bin/run-ts.js bench/cli.ts --db FILE [--runs N]
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fmt, median, numberOption, option, printTable, runDirectly } from './lib.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const HCAS = path.join(ROOT, 'bin/hcas.js');
const TARGET_RATIO = 2.5;

interface Contender {
  name: string;
  args: string[];
  /** Throws when the output is wrong. */
  check(stdout: string): void;
  /** False for a row shown for comparison only (help registers every command, so it loads them all). */
  target?: boolean;
}

/** Runs the CLI startup benchmark and prints a table with ratios to `node -e 0`. */
export async function benchCli(options: { db: string; runs?: number }): Promise<void> {
  const runs = options.runs ?? 15;
  const baseline: Contender = { name: 'node -e 0', args: ['-e', '0'], check: () => {} };
  const contenders: Contender[] = [
    {
      name: 'hcas score 10001 --json',
      args: [HCAS, 'score', '10001', '--json', '--db', options.db],
      check: (out) => expectField(out, 'healthscore'),
    },
    { name: 'hcas get /api/v1/states/', args: [HCAS, 'get', '/api/v1/states/', '--db', options.db], check: (out) => expectArray(out) },
    {
      name: 'hcas tvi 10001 --json',
      args: [HCAS, 'tvi', '10001', '--json', '--db', options.db],
      check: (out) => expectField(out, 'tvi_score'),
    },
    { name: 'hcas --help (loads every command)', args: [HCAS, '--help'], check: (out) => expectText(out, 'Usage: hcas'), target: false },
  ];
  for (const contender of [baseline, ...contenders]) contender.check(run(contender).stdout);
  const times = new Map<Contender, number[]>([baseline, ...contenders].map((c) => [c, []]));
  for (let i = 0; i < runs; i++) {
    for (const contender of [baseline, ...contenders]) times.get(contender)!.push(run(contender).ms);
  }
  const base = median(times.get(baseline)!);
  const rows = [baseline, ...contenders].map((c) => {
    const ms = median(times.get(c)!);
    const ratio = ms / base;
    const verdict = c === baseline || c.target === false ? '' : ratio <= TARGET_RATIO ? 'yes' : 'NO';
    return [c.name, fmt(ms, 0), fmt(Math.min(...times.get(c)!), 0), `${fmt(ratio, 2)}x`, verdict];
  });
  printTable(['command', 'median ms', 'best ms', 'vs node -e 0', `within ${TARGET_RATIO}x`], rows);
  console.log(`${runs} alternating runs of each; wall time from spawn to exit`);
}

function run(contender: Contender): { ms: number; stdout: string } {
  const started = process.hrtime.bigint();
  const stdout = execFileSync(process.execPath, contender.args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  return { ms: Number(process.hrtime.bigint() - started) / 1e6, stdout };
}

function expectField(stdout: string, field: string): void {
  if (typeof JSON.parse(stdout)[field] !== 'number') throw new Error(`expected a number in ${field}: ${stdout.slice(0, 200)}`);
}

function expectArray(stdout: string): void {
  if (!Array.isArray(JSON.parse(stdout))) throw new Error(`expected a JSON array: ${stdout.slice(0, 200)}`);
}

function expectText(stdout: string, text: string): void {
  if (!stdout.includes(text)) throw new Error(`expected ${text}: ${stdout.slice(0, 200)}`);
}

if (runDirectly(import.meta.filename)) await benchCli({ db: option('--db') ?? 'dist-api/hcas.sqlite', runs: numberOption('--runs') });
