import type { CommandIo } from '../../../core/command.ts';
import cluster from 'node:cluster';
import net from 'node:net';
import type { Command } from 'commander';
import { TrustedProxies } from '../../auth/client-ip.ts';
import { resolveSettings, SERVE_SETTINGS, type ServeSettings } from '../../server/settings.ts';
import type { LineLog } from '../../server/log.ts';
import { checkLimits, openLimits } from '../limits.ts';
import { limitsOptions, type LimitsCliOptions } from '../limits-options.ts';
import { openApi } from '../api-client.ts';
import { CliError } from '../errors.ts';
import { ALL_ROUTES } from '../../api/index.ts';

/** Tries the address first, so a busy port is one clear error instead of failing workers. */
function checkCanListen(host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', (error: NodeJS.ErrnoException) => {
      const fix =
        error.code === 'EADDRINUSE'
          ? 'stop the other server or pass --port N (--port 0 picks a free one)'
          : error.code === 'EADDRNOTAVAIL'
            ? 'pass an address of this machine with --host'
            : 'check --host and --port';
      reject(new CliError(`cannot listen on ${host}:${port} (${error.code ?? error.message}): ${fix}`));
    });
    probe.listen(port, host, () => probe.close(() => resolve()));
  });
}

/** Flags that the other settings switch off are refused: each flag given on the command line has an effect. */
function refuseWithoutEffect(options: ServeSettings & LimitsCliOptions, given: (key: string) => boolean): void {
  if (!options.limits) {
    const unused = [
      given('plans') && '--plans',
      given('stateFile') && '--state-file',
      given('countWait') && '--count-wait',
      given('loopbackUnmetered') && '--loopback-unmetered',
    ].filter(Boolean);
    if (unused.length)
      throw new CliError(
        `${unused.join(' and ')} ${unused.length === 1 ? 'has' : 'have'} no effect with limits off (--no-limits or HCAS_LIMITS=false): leave ${unused.length === 1 ? 'it' : 'them'} out, or turn limits on`,
      );
  }
  if (!options.metrics && given('metricsToken')) {
    throw new CliError(
      '--metrics-token has no effect with metrics off (--no-metrics or HCAS_METRICS=false): leave it out, or turn metrics on',
    );
  }
}

const SERVE_HELP = [
  '',
  'Logs one JSON line per request on stdout: time, level, request_id, method, path, route, status, duration_ms,',
  'bytes, client, key_id, plan, written in the background within 100 ms (all of them before the process ends,',
  'a crash included). /healthz, /readyz and /metrics are not counted and log at debug level.',
  'SIGTERM or SIGINT finishes in-flight requests, then exits. SIGHUP reopens the database file.',
  '',
  'Examples:',
  '  hcas serve                                   # then: curl -s http://127.0.0.1:8000/api/v1/health-scores/10001/',
  '  hcas serve --host 0.0.0.0 --workers 2 --quiet',
  '  HCAS_LOG_LEVEL=warn HCAS_WORKERS=1 hcas serve',
  '  hcas serve --plans b --state-file var/state-b.sqlite --trust-proxy 127.0.0.1,::1',
  '  hcas serve --no-limits --workers 1           # every caller served uncounted (benchmarks, a private network)',
].join('\n');

type ServeOptions = ServeSettings & LimitsCliOptions;

/** `hcas serve`: the JSON API over HTTP, one process per core by default. */
export function registerServe(program: Command, io: CommandIo): void {
  const command = program
    .command('serve')
    .description('Serve the JSON API from the database (read-only); reloads when the file is replaced or on SIGHUP');
  // Each setting also reads its environment variable (src/server/settings.ts; the README's table): a flag wins.
  for (const setting of SERVE_SETTINGS) command.option(setting.flag, `${setting.description} ($${setting.env}; default ${setting.shown})`);
  limitsOptions(command, { server: true })
    .addHelpText('after', SERVE_HELP)
    .action(async (flags: LimitsCliOptions & Record<string, unknown>, self: Command) => {
      const options: ServeOptions = {
        ...flags,
        ...resolveSettings((key) => (self.getOptionValueSource(key) === 'cli' ? flags[key] : undefined), io.env),
      };
      refuseWithoutEffect(options, (key) => self.getOptionValueSource(key) === 'cli');
      await serve(options, io);
    });
}

/** Checks what can be checked once (in the primary), then serves: a cluster of workers, or this process alone. */
async function serve(options: ServeOptions, io: CommandIo): Promise<void> {
  // Loaded when the server starts, not for `hcas --help`.
  const [{ runCluster }, { jsonLines }, { logOutput }] = await Promise.all([
    import('../../server/cluster.ts'),
    import('../../server/log.ts'),
    import('../../server/log-output.ts'),
  ]);
  // On the process's standard output: written in the background, in few large writes, flushed at shutdown
  // and before a crash ends the process. On another output (a command run in-process by a test), to it.
  const log = jsonLines(io.stdout === process.stdout ? logOutput() : io.stdout, options.logLevel);
  const server = serverOptions(options, io, log);
  if (cluster.isPrimary) {
    // Fail here, once, with the fix, rather than in every worker.
    openApi(options.db, io.env, ALL_ROUTES).retire();
    if (options.limits) await checkLimits(options, io.env);
    await checkCanListen(options.host, options.port);
    if (options.workers > 1) {
      const code = await runCluster(options.workers, log, {
        db: options.db,
        watch: options.watch,
        snapshotDir: server.snapshotDir,
        metrics: options.metrics,
        sendTimeoutMs: server.timeouts.sendMs,
      });
      if (code !== 0) throw new CliError('the server stopped because its workers kept failing', code);
      return;
    }
  }
  try {
    await serveHere(options, io, server);
  } catch (error) {
    // A worker that cannot serve must end, so that its primary sees it exit and restarts it later: its IPC
    // channel would keep it alive after hcas printed the error. The exit waits for that message.
    if (cluster.isWorker) setTimeout(() => process.exit(process.exitCode || 3), 100).unref();
    throw error;
  }
}

/** Every setting the server uses, handed to it here: it reads none of its own. */
function serverOptions(options: ServeOptions, io: CommandIo, log: LineLog) {
  let proxies: TrustedProxies;
  try {
    proxies = TrustedProxies.parse(options.trustProxy ?? io.env.HCAS_TRUST_PROXY);
  } catch (error) {
    throw new CliError((error as Error).message);
  }
  return {
    db: options.db,
    port: options.port,
    host: options.host,
    quiet: options.quiet,
    watch: options.watch,
    snapshotDir: options.snapshot ? options.snapshotDir : (false as const),
    log,
    proxies,
    metrics: { enabled: options.metrics, token: options.metricsToken },
    timeouts: { sendMs: options.sendTimeout * 1000 },
    connections: { maxConnections: options.maxConnections, maxPerClient: options.maxConnectionsPerClient },
  };
}

/** One server in this process (a worker, or the only one), behind the gate unless limits are off. */
async function serveHere(options: ServeOptions, io: CommandIo, server: ReturnType<typeof serverOptions>): Promise<void> {
  const { runServer } = await import('../../server/cluster.ts');
  if (!options.limits) return runServer(server);
  const limits = await openLimits(options, io.env, {
    log: server.log,
    countWaitMs: options.countWait,
    loopbackUnmetered: options.loopbackUnmetered,
  });
  try {
    await runServer({ ...server, gate: limits.gate });
  } finally {
    await limits.close();
  }
}
