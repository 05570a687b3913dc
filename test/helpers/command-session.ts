import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

const CHILD = path.join(import.meta.dirname, 'command-session-child.mjs');

/** A command line a session can run itself: `[VAR=value ...] hcas ARGS [> FILE] [| COMMAND ...]`. */
export interface PlainCommandLine {
  env: Record<string, string>;
  args: string[];
  /** The file of `> FILE`, as written. */
  redirect?: string;
  /** What follows the first `|`, for bash, reading the command's output. */
  pipe?: string;
}

/** Characters whose meaning only a shell knows (expansions, globs, lists, subshells, here-input). */
const SHELL_ONLY = /[$`\\;&<()*?[\]{}!~]/;

/**
 * Reads a command line the way bash would when it is a plain `hcas` command: words split on blanks, quotes
 * removed ('...' literally, "..." without escapes), a trailing `# comment` dropped, leading VAR=value words as
 * the environment, then an optional `> FILE` and an optional pipe into another command. Anything else (`&&`,
 * `$VAR`, a glob, a second redirection) gives null: that line is for a real shell.
 */
export function plainCommandLine(line: string): PlainCommandLine | null {
  const words: string[] = [];
  let at = 0;
  let redirect: string | undefined;
  let pipe: string | undefined;
  let expectRedirect = false;
  while (at < line.length) {
    const char = line[at];
    if (char === ' ' || char === '\t') {
      at++;
      continue;
    }
    if (char === '#') break;
    if (char === '|') {
      pipe = line.slice(at + 1).trim();
      if (pipe === '' || expectRedirect) return null;
      break;
    }
    if (char === '>') {
      if (redirect !== undefined || expectRedirect || line[at + 1] === '>' || line[at + 1] === '&') return null;
      expectRedirect = true;
      at++;
      continue;
    }
    let word = '';
    while (at < line.length && !' \t|>'.includes(line[at])) {
      const quote = line[at];
      if (quote === "'" || quote === '"') {
        const end = line.indexOf(quote, at + 1);
        if (end < 0) return null;
        const quoted = line.slice(at + 1, end);
        if (quote === '"' && /[$`\\!]/.test(quoted)) return null;
        word += quoted;
        at = end + 1;
      } else {
        if (SHELL_ONLY.test(quote)) return null;
        word += quote;
        at++;
      }
    }
    // `2>file`: a redirection of another descriptor, not a word.
    if (line[at] === '>' && /^\d+$/.test(word)) return null;
    if (expectRedirect) {
      if (redirect !== undefined) return null;
      redirect = word;
      expectRedirect = false;
    } else if (redirect !== undefined)
      return null; // words after the redirection: keep it simple, let bash have it
    else words.push(word);
  }
  if (expectRedirect) return null;
  const env: Record<string, string> = {};
  while (words.length > 0 && /^[A-Z_][A-Z0-9_]*=/.test(words[0])) {
    const [name, ...value] = words.shift()!.split('=');
    env[name] = value.join('=');
  }
  if (words[0] !== 'hcas') return null;
  return { env, args: words.slice(1), redirect, pipe };
}

export interface SessionRun {
  /** The exit status of `hcas`, then that of the pipe's command when there is one (bash's PIPESTATUS). */
  statuses: number[];
  stdout: string;
  stderr: string;
}

/**
 * One Node process that runs many `hcas` command lines of a package (its compiled dist/, as bin/hcas.js
 * does), one at a time, so a test of many commands pays for one process start instead of one a command
 * (test/helpers/command-session-child.mjs). Each command gets its own working directory, environment, output
 * and exit status. What only a process of its own shows (signals, a closed pipe, bin/hcas.js, a server) stays
 * with `shell` and `hcasProcess`. Output the process writes outside a command's streams is reported by
 * `stray()`: a command that writes there bypasses its CommandIo.
 */
export class CommandSession {
  private readonly child: ChildProcess;
  private readonly ready: Promise<void>;
  private queue: Promise<unknown> = Promise.resolve();
  private strayOutput = '';
  private readonly outputs = mkdtempSync(path.join(tmpdir(), 'hcas-session-'));
  private count = 0;

  constructor(packageRoot: string) {
    this.child = spawn(process.execPath, [CHILD, packageRoot], { stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
    for (const stream of [this.child.stdout!, this.child.stderr!])
      stream.on('data', (chunk: Buffer) => (this.strayOutput += chunk.toString('utf8')));
    this.ready = this.next().then(() => undefined);
  }

  /** What the process wrote outside any command's streams (empty when every command kept to its CommandIo). */
  stray(): string {
    return this.strayOutput;
  }

  /**
   * Runs `line` (see plainCommandLine) in `cwd` with the environment changes given (undefined removes a
   * variable): the command's output goes to the redirection's file, else through the pipe's command (bash,
   * reading it), else to `stdout`.
   */
  run(line: PlainCommandLine, cwd: string, env: Record<string, string | undefined> = {}): Promise<SessionRun> {
    const result = this.queue.then(() => this.runNow(line, cwd, env));
    this.queue = result.catch(() => undefined);
    return result;
  }

  private async runNow(line: PlainCommandLine, cwd: string, extra: Record<string, string | undefined>): Promise<SessionRun> {
    await this.ready;
    const out = line.redirect ? path.resolve(cwd, line.redirect) : path.join(this.outputs, `out-${++this.count}`);
    const env = Object.fromEntries(Object.entries({ ...extra, ...line.env }).map(([name, value]) => [name, value ?? null]));
    this.child.send({ args: line.args, cwd, env, out });
    const { code, stderr } = (await this.next()) as { code: number; stderr: string };
    if (line.redirect) return { statuses: [code], stdout: '', stderr };
    if (!line.pipe) {
      return { statuses: [code], stdout: await readFile(out, 'utf8'), stderr };
    }
    const piped = await readThrough(line.pipe, out, cwd);
    return { statuses: [code, piped.status], stdout: piped.stdout, stderr: stderr + piped.stderr };
  }

  /** The child's next message, or a failure naming why it ended. */
  private next(): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const onExit = (code: number | null, signal: string | null) =>
        reject(new Error(`the command session ended (status ${code}, signal ${signal}): ${this.strayOutput}`));
      this.child.once('exit', onExit);
      this.child.once('message', (message) => {
        this.child.off('exit', onExit);
        resolve(message);
      });
    });
  }

  /** Ends the process (it holds no state worth keeping). */
  async close(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      const exited = new Promise((resolve) => this.child.once('exit', resolve));
      this.child.kill('SIGTERM');
      await exited;
    }
    await rm(this.outputs, { recursive: true, force: true });
  }
}

/**
 * Runs `pipe` (the part of a command line after its first `|`) in bash with `file` as its standard input, as
 * the pipe would have read the command's output: the first command of a longer pipe reads it too. The status
 * is bash's, that of the pipe's last command.
 */
function readThrough(pipe: string, file: string, cwd: string): Promise<{ status: number; stdout: string; stderr: string }> {
  const input = openSync(file, 'r');
  const child = spawn('bash', ['-c', pipe], { cwd, stdio: [input, 'pipe', 'pipe'] });
  closeSync(input);
  let [stdout, stderr] = ['', ''];
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (status) => resolve({ status: status ?? 1, stdout, stderr }));
  });
}
