import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { serviceMissing } from './services.ts';

/** True when a `redis-server` binary is on PATH (CI installs Debian's package). */
export const HAVE_REDIS_SERVER = (() => {
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** Redis for tests: REDIS_URL when CI sets it, else a server of our own when the binary exists. */
export const REDIS_AVAILABLE = Boolean(process.env.REDIS_URL) || HAVE_REDIS_SERVER;

/** Says loudly that Redis tests are skipped: they never pass silently, and under CI=true they fail. */
export function warnRedisSkipped(what: string): void {
  serviceMissing(what, 'No Redis: set REDIS_URL or install redis-server (apt-get install -y redis-server); .ci/run does both.');
}

/** A unique key prefix, so tests sharing one Redis never see each other's keys and counters. */
export function uniquePrefix(name: string): string {
  return `hcas-test-${name}-${process.pid}-${Math.random().toString(36).slice(2, 8)}:`;
}

/** A redis-server of the test's own on a free loopback port, which the test may stop and start again. */
export class OwnRedis {
  readonly url: string;
  private child: ChildProcess | undefined;
  private readonly dir = mkdtempSync(path.join(tmpdir(), 'hcas-redis-'));

  readonly port: number;
  private readonly persistent: boolean;

  private constructor(port: number, persistent: boolean) {
    this.port = port;
    this.persistent = persistent;
    this.url = `redis://127.0.0.1:${port}`;
  }

  /**
   * Starts one (the binary must exist: check HAVE_REDIS_SERVER). `persistent`: every write is in its
   * append-only file before it is answered, so a restart after `kill` keeps all it answered.
   */
  static async start(options: { persistent?: boolean } = {}): Promise<OwnRedis> {
    const redis = new OwnRedis(await freePort(), options.persistent ?? false);
    await redis.resume();
    return redis;
  }

  /** Starts (again) on the same port. */
  async resume(): Promise<void> {
    const persistence = this.persistent ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no'];
    this.child = spawn(
      'redis-server',
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', ...persistence, '--dir', this.dir],
      {
        stdio: 'ignore',
      },
    );
    const deadline = Date.now() + 10_000;
    while (!(await canConnect(this.port))) {
      if (Date.now() > deadline) throw new Error(`redis-server did not start on port ${this.port}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Stops it where it is (SIGSTOP): connections stay open and nothing is answered, as from a hung server. */
  pause(): void {
    this.child?.kill('SIGSTOP');
  }

  /** Lets a paused server go on (SIGCONT): it answers what it was sent meanwhile. */
  unpause(): void {
    this.child?.kill('SIGCONT');
  }

  /** Kills it (SIGKILL: as if the machine it runs on went away) and waits until it is gone. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return; // gone already (killed before)
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    });
  }

  async stop(): Promise<void> {
    await this.kill();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** A shared Redis URL for a test file: REDIS_URL, or an own server (stopped by the returned function). */
export async function sharedRedis(): Promise<{ url: string; stop: () => Promise<void> }> {
  if (process.env.REDIS_URL) return { url: process.env.REDIS_URL, stop: async () => {} };
  const own = await OwnRedis.start();
  return { url: own.url, stop: () => own.stop() };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
    probe.on('error', reject);
  });
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}
