import cluster from 'node:cluster';
import net from 'node:net';
import { availableParallelism } from 'node:os';
import type { Command } from 'commander';
import { checkLimits, limitsOptions, openLimits, type LimitsCliOptions } from '../limits.ts';
import { DEFAULT_DATABASE, openApi } from '../api-client.ts';
import { CliError } from '../errors.ts';

interface ServeOptions extends LimitsCliOptions {
  db: string;
  port: number;
  host: string;
  workers: number;
  quiet?: boolean;
  watch: boolean;
}

function wholeNumber(flag: string, min: number, max: number) {
  return (value: string): number => {
    const n = /^\d+$/.test(value) ? Number(value) : NaN;
    if (!(n >= min && n <= max)) throw new CliError(`${flag} must be an integer from ${min} to ${max}, got ${value}`);
    return n;
  };
}

/** Tries the address first, so a busy port is one clear error instead of failing workers. */
function checkCanListen(host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', (error: NodeJS.ErrnoException) => {
      const fix = error.code === 'EADDRINUSE' ? 'stop the other server or pass --port N (--port 0 picks a free one)'
        : error.code === 'EADDRNOTAVAIL' ? 'pass an address of this machine with --host' : 'check --host and --port';
      reject(new CliError(`cannot listen on ${host}:${port} (${error.code ?? error.message}): ${fix}`));
    });
    probe.listen(port, host, () => probe.close(() => resolve()));
  });
}

/** `hcas serve`: the JSON API over HTTP, one process per core by default. */
export function registerServe(program: Command): void {
  const command = program
    .command('serve')
    .description('Serve the JSON API from the database (read-only); reloads when the file is replaced or on SIGHUP')
    .option('--db <file>', 'database to serve', DEFAULT_DATABASE)
    .option('--port <n>', 'TCP port (0 picks a free one)', wholeNumber('--port', 0, 65535), 8000)
    .option('--host <addr>', 'address to listen on', '127.0.0.1')
    .option('--workers <n>', 'worker processes (1 serves in this process)', wholeNumber('--workers', 1, 256), availableParallelism())
    .option('--quiet', 'no request log lines on stdout')
    .option('--no-watch', 'do not reload when the database file changes (SIGHUP still reloads)')
    .option('--no-limits', 'serve every caller without keys, quotas or rate-limit headers (benchmarks, private networks)');
  limitsOptions(command, { server: true })
    .addHelpText('after', [
      '',
      'Logs one JSON line per request on stdout: time, method, path, status, duration_ms, bytes.',
      'SIGTERM or SIGINT finishes in-flight requests, then exits. SIGHUP reopens the database file.',
      '',
      'Examples:',
      '  hcas serve',
      '  hcas serve --port 8080 --host 0.0.0.0 --workers 4',
      '  hcas serve --plans b --state /var/lib/hcas/state.sqlite --trust-proxy 127.0.0.1,::1',
      '  REDIS_URL=redis://127.0.0.1:6379 hcas serve          # keys and quotas shared by several servers',
      '  curl -s http://127.0.0.1:8000/api/v1/health-scores/10001/',
    ].join('\n'))
    .action(async (options: ServeOptions) => {
      // Loaded when the server starts, not for `hcas --help`.
      const [{ runCluster, runServer }, { jsonLines }] = await Promise.all([import('../../server/cluster.ts'), import('../../server/log.ts')]);
      const server = { db: options.db, port: options.port, host: options.host, quiet: options.quiet, watch: options.watch };
      if (cluster.isPrimary) {
        // Fail here, once, with the fix, rather than in every worker.
        openApi(options.db).retire();
        if (options.limits) await checkLimits(options);
        await checkCanListen(options.host, options.port);
        if (options.workers > 1) {
          const code = await runCluster(options.workers);
          if (code !== 0) throw new CliError('the server stopped because its workers kept failing', code);
          return;
        }
      }
      if (!options.limits) return runServer(server);
      const log = jsonLines(process.stdout);
      const limits = await openLimits(options, { log });
      try {
        await runServer({ ...server, log, gate: limits.gate });
      } finally {
        await limits.close();
      }
    });
}
