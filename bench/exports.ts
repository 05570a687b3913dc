/**
 * Bulk export benchmark: rows per second and the server's peak memory while it streams every provider
 * (`exports/providers/`), beside baselines in the same run: iterating the same SELECT without encoding or
 * HTTP, and reading the database file from disk. Each contender is a process of its own, so its peak RSS is
 * its own; each answer is checked before it counts. A paused client shows that backpressure holds memory
 * flat. The server runs with --no-limits: one export is one call, so keys and quotas cost nothing here.
 * Stand-alone: node bin/run-ts.js bench/exports.ts --db FILE
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { createGunzip } from 'node:zlib';
import Database from 'better-sqlite3';
import { type Contender, fmt, option, printTable, runDirectly, startProcess } from './lib.ts';

const ROOT = path.resolve(import.meta.dirname, '..');

interface Measured {
  name: string;
  rows: number;
  /** Bytes of the body (null for the SELECT, which makes none). */
  bytes: number | null;
  seconds: number;
  /** Peak resident memory of the process doing the work, during the run (with the pages of the mapped database file). */
  peakMiB: number;
  /** Peak anonymous resident memory (heap, buffers: what an export could leak or buffer), sampled every 20 ms. */
  peakAnonMiB: number;
  /** Its resident memory just before the run. */
  startMiB: number;
}

/** Runs the export benchmark against a built database and prints the table. */
export async function benchExports(options: { db: string }): Promise<void> {
  const providers = countProviders(options.db);
  const results: Measured[] = [];
  results.push(await childBaseline('read the database file (disk ceiling)', 'file', options.db, providers));
  results.push(await childBaseline('raw SELECT iteration, no encoding', 'select', options.db, providers));
  const server = await startProcess([
    path.join(ROOT, 'bin/hcas.js'),
    'serve',
    '--db',
    options.db,
    '--port',
    '0',
    '--workers',
    '1',
    '--quiet',
    '--no-watch',
    '--no-limits',
  ]);
  try {
    const url = `${server.url}/api/v1/exports/providers/`;
    await exportOnce(server, `${url}?format=csv`, providers, {}, 'warm-up'); // JIT, page cache
    results.push(await exportOnce(server, `${url}?format=csv`, providers, {}, 'server: exports/providers/ CSV'));
    results.push(await exportOnce(server, `${url}?format=ndjson`, providers, {}, 'server: exports/providers/ NDJSON'));
    results.push(await exportOnce(server, `${url}?format=csv`, providers, { gzip: true }, 'server: exports/providers/ CSV, gzip'));
    results.push(await exportOnce(server, `${url}?format=csv`, providers, { pauseMs: 3000 }, 'server: CSV, client pauses 3 s'));
  } finally {
    server.stop();
  }
  printResults(results, results[1]);
  console.log(
    `${providers.toLocaleString('en-US')} providers in ${path.basename(options.db)}; one server worker; peak RSS: /proc/PID/status VmHWM, reset before each run`,
  );
  console.log(
    '(it includes the pages of the database file the server maps, up to 256 MiB; peak anon = heap and buffers only, sampled every 20 ms; baselines report RssAnon at their end)',
  );
  console.log(
    'target: the server streams at a useful fraction of the raw SELECT, and its peak RSS does not grow with the export (nor while a client pauses)',
  );
}

function countProviders(db: string): number {
  const handle = new Database(db, { readonly: true, fileMustExist: true });
  try {
    return (handle.prepare('SELECT count(*) AS n FROM providers').get() as { n: number }).n;
  } finally {
    handle.close();
  }
}

/** The baselines run in a child process, which reports its own time and peak RSS. */
const BASELINE = `
const [mode, file] = process.argv.slice(1);
const statusMiB = (field) => Number(new RegExp(field + ':\\\\s+(\\\\d+)').exec(require('node:fs').readFileSync('/proc/self/status', 'utf8'))?.[1] ?? NaN) / 1024;
const start = statusMiB('VmRSS');
const started = performance.now();
let rows = 0, bytes = 0;
if (mode === 'select') {
  const Database = require('better-sqlite3');
  const db = new Database(file, { readonly: true });
  db.pragma('mmap_size = 268435456'); // as the server opens it (src/query/database.ts)
  const statement = db.prepare('SELECT npi, first_name, last_name, credential, gender, primary_taxonomy, primary_specialty, telehealth, address, city, state, zip_code, phone, medical_school, residency, graduation_year, facility_names FROM providers ORDER BY rowid').raw(true);
  for (const row of statement.iterate()) rows++;
  bytes = null;
} else {
  const fs = require('node:fs');
  const fd = fs.openSync(file, 'r');
  const buffer = Buffer.alloc(1 << 20);
  for (let n; (n = fs.readSync(fd, buffer)) > 0;) bytes += n;
}
const seconds = (performance.now() - started) / 1000;
console.log(JSON.stringify({ rows, bytes, seconds, startMiB: start, peakMiB: statusMiB('VmHWM'), peakAnonMiB: statusMiB('RssAnon') }));
`;

