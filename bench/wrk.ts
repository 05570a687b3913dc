/**
 * Load from wrk (Debian package `wrk`), the tool the issues state their HTTP targets in: a C client with one
 * thread leaves the servers most of a 2-core machine, where autocannon (Node) takes a core of its own.
 * Paths rotate through a Lua script; the servers' CPU per request is read from /proc like bench/api.ts does.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Measured } from './api.ts';
import { cpuSeconds } from './lib.ts';

/** wrk on PATH, or undefined (then the callers say what they skip). */
export const WRK = (() => {
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' });
    return 'wrk';
  } catch (error) {
    // wrk prints its version and exits 1; only a missing binary is an error here.
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? undefined : 'wrk';
  }
})();

export interface WrkTarget {
  /** Base address, `http://127.0.0.1:PORT` or `https://...` (wrk does not check certificates). */
  url: string;
  paths: string[];
  headers?: Record<string, string>;
  /** Processes whose CPU time is charged to the requests (a server, or nginx and its replicas). */
  pids: number[];
}

/** `wrk -t1 -cCONNECTIONS -dSECONDS --latency` on the target; failures are socket errors plus non-2xx answers. */
export function runWrk(target: WrkTarget, seconds: number, connections = 32): Measured {
  if (!WRK) throw new Error('wrk is not installed: apt-get install wrk');
  const dir = mkdtempSync(path.join(tmpdir(), 'hcas-wrk-'));
  try {
    const script = pathsScript(dir, target);
    const cpuBefore = cpuOf(target);
    const out = execFileSync(WRK, wrkArgs(script, target, seconds, connections), { encoding: 'utf8' });
    return parseWrk(out, cpuOf(target) - cpuBefore);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * One wrk per target, all at once (`-t1 -cCONNECTIONS` each): the targets share the machine for the same
 * seconds, so a drift of its speed (these VMs change by up to 2x within a day) moves them alike, and their
 * CPU per request compares where consecutive rounds would not.
 */
export async function runWrkTogether(targets: WrkTarget[], seconds: number, connections = 16): Promise<Measured[]> {
  if (!WRK) throw new Error('wrk is not installed: apt-get install wrk');
  const dir = mkdtempSync(path.join(tmpdir(), 'hcas-wrk-'));
  try {
    const scripts = targets.map((target, i) => pathsScript(dir, target, `paths-${i}.lua`));
    const cpuBefore = targets.map(cpuOf);
    const outputs = await Promise.all(
      targets.map(
        (target, i) =>
          new Promise<string>((resolve, reject) => {
            const child = spawn(WRK!, wrkArgs(scripts[i], target, seconds, connections), { stdio: ['ignore', 'pipe', 'inherit'] });
            let out = '';
            child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
            child.on('error', reject);
            child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`wrk exited with ${code}: ${out}`))));
          }),
      ),
    );
    return targets.map((target, i) => parseWrk(outputs[i], cpuOf(target) - cpuBefore[i]));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function wrkArgs(script: string, target: WrkTarget, seconds: number, connections: number): string[] {
  return ['-t1', `-c${connections}`, `-d${seconds}s`, '--latency', '-s', script, target.url];
}

/** CPU seconds of the target's processes so far. */
function cpuOf(target: WrkTarget): number {
  return target.pids.reduce((sum, pid) => sum + cpuSeconds(pid), 0);
}

/** The Lua script that sends the target's headers and rotates through its paths. */
function pathsScript(dir: string, target: WrkTarget, name = 'paths.lua'): string {
  const script = path.join(dir, name);
  const headers = Object.entries(target.headers ?? {}).map(
    ([header, value]) => `wrk.headers[${JSON.stringify(header)}] = ${JSON.stringify(value)}`,
  );
  writeFileSync(
    script,
    [
      ...headers,
      `local paths = {${target.paths.map((p) => JSON.stringify(p)).join(',')}}`,
      'local i = 0',
      'request = function() i = i % #paths + 1; return wrk.format(nil, paths[i]) end',
      '',
    ].join('\n'),
  );
  return script;
}

const MS = { us: 1e-3, ms: 1, s: 1e3 } as const;

/** Reads wrk's report: requests, rate, latency percentiles, transfer, errors. */
export function parseWrk(out: string, cpuSecondsSpent: number): Measured {
  const number = (pattern: RegExp) => {
    const match = pattern.exec(out);
    if (!match) throw new Error(`wrk printed no ${pattern.source}:\n${out}`);
    return Number(match[1]);
  };
  const latency = (percent: number) => {
    const match = new RegExp(`^\\s+${percent}%\\s+([\\d.]+)(us|ms|s)$`, 'm').exec(out);
    if (!match) throw new Error(`wrk printed no ${percent}% latency:\n${out}`);
    return Number(match[1]) * MS[match[2] as keyof typeof MS];
  };
  const requests = number(/(\d+) requests in/);
  const errors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  const non2xx = /Non-2xx or 3xx responses: (\d+)/.exec(out);
  const transfer = /Transfer\/sec:\s+([\d.]+)(B|KB|MB|GB)/.exec(out);
  const unit = { B: 1e-6, KB: 1.024e-3, MB: 1.048576, GB: 1073.741824 };
  return {
    rps: number(/Requests\/sec:\s+([\d.]+)/),
    p50: latency(50),
    p99: latency(99),
    megabytesPerSecond: transfer ? Number(transfer[1]) * unit[transfer[2] as keyof typeof unit] : Number.NaN,
    cpuMicroseconds: (cpuSecondsSpent * 1e6) / Math.max(1, requests),
    failed: (errors ? errors.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0) + (non2xx ? Number(non2xx[1]) : 0),
  };
}
