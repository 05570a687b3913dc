import cluster, { type Worker } from 'node:cluster';
import { tmpdir } from 'node:os';
import { BuildKeeper } from './build-keeper.ts';
import { PrimaryBuilds, shareBuilds } from './cluster-builds.ts';
import { primaryMetrics, workerMetrics } from './cluster-metrics.ts';
import { flushLogOnExit } from './fatal.ts';
import { Handoffs } from './handoffs.ts';
import { jsonLines, type LevelledLog, type LineLog } from './log.ts';
import { logOutput } from './log-output.ts';
import { startServer, type ServerOptions } from './server.ts';
import { DEFAULT_TIMEOUTS } from './transport.ts';

const SHUTDOWN_SIGNALS = ['SIGTERM', 'SIGINT'] as const;
/** A worker that dies sooner than this after starting counts as a quick crash. */
export const CRASH_WINDOW_MS = 5_000;
/** Quick crashes in a row after which the primary says so (`crash_loop`) and waits longest between restarts. */
const MAX_QUICK_CRASHES = 5;
/** Wait before restarting after the first quick crash; it doubles with each one after it, up to the next. */
export const FIRST_RESTART_DELAY_MS = 500;
export const MAX_RESTART_DELAY_MS = 30_000;

/**
 * Runs one server in this process until SIGTERM or SIGINT, then finishes in-flight requests and returns.
 * SIGHUP reloads the database file. In a cluster worker, tells the primary where it listens.
 */
export async function runServer(options: ServerOptions): Promise<void> {
  const log = options.log ?? jsonLines(logOutput());
  const levelled = 'close' in log ? (log as LevelledLog) : undefined;
  const uninstall = levelled && flushLogOnExit(levelled);
  // In a worker, /metrics asks the primary for the sum of every worker's metrics.
  const metricsText =
    cluster.isWorker && options.metrics?.enabled !== false
      ? (local: { registry: Parameters<typeof workerMetrics>[0] }) => workerMetrics(local.registry)
      : undefined;
  // A worker serves the builds its primary checked; a server on its own checks its own.
  const builds = options.builds ?? PrimaryBuilds.fromEnvironment();
  const server = await startServer({ metricsText, ...options, builds, log });
  const reload = () => server.reload('signal');
  process.on('SIGHUP', reload);
  const started = {
    time: new Date().toISOString(),
    level: 'info',
    event: 'listening',
    url: server.url,
    build_id: server.live.current.buildId,
    pid: process.pid,
  };
  if (cluster.isWorker) process.send?.({ ...started, event: 'worker_listening' });
  else log(started);
  // Handlers stay installed until the end: a second signal (Ctrl-C reaches every worker and the primary
  // forwards SIGTERM too) must not kill the process while it finishes its requests.
  let stop: (signal: string) => void = () => {};
  const stopped = new Promise<string>((resolve) => (stop = resolve));
  const handlers = SHUTDOWN_SIGNALS.map((name) => [name, () => stop(name)] as const);
  for (const [name, handler] of handlers) process.on(name, handler);
  const signal = await stopped;
  log({ time: new Date().toISOString(), level: 'info', event: 'shutting_down', signal, pid: process.pid });
  await server.close();
  process.off('SIGHUP', reload);
  for (const [name, handler] of handlers) process.off(name, handler);
  log({ time: new Date().toISOString(), level: 'info', event: 'stopped', pid: process.pid });
  await levelled?.close();
  uninstall?.();
  // The IPC channel to the primary would keep a worker alive after its server has closed.
  if (cluster.isWorker) process.disconnect();
}

/** What the primary needs beyond its worker count (defaults: `hcas serve`'s settings). */
export interface ClusterOptions {
  /** The database file to check and hand the workers. */
  db: string;
  metrics?: boolean;
  /** Reload when the file is replaced (default true). */
  watch?: boolean;
  /** Where private copies of the database file are made (default: the system temp folder); false serves the file itself. */
  snapshotDir?: string | false;
  /** The workers' send timeout (`--send-timeout`): the primary holds no connection longer (handoffs.ts). */
  sendTimeoutMs?: number;
}

/**
 * The cluster primary: checks (and by default copies) the database file, forks `workers` processes that
 * each run `runServer` on the same port and serve that checked build (the primary hands out connections
 * round-robin, and those a dying worker never took to another: handoffs.ts), watches the file and hands
 * every worker each new good build, takes the file again on SIGHUP, restarts a worker that dies, and on
 * SIGTERM/SIGINT stops them all and returns once every one has finished its in-flight requests. Workers that keep dying are restarted ever more slowly (up to
 * every 30 s), never given up on: the primary keeps its last good build (and takes the file again when
 * that build looks damaged), and a new good build restarts the waiting workers at once.
 */
