import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * The arguments of `node bin/hcas.js serve` for one worker on a free port, quiet, not watching its file:
 * how tests and benchmarks start a server to measure, followed by `extra`.
 */
export function serveArgs(db: string, ...extra: string[]): string[] {
  return [path.join(root, 'bin/hcas.js'), 'serve', '--db', db, '--port', '0', '--workers', '1', '--quiet', '--no-watch', ...extra];
}

/** A server child process whose stdout JSON lines (lifecycle events) the test can wait for. */
export class ServerProcess {
  readonly events: Array<Record<string, unknown>> = [];
  readonly exited: Promise<number | null>;
  stderr = '';
  private readonly child: ChildProcess;
  private waiters: Array<() => void> = [];

  /** Starts `node ARGS` in `cwd` (the repository root unless given), with `env` added to this process's environment. */
  constructor(args: string[], env: NodeJS.ProcessEnv = {}, cwd = root) {
    this.child = spawn(process.execPath, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    let buffered = '';
    this.child.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const lines = buffered.split('\n');
      buffered = lines.pop()!;
      for (const line of lines) if (line.trim()) this.events.push(JSON.parse(line));
      for (const wake of this.waiters) wake();
    });
    this.child.stderr!.on('data', (chunk: Buffer) => (this.stderr += chunk.toString('utf8')));
    this.exited = new Promise((resolve) => this.child.on('exit', (code) => resolve(code)));
  }

  get pid(): number {
    return this.child.pid!;
  }

  /** Resolves with the first event matching `test`, waiting up to `timeoutMs`. */
  waitFor(test: (event: Record<string, unknown>) => boolean, timeoutMs = 20_000): Promise<Record<string, unknown>> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no matching event within ${timeoutMs} ms; events: ${JSON.stringify(this.events)}; stderr: ${this.stderr}`)),
        timeoutMs,
      );
      const check = () => {
        const found = this.events.find(test);
        if (!found) return;
        clearTimeout(timer);
        this.waiters = this.waiters.filter((w) => w !== check);
        resolve(found);
      };
      this.waiters.push(check);
      check();
    });
  }

  /** Waits until `count` events match. */
  async waitForCount(test: (event: Record<string, unknown>) => boolean, count: number, timeoutMs = 20_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.events.filter(test).length < count) {
      if (Date.now() > deadline) throw new Error(`expected ${count} matching events; events: ${JSON.stringify(this.events)}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  signal(name: NodeJS.Signals): void {
    this.child.kill(name);
  }

  /** Kills the process if a test left it running. */
  stop(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
  }
}