function childBaseline(name: string, mode: 'select' | 'file', db: string, providers: number): Promise<Measured> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', BASELINE, mode, db], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`baseline ${mode} exited with ${code}`));
      const result = JSON.parse(out) as Omit<Measured, 'name'>;
      if (mode === 'select' && result.rows !== providers)
        return reject(new Error(`baseline read ${result.rows} rows, expected ${providers}`));
      resolve({ name, ...result, rows: mode === 'select' ? result.rows : providers });
    });
  });
}

/** Resident memory of a process in MiB (`VmRSS` now, `VmHWM` peak since the last reset, `RssAnon` now without file pages). */
function memoryMiB(pid: number, field: 'VmRSS' | 'VmHWM' | 'RssAnon'): number {
  const match = new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : NaN;
}

/** Resets a process's peak RSS to its current RSS (Linux: write 5 to clear_refs); false when not allowed. */
function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** Downloads one export, counting rows and bytes; checks the header row and the row count. */
async function exportOnce(
  server: Contender,
  url: string,
  providers: number,
  client: { gzip?: boolean; pauseMs?: number },
  name: string,
): Promise<Measured> {
  const startMiB = memoryMiB(server.pid, 'VmRSS');
  const reset = resetPeak(server.pid);
  let peakAnonMiB = memoryMiB(server.pid, 'RssAnon');
  const sampler = setInterval(() => (peakAnonMiB = Math.max(peakAnonMiB, memoryMiB(server.pid, 'RssAnon'))), 20);
  const started = performance.now();
  const { rows, bytes, firstLine } = await new Promise<{ rows: number; bytes: number; firstLine: string }>((resolve, reject) => {
    const headers: Record<string, string> = client.gzip ? { 'Accept-Encoding': 'gzip' } : {};
    http
      .get(url, { agent: false, headers }, (res) => {
        if (res.statusCode !== 200) return reject(new Error(`${url} answered ${res.statusCode}`));
        const body = client.gzip ? res.pipe(createGunzip()) : res;
        let count = 0;
        let size = 0;
        let first = '';
        let paused = false;
        body.on('data', (chunk: Buffer) => {
          if (first === '' && count === 0) first = chunk.toString('utf8', 0, Math.min(chunk.length, 200)).split('\n')[0];
          size += chunk.length;
          for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) count++;
          if (client.pauseMs && !paused) {
            paused = true;
            body.pause();
            setTimeout(() => body.resume(), client.pauseMs);
          }
        });
        body.on('end', () => resolve({ rows: count, bytes: size, firstLine: first }));
        body.on('error', reject);
      })
      .on('error', reject);
  });
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  const isCsv = url.includes('format=csv');
  const expected = providers + (isCsv ? 1 : 0);
  if (rows !== expected) throw new Error(`${name}: ${rows} lines, expected ${expected}`);
  if (isCsv ? !firstLine.startsWith('npi,first_name,last_name') : !firstLine.startsWith('{"npi":"'))
    throw new Error(`${name}: unexpected first line ${firstLine}`);
  return { name, rows: providers, bytes, seconds, startMiB, peakMiB: reset ? memoryMiB(server.pid, 'VmHWM') : NaN, peakAnonMiB };
}

function printResults(results: Measured[], baseline: Measured): void {
  const headings = ['contender', 'rows', 'MB', 'seconds', 'rows/s', 'vs SELECT', 'RSS before MiB', 'peak RSS MiB', 'peak anon MiB'];
  const rows = results.map((r) => {
    const rowsPerSecond = r.rows / r.seconds;
    return [
      r.name,
      fmt(r.rows),
      r.bytes === null ? 'n/a' : fmt(r.bytes / 1e6, 1),
      fmt(r.seconds, 2),
      fmt(rowsPerSecond),
      `${fmt((100 * rowsPerSecond) / (baseline.rows / baseline.seconds))}%`,
      fmt(r.startMiB),
      fmt(r.peakMiB),
      fmt(r.peakAnonMiB),
    ];
  });
  printTable(headings, rows);
}

if (runDirectly(import.meta.filename)) await benchExports({ db: option('--db') ?? 'dist-api/hcas.sqlite' });
