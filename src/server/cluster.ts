import cluster, { type Worker } from 'node:cluster';
import { primaryMetrics, workerMetrics } from './cluster-metrics.ts';
import { jsonLines, type LineLog } from './log.ts';
import { startServer, type ServerOptions } from './server.ts';

const SHUTDOWN_SIGNALS = ['SIGTERM', 'SIGINT'] as const;
/** A worker that dies sooner than this after starting counts as a crash loop. */
const CRASH_WINDOW_MS = 5_000;
const MAX_QUICK_CRASHES = 5;

/**
 * Runs one server in this process until SIGTERM or SIGINT, then finishes in-flight requests and returns.
 * SIGHUP reloads the database file. In a cluster worker, tells the primary where it listens.
 */
export async function runServer(options: ServerOptions): Promise<void> {
  const log = options.log ?? jsonLines(process.stdout);
  // In a worker, /metrics asks the primary for the sum of every worker's metrics.
  const metricsText = cluster.isWorker && options.metrics?.enabled !== false ? (local: { registry: Parameters<typeof workerMetrics>[0] }) => workerMetrics(local.registry) : undefined;
  const server = await startServer({ metricsText, ...options, log });
  const reload = () => server.live.reload('signal');
  process.on('SIGHUP', reload);
  const started = { time: new Date().toISOString(), level: 'info', event: 'listening', url: server.url, build_id: server.live.current.buildId, pid: process.pid };
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
  if ('flush' in log && typeof log.flush === 'function') log.flush();
  // The IPC channel to the primary would keep a worker alive after its server has closed.
  if (cluster.isWorker) process.disconnect();
}

/**
 * The cluster primary: forks `workers` processes that each run `runServer` on the same port (the primary
 * hands out connections round-robin), forwards SIGHUP to them, restarts a worker that dies, and on
 * SIGTERM/SIGINT stops them all and returns once every one has finished its in-flight requests.
 */
export async function runCluster(
  workers: number,
  log: LineLog & { flush?: () => void } = jsonLines(process.stdout),
  { metrics = true }: { metrics?: boolean } = {},
): Promise<number> {
  if (metrics) primaryMetrics();
  let stopping = false;
  let quickCrashes = 0;
  let listening = 0;
  const startedAt = new Map<Worker, number>();
  const fork = () => {
    const worker = cluster.fork();
    startedAt.set(worker, Date.now());
    worker.on('message', (message: { event?: string; url?: string; build_id?: string }) => {
      if (message.event !== 'worker_listening') return;
      listening++;
      if (listening === workers) log({ time: new Date().toISOString(), level: 'info', event: 'listening', url: message.url, build_id: message.build_id, workers, pid: process.pid });
    });
  };
  for (let i = 0; i < workers; i++) fork();

  const forward = (signal: NodeJS.Signals) => {
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill(signal);
  };
  const onHangup = () => forward('SIGHUP');
  process.on('SIGHUP', onHangup);

  return new Promise<number>((resolve) => {
    const stop = (signal: string) => {
      if (stopping) return;
      stopping = true;
      log({ time: new Date().toISOString(), level: 'info', event: 'shutting_down', signal, pid: process.pid });
      forward('SIGTERM');
      finishIfDone();
    };
    const handlers = SHUTDOWN_SIGNALS.map((name) => [name, () => stop(name)] as const);
    for (const [name, handler] of handlers) process.on(name, handler);
    function finishIfDone() {
      if (stopping && Object.keys(cluster.workers ?? {}).length === 0) {
        process.off('SIGHUP', onHangup);
        for (const [name, handler] of handlers) process.off(name, handler);
        log({ time: new Date().toISOString(), level: 'info', event: 'stopped', pid: process.pid });
        log.flush?.();
        resolve(quickCrashes >= MAX_QUICK_CRASHES ? 1 : 0);
      }
    }
    cluster.on('exit', (worker, code, signal) => {
      const lived = Date.now() - (startedAt.get(worker) ?? 0);
      startedAt.delete(worker);
      if (!stopping) {
        log({ time: new Date().toISOString(), level: 'warn', event: 'worker_exit', pid: worker.process.pid, code, signal });
        quickCrashes = lived < CRASH_WINDOW_MS ? quickCrashes + 1 : 0;
        if (quickCrashes >= MAX_QUICK_CRASHES) {
          log({ time: new Date().toISOString(), level: 'error', event: 'crash_loop', message: 'workers keep dying on start; stopping (see the errors above)' });
          stopping = true;
          forward('SIGTERM');
        } else {
          fork();
        }
      }
      finishIfDone();
    });
  });
}