export async function runCluster(
  workers: number,
  log: LineLog & Partial<LevelledLog> = jsonLines(logOutput()),
  options: ClusterOptions,
): Promise<number> {
  const uninstall = log.close && flushLogOnExit(log as LevelledLog);
  const snapshotDir = options.snapshotDir === false ? undefined : (options.snapshotDir ?? tmpdir());
  const keeper = await BuildKeeper.open({ file: options.db, snapshotDir, log });
  const pool = new WorkerPool(workers, keeper, log, options.sendTimeoutMs ?? DEFAULT_TIMEOUTS.sendMs);
  if (options.watch ?? true) keeper.watch();
  if (options.metrics ?? true) primaryMetrics();
  pool.start();
  const onHangup = () => void keeper.refresh('signal');
  process.on('SIGHUP', onHangup);

  return new Promise<number>((resolve) => {
    const handlers = SHUTDOWN_SIGNALS.map((name) => [name, () => pool.stop(name)] as const);
    for (const [name, handler] of handlers) process.on(name, handler);
    pool.onStopped = () => {
      process.off('SIGHUP', onHangup);
      for (const [name, handler] of handlers) process.off(name, handler);
      keeper.close();
      log({ time: new Date().toISOString(), level: 'info', event: 'stopped', pid: process.pid });
      const done = () => {
        uninstall?.();
        resolve(0);
      };
      log.close ? log.close().then(done, done) : done();
    };
  });
}

/**
 * The primary's workers: forked with the build they serve, restarted when they die (ever more slowly while
 * they keep dying on start, at once when a new good build comes), stopped together.
 */
class WorkerPool {
  /** Called once, when the pool was stopped and its last worker has exited. */
  onStopped: () => void = () => {};
  private stopping = false;
  private quickCrashes = 0;
  private listening = 0;
  /** Every worker forked and not yet exited, with when it started. */
  private readonly startedAt = new Map<Worker, number>();
  private readonly restarts = new Set<NodeJS.Timeout>();
  private readonly workerEnv: () => Record<string, string>;
  // Connections handed to a worker that dies before it takes them go to another (Node's primary kept them).
  private readonly handoffs: Handoffs;

  private readonly size: number;
  private readonly keeper: BuildKeeper;
  private readonly log: LineLog;

  constructor(size: number, keeper: BuildKeeper, log: LineLog, sendTimeoutMs: number) {
    this.size = size;
    this.keeper = keeper;
    this.log = log;
    this.workerEnv = shareBuilds(keeper);
    this.handoffs = new Handoffs(log, sendTimeoutMs);
  }

  start(): void {
    for (let i = 0; i < this.size; i++) this.fork();
    // A new good build is a new chance for workers waiting to be restarted: start them now.
    this.keeper.subscribe({ build: () => this.restartNow(), failed: () => {} });
    cluster.on('exit', (worker, code, signal) => this.exited(worker, code, signal));
  }

  /** Stops restarting, and asks every worker to finish its in-flight requests and exit. */
  stop(signal: string): void {
    if (this.stopping) return;
    this.stopping = true;
    this.handoffs.stop();
    for (const timer of this.restarts) clearTimeout(timer);
    this.log({ time: new Date().toISOString(), level: 'info', event: 'shutting_down', signal, pid: process.pid });
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM');
    this.stoppedIfDone();
  }

  private fork(): void {
    const worker = cluster.fork(this.workerEnv());
    this.handoffs.watch(worker);
    this.startedAt.set(worker, Date.now());
    worker.on('message', (message: { event?: string; url?: string; build_id?: string }) => {
      if (message.event !== 'worker_listening') return;
      this.listening++;
      if (this.listening === this.size)
        this.log({
          time: new Date().toISOString(),
          level: 'info',
          event: 'listening',
          url: message.url,
          build_id: message.build_id,
          workers: this.size,
          pid: process.pid,
        });
    });
  }

  private restartNow(): void {
    this.quickCrashes = 0;
    for (const timer of this.restarts) {
      clearTimeout(timer);
      this.restarts.delete(timer);
      if (!this.stopping) this.fork();
    }
  }

  private exited(worker: Worker, code: number, signal: string): void {
    const lived = Date.now() - (this.startedAt.get(worker) ?? 0);
    this.startedAt.delete(worker);
    if (!this.stopping) this.restartLater(worker, code, signal, lived);
    this.stoppedIfDone();
  }

  /** Restarts a worker that died: at once after a worker that lived, after a doubling delay while they keep dying on start. */
  private restartLater(worker: Worker, code: number, signal: string, lived: number): void {
    this.log({ time: new Date().toISOString(), level: 'warn', event: 'worker_exit', pid: worker.process.pid, code, signal });
    this.quickCrashes = lived < CRASH_WINDOW_MS ? this.quickCrashes + 1 : 0;
    const delayMs = this.quickCrashes === 0 ? 0 : Math.min(MAX_RESTART_DELAY_MS, FIRST_RESTART_DELAY_MS * 2 ** (this.quickCrashes - 1));
    // A worker that could not start may have found the build it was handed damaged: take the file again.
    if (this.quickCrashes > 0 && !this.keeper.currentLooksWhole()) void this.keeper.refresh('recover');
    if (this.quickCrashes === MAX_QUICK_CRASHES) {
      this.log({
        time: new Date().toISOString(),
        level: 'error',
        event: 'crash_loop',
        message: `workers keep dying on start (see the errors above); restarting them at most every ${MAX_RESTART_DELAY_MS / 1000} s until one stays up`,
      });
    }
    const timer = setTimeout(() => {
      this.restarts.delete(timer);
      if (!this.stopping) this.fork();
    }, delayMs);
    this.restarts.add(timer);
  }

  private stoppedIfDone(): void {
    // Counted by exit events, not by cluster.workers: Node keeps a worker that exited before its IPC channel
    // closed listed until the channel closes, and no exit event follows that (a primary stopped with every
    // worker gone waited forever, once, under load).
    if (this.stopping && this.startedAt.size === 0) this.onStopped();
  }
}
