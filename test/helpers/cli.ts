import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { PIPELINE_COMMANDS } from '../../pipeline/cli/index.ts';
import { PRODUCER_COMMANDS } from '../../producers/cli/index.ts';
import { API_COMMANDS } from '../../src/cli/commands/index.ts';
import { main } from '../../src/cli/main.ts';

/** The repository root: where `bin/hcas.js` and the compiled `dist/` are. */
export const ROOT = path.resolve(import.meta.dirname, '../..');

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** The command table as bin/hcas.js joins it. */
const COMMANDS = [...PRODUCER_COMMANDS, ...PIPELINE_COMMANDS, ...API_COMMANDS];

/** A stream that keeps every byte written to it. */
class Captured extends Writable {
  private readonly chunks: Buffer[] = [];

  override _write(chunk: Buffer | string, _encoding: BufferEncoding, done: () => void): void {
    this.chunks.push(Buffer.from(chunk));
    done();
  }

  get bytes(): Buffer {
    return Buffer.concat(this.chunks);
  }
}

export interface RunOptions {
  cwd?: string;
  /** Added to this process's environment; a variable set to undefined is removed. */
  env?: Record<string, string | undefined>;
  timeoutMs?: number;
  /** For `shell`: the folder whose `hcas` comes first on PATH (default: this package's, from linkedBin()). */
  bin?: string;
}

/**
 * A folder holding `hcas` as `npm link` installs it, a symlink to a package's bin/hcas.js, to put first on
 * PATH: command lines in tests (and the help's examples) then read as a user types them.
 */
export function linkedBin(packageRoot: string = ROOT): string {
  const dir = path.join(mkdtempSync(path.join(tmpdir(), 'hcas-bin-')), 'bin');
  mkdirSync(dir);
  symlinkSync(path.join(packageRoot, 'bin/hcas.js'), path.join(dir, 'hcas'));
  return dir;
}

let rootBin: string | undefined;

function environment(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  for (const [name, value] of Object.entries(extra)) if (value === undefined) delete env[name];
  return env;
}

function exitCode(error: (Error & { code?: unknown }) | null): number {
  return error ? (typeof error.code === 'number' ? error.code : 1) : 0;
}

/**
 * Runs `hcas ARGS` in this process: the same `main` and command table bin/hcas.js runs, writing to buffers
 * and reading the environment given (this process's, with `env` added), so a command test costs no process
 * start. It runs the TypeScript under test; what only a real process shows (bin/hcas.js itself, a working
 * directory of its own, signals, pipes) is for `hcasProcess` and `shell`.
 */
export async function hcas(
  args: string[],
  options: Omit<RunOptions, 'cwd' | 'bin' | 'timeoutMs'> = {},
): Promise<Run & { stdoutBytes: Buffer }> {
  const stdout = new Captured();
  const stderr = new Captured();
  const code = await main([process.execPath, 'hcas', ...args], COMMANDS, { stdout, stderr, env: environment(options.env) });
  return { code, stdout: stdout.bytes.toString('utf8'), stdoutBytes: stdout.bytes, stderr: stderr.bytes.toString('utf8') };
}

/** Runs `hcas ARGS` in a child process (bin/hcas.js, running dist/), as a user would. */
export function hcasProcess(args: string[], options: RunOptions = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [path.join(ROOT, 'bin/hcas.js'), ...args],
      { cwd: options.cwd ?? ROOT, env: environment(options.env), timeout: options.timeoutMs ?? 60_000, maxBuffer: 64 * 2 ** 20 },
      (error, stdout, stderr) => resolve({ code: exitCode(error), stdout, stderr }),
    );
  });
}

/**
 * Runs a bash command line with `hcas` first on PATH (and node's folder after it). `statuses` holds the exit
 * status of each command of its last pipeline, left to right (bash's PIPESTATUS), so
 * `hcas export providers | head -1` tells hcas's own status, not just head's.
 */
export function shell(command: string, options: RunOptions = {}): Promise<Run & { statuses: number[] }> {
  const marker = 'PIPESTATUS=';
  const script = `${command}\nstatuses="\${PIPESTATUS[*]}"\necho "${marker}$statuses" >&2`;
  rootBin ??= linkedBin();
  const PATH = [options.bin ?? rootBin, path.dirname(process.execPath), process.env.PATH].join(path.delimiter);
  return new Promise((resolve) => {
    execFile(
      'bash',
      ['-c', script],
      {
        cwd: options.cwd ?? ROOT,
        env: environment({ ...options.env, PATH }),
        timeout: options.timeoutMs ?? 60_000,
        maxBuffer: 64 * 2 ** 20,
      },
      (error, stdout, stderr) => {
        const at = stderr.lastIndexOf(marker);
        const statuses =
          at < 0
            ? []
            : stderr
                .slice(at + marker.length)
                .trim()
                .split(' ')
                .map(Number);
        resolve({ code: exitCode(error), stdout, stderr: at < 0 ? stderr : stderr.slice(0, at), statuses });
      },
    );
  });
}
