/**
 * Build benchmark: time and peak memory of `hcas sample` + `hcas build` at the default size and at full
 * national scale, beside a baseline measured in the same run: streaming the same input files through the
 * reader alone (gunzip + CSV parse, no processing). Ratios are what to compare across machines.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { tmpdir } from 'node:os';
import Database from 'better-sqlite3';

interface Run {
  seconds: number;
  peakRssMb: number;
}

const ROOT = path.resolve(import.meta.dirname, '..');

/** Runs a node script in a child and reads its wall time and the child's own peak RSS (GNU time). */
function measure(args: string[]): Run {
  const started = process.hrtime.bigint();
  const child = spawnSync('/usr/bin/time', ['-f', '%M', process.execPath, ...args], { cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 26 });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (child.status !== 0) throw new Error(`${args.join(' ')} failed:\n${child.stdout}\n${child.stderr}`);
  const kb = Number(child.stderr.trim().split('\n').at(-1));
  return { seconds, peakRssMb: kb / 1024 };
}

export async function benchBuild(options: { sizes?: Array<{ name: string; providers?: number; facilities?: number }> } = {}): Promise<void> {
  if (!existsSync('/usr/bin/time')) throw new Error('bench/build needs GNU time (/usr/bin/time): apt-get install time');
  const sizes = options.sizes ?? [
    { name: 'default sample' },
    { name: 'full scale', providers: 4_000_000, facilities: 85_000 },
  ];
  const rows: string[][] = [];
  for (const size of sizes) {
    const dir = path.join(tmpdir(), `hcas-bench-${size.providers ?? 'default'}`);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const sampleArgs = ['bin/hcas.js', 'sample', '--out', path.join(dir, 'raw')];
    if (size.providers) sampleArgs.push('--providers', String(size.providers), '--facilities', String(size.facilities));
    const sample = measure(sampleArgs);
    const manifest = path.join(ROOT, 'raw/manifests/sample.json');
    const out = path.join(dir, 'hcas.sqlite');
    const built = measure(['bin/hcas.js', 'build', '--manifest', manifest, '--out', out, '--quiet', '--root', path.join(dir, 'raw')]);
    const baseline = measure(['bin/run-ts.js', 'bench/read-only.ts', manifest, path.join(dir, 'raw')]);
    // Check the answer before reporting the time: every ZCTA scored and the providers all there.
    const db = new Database(out, { readonly: true });
    const zips = (db.prepare('SELECT COUNT(*) AS n FROM zips').get() as { n: number }).n;
    const providers = (db.prepare('SELECT COUNT(*) AS n FROM providers').get() as { n: number }).n;
    db.close();
    if (zips !== 33_791) throw new Error(`${size.name}: expected 33,791 ZIPs, got ${zips}`);
    rows.push([size.name, String(providers), sample.seconds.toFixed(1), sample.peakRssMb.toFixed(0), built.seconds.toFixed(1), built.peakRssMb.toFixed(0), baseline.seconds.toFixed(1), (built.seconds / baseline.seconds).toFixed(2)]);
    rmSync(dir, { recursive: true, force: true });
  }
  const header = ['size', 'providers', 'sample s', 'sample MB', 'build s', 'build peak MB', 'read-only s', 'build/read'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padStart(widths[i])).join('  ');
  console.log('\nBuild (targets: full scale < 300 s and < 2048 MB peak)');
  console.log(line(header));
  for (const row of rows) console.log(line(row));
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const full = !process.argv.includes('--default-only');
  await benchBuild(full ? {} : { sizes: [{ name: 'default sample' }] });
}
