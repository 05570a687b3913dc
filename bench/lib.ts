/**
 * What every bench shares: medians of alternating rounds, the table it prints, a server process started
 * and awaited, an answer fetched and checked, a process's CPU time, and its command-line options. A bench
 * keeps only what it measures; the figures themselves are in docs/BENCHMARKS.md, by date and machine.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');

import { median } from '../core/numbers.ts';
import { processCpu } from '../test/helpers/process-cpu.ts';

/** The product's one median (the mean of the middle two for an even count; NaN for none). */
export { median };

/**
 * Each measure's median over the rounds, but the `summed` ones (failures), which add up: a failed request
 * in any round counts.
 */
export function medians<T extends Record<keyof T, number>>(runs: readonly T[], summed: readonly (keyof T)[] = []): T {
  const keys = Object.keys(runs[0] ?? {}) as (keyof T)[];
  return Object.fromEntries(
    keys.map((key) => {
      const values = runs.map((run) => run[key]);
      return [key, summed.includes(key) ? values.reduce((sum, value) => sum + value, 0) : median(values)];
    }),
  ) as T;
}

/** A number with thousands separators and `digits` decimals; `n/a` for NaN or an infinity. */
export function fmt(value: number, digits = 0): string {
  if (!Number.isFinite(value)) return 'n/a';
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** Prints a table: the first column left-aligned, the others (numbers) right-aligned, a rule under the headings. */
export function printTable(headings: readonly string[], rows: readonly (readonly string[])[]): void {
  const widths = headings.map((heading, i) => Math.max(heading.length, ...rows.map((row) => row[i].length)));
  const line = (cells: readonly string[]) =>
    cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ');
  console.log(line(headings));
  console.log(line(widths.map((width) => '-'.repeat(width))));
  for (const row of rows) console.log(line(row));
}

/** A server process under test. */
export interface Contender {
  url: string;
  pid: number;
  stop(): void;
}

/**
 * Starts a Node server process (`args` after `node`) in the repository's folder and waits for the
 * `listening` JSON line it prints (`hcas serve`, BARE_SERVER). `prefix`: a command that execs node
 * (`taskset -c 0`), so the pid stays node's.
 */
export function startProcess(
  args: readonly string[],
  env: Record<string, string> = {},
  prefix: readonly string[] = [],
): Promise<Contender> {
  const [command, ...before] = prefix.length > 0 ? [...prefix, process.execPath] : [process.execPath];
  const child: ChildProcess = spawn(command, [...before, ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...env },
  });
  return new Promise((resolve, reject) => {
    let buffered = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const line = buffered.split('\n').find((l) => l.includes('"listening"'));
      if (line) resolve({ url: JSON.parse(line).url, pid: child.pid!, stop: () => child.kill('SIGTERM') });
    });
    child.on('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code} before listening`)));
  });
}

/** The bare contender: the least a Node server can do to answer with the same bytes (BARE_BODY) and content type. */
export const BARE_SERVER = `
const body = Buffer.from(process.env.BARE_BODY);
const server = require('node:http').createServer((req, res) => {
  res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': body.length });
  res.end(body);
});
server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ event: 'listening', url: 'http://127.0.0.1:' + server.address().port })));
`;

/** One GET without keep-alive: its status and whole body. */
export async function fetchBody(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: Buffer }> {
  const { request } = await import('node:http');
  return new Promise((resolve, reject) => {
    request(url, { headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
    })
      .on('error', reject)
      .end();
  });
}

/** Throws unless the answer is a 200 whose JSON body has the expected shape: a bench checks before it times. */
export function expectJson(status: number, body: Buffer | string, shape: (value: unknown) => boolean): void {
  const text = body.toString();
  if (status !== 200) throw new Error(`expected 200, got ${status}: ${text.slice(0, 200)}`);
  if (!shape(JSON.parse(text))) throw new Error(`unexpected body: ${text.slice(0, 200)}`);
}

/**
 * User + system CPU seconds of a process so far (Linux /proc; NaN elsewhere). CPU per request does not
 * depend on how busy the rest of the machine is, unlike requests per second.
 */
export function cpuSeconds(pid: number): number {
  try {
    return processCpu(pid).own;
  } catch {
    return NaN;
  }
}

/** The value after `--name` on the command line, if given. */
export function option(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
}

/** The number after `--name`, if given; a value that is not a number is a mistake worth stopping for. */
export function numberOption(name: string): number | undefined {
  const value = option(name);
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!Number.isFinite(number)) throw new Error(`${name} takes a number, not ${value}`);
  return number;
}

/** True when the module at `filename` (its import.meta.filename) was run directly, not imported (bench/run.ts). */
export function runDirectly(filename: string): boolean {
  return process.argv[1] !== undefined && path.resolve(process.argv[1]) === path.resolve(filename);
}
