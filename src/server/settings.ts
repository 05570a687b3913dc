import { tmpdir } from 'node:os';
import { DEFAULT_DATABASE, DEFAULT_DATABASE_FILE } from '../../core/dataset.ts';
import { FixableError } from '../../core/errors.ts';
import { DEFAULT_COUNT_WAIT_MS } from '../auth/store.ts';
import { defaultWorkers } from './cpus.ts';

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Everything `hcas serve` is told, each from its flag, else its environment variable, else its default. */
export interface ServeSettings {
  db: string;
  port: number;
  host: string;
  /** Worker processes; `auto` is one per CPU the process may use (the cgroup quota included). */
  workers: number;
  logLevel: LogLevel;
  quiet: boolean;
  watch: boolean;
  limits: boolean;
  metrics: boolean;
  metricsToken: string | undefined;
  /** Serve a private, checked copy of the database file (false: the file itself). */
  snapshot: boolean;
  /** Where the private copies are made. */
  snapshotDir: string;
  /** Seconds a response may wait on a client that reads none of it before the connection is cut. */
  sendTimeout: number;
  /** Open connections per server process; more are refused. */
  maxConnections: number;
  /** Open connections per client address (IPv6: per /64) and server process; trusted proxies are exempt. */
  maxConnectionsPerClient: number;
  /** Milliseconds a request waits for Redis to count it before it is answered by the count last known. */
  countWait: number;
  /** Callers without a key on this machine, not through a proxy, are served uncounted (the quick start's owner). */
  loopbackUnmetered: boolean;
}

/** One setting: its flag (as commander declares it), its environment variable, default and parser. */
export interface Setting<K extends keyof ServeSettings = keyof ServeSettings> {
  key: K;
  /** `--port <n>`; a boolean is `--quiet` (off by default) or `--no-watch` (on by default). */
  flag: string;
  env: string;
  /** The default as the docs show it. */
  shown: string;
  description: string;
  default(): ServeSettings[K];
  /** Reads the text of the flag or the variable; throws a message naming what it accepts. */
  parse(text: string): ServeSettings[K];
}

const wholeNumber =
  (min: number, max: number) =>
  (text: string): number => {
    const n = /^\d+$/.test(text.trim()) ? Number(text) : Number.NaN;
    if (!(n >= min && n <= max)) throw new Error(`must be an integer from ${min} to ${max}, got ${text}`);
    return n;
  };

/** Booleans in the environment, as the API reads them in query strings (and the usual on/off, yes/no). */
export function parseBoolean(text: string): boolean {
  const value = text.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(value)) return true;
  if (['0', 'false', 'no', 'off'].includes(value)) return false;
  throw new Error(`must be true or false (also 1/0, yes/no, on/off), got ${text}`);
}

const text =
  (what: string) =>
  (value: string): string => {
    if (value.trim() === '') throw new Error(`must be ${what}, got an empty value`);
    return value.trim();
  };

/**
 * The settings of `hcas serve`, in the order its help and the README's table list them. The limits settings
 * (`--state-file`, `--plans`, `--trust-proxy`, `REDIS_URL`) are shared with `hcas keys` and `hcas get` and are
 * read by src/auth/config.ts; `SHARED_SETTINGS` lists them for the docs.
 */
export const SERVE_SETTINGS: readonly Setting[] = [
  {
    key: 'db',
    flag: '--db <file>',
    env: 'HCAS_DB',
    shown: DEFAULT_DATABASE,
    description: 'database file to serve (read-only)',
    // The file itself, in the hcas folder: the cluster's primary and workers read this setting, so a relative
    // default would name a file in whatever folder `hcas serve` was started from.
    default: () => DEFAULT_DATABASE_FILE,
    parse: text('a file path'),
  },
  {
    key: 'port',
    flag: '--port <n>',
    env: 'HCAS_PORT',
    shown: '8000',
    description: 'TCP port (0 picks a free one)',
    default: () => 8000,
    parse: wholeNumber(0, 65535),
  },
  {
    key: 'host',
    flag: '--host <addr>',
    env: 'HCAS_HOST',
    shown: '127.0.0.1',
    description: 'address to listen on (0.0.0.0 or :: for every interface, as in a container)',
    default: () => '127.0.0.1',
    parse: text('an IP address or host name'),
  },
  {
    key: 'workers',
    flag: '--workers <n|auto>',
    env: 'HCAS_WORKERS',
    shown: 'auto',
    description:
      'worker processes; auto is one per CPU the process may use, the cgroup CPU quota of a container or systemd unit included (1 serves in this process)',
    default: () => defaultWorkers(),
    parse: (value) => (value.trim() === 'auto' ? defaultWorkers() : wholeNumber(1, 256)(value)),
  },
  {
    key: 'logLevel',
    flag: '--log-level <level>',
    env: 'HCAS_LOG_LEVEL',
    shown: 'info',
    description: 'debug (also health checks), info (requests and lifecycle), warn, or error',
    default: () => 'info',
    parse: (value) => {
      const level = value.trim().toLowerCase();
      if (!(LOG_LEVELS as readonly string[]).includes(level)) throw new Error(`must be one of ${LOG_LEVELS.join(', ')}, got ${value}`);
      return level as LogLevel;
    },
  },
  {
    key: 'quiet',
    flag: '--quiet',
    env: 'HCAS_QUIET',
    shown: 'false',
    description: 'no request log lines (lifecycle events are still logged)',
    default: () => false,
    parse: parseBoolean,
  },
  {
    key: 'watch',
    flag: '--no-watch',
    env: 'HCAS_WATCH',
    shown: 'true',
    description: 'reload when the database file is replaced; --no-watch or HCAS_WATCH=false turns it off (SIGHUP always reloads)',
    default: () => true,
    parse: parseBoolean,
  },
  {
    key: 'limits',
    flag: '--no-limits',
    env: 'HCAS_LIMITS',
    shown: 'true',
    description:
      'API keys, plans and quotas; --no-limits or HCAS_LIMITS=false serves every caller uncounted (benchmarks, private networks)',
    default: () => true,
    parse: parseBoolean,
  },
  {
    key: 'metrics',
    flag: '--no-metrics',
    env: 'HCAS_METRICS',
    shown: 'true',
    description:
      'serve /metrics (Prometheus text) to loopback callers not behind a proxy and to callers with the token; --no-metrics or HCAS_METRICS=false turns it off',
    default: () => true,
    parse: parseBoolean,
  },
  {
    key: 'metricsToken',
    flag: '--metrics-token <token>',
    env: 'HCAS_METRICS_TOKEN',
    shown: '(none)',
    description: 'also serve /metrics to any address sending Authorization: Bearer TOKEN (prefer the variable: flags show in ps)',
    default: () => undefined,
    parse: text('a token'),
  },
  {
    key: 'snapshot',
    flag: '--no-snapshot',
    env: 'HCAS_SNAPSHOT',
    shown: 'true',
    description:
      'serve a private, checked copy of the database file, so the file may be copied over, rsynced or truncated in place without harm; --no-snapshot or HCAS_SNAPSHOT=false serves the file itself (then replace it only by renaming a new file into place)',
    default: () => true,
    parse: parseBoolean,
  },
  {
    key: 'snapshotDir',
    flag: '--snapshot-dir <dir>',
    env: 'HCAS_SNAPSHOT_DIR',
    shown: '(the system temp folder)',
    description: 'where the private copies are made: room for two builds (on btrfs or XFS a copy is a reflink and takes none)',
    default: () => tmpdir(),
    parse: text('a folder'),
  },
  {
    key: 'sendTimeout',
    flag: '--send-timeout <seconds>',
    env: 'HCAS_SEND_TIMEOUT',
    shown: '30',
    description:
      'seconds a response may wait on a client that takes less than 64 KiB of it (one that stopped reading) before the connection is reset',
    default: () => 30,
    parse: wholeNumber(1, 3600),
  },
  {
    key: 'maxConnections',
    flag: '--max-connections <n>',
    env: 'HCAS_MAX_CONNECTIONS',
    shown: '2048',
    description: 'open connections per server process (each worker); more are answered 503 and closed',
    default: () => 2048,
    parse: wholeNumber(1, 1_000_000),
  },
  {
    key: 'maxConnectionsPerClient',
    flag: '--max-connections-per-client <n>',
    env: 'HCAS_MAX_CONNECTIONS_PER_CLIENT',
    shown: '128',
    description:
      'open connections per client address (IPv6: per /64) and server process; more are answered 429 and closed; trusted proxies count only toward --max-connections',
    default: () => 128,
    parse: wholeNumber(1, 1_000_000),
  },
  {
    key: 'countWait',
    flag: '--count-wait <ms>',
    env: 'HCAS_COUNT_WAIT',
    shown: '10',
    description:
      'milliseconds a request waits for Redis to count it; past that it is answered by the count last known plus this call, and Redis still counts it (a paused Redis costs no request more)',
    default: () => DEFAULT_COUNT_WAIT_MS,
    parse: wholeNumber(1, 60_000),
  },
  {
    key: 'loopbackUnmetered',
    flag: '--loopback-unmetered',
    env: 'HCAS_LOOPBACK_UNMETERED',
    shown: 'false',
    description:
      "serve callers without a key on this machine (loopback, not through a proxy) uncounted, with every endpoint (the top plan's): npm start's, for its owner exploring with curl; never on a server behind a proxy you do not control",
    default: () => false,
    parse: parseBoolean,
  },
];

/** Settings of the key and counter state, shared by `serve`, `keys` and `get` (src/auth/config.ts reads them). */
export const SHARED_SETTINGS: ReadonlyArray<Pick<Setting, 'flag' | 'env' | 'shown' | 'description'>> = [
  {
    flag: '--state-file <file>',
    env: 'HCAS_STATE',
    shown: 'var/state.sqlite',
    description: 'SQLite file of keys and counters, shared by every worker of one server',
  },
  {
    flag: '',
    env: 'REDIS_URL',
    shown: '(none)',
    description: 'keys and counters in Redis instead, shared by every replica (a --state-file flag wins over it)',
  },
  { flag: '', env: 'HCAS_REDIS_PREFIX', shown: 'hcas:', description: 'prefix of every Redis key' },
  { flag: '--plans <a|b|file>', env: 'HCAS_PLANS', shown: 'a', description: 'plan file: preset a, preset b, or a JSON file' },
  {
    flag: '--trust-proxy <addrs>',
    env: 'HCAS_TRUST_PROXY',
    shown: '(none)',
    description: 'proxies whose X-Forwarded-For and X-Request-Id are believed: addresses and CIDR ranges, comma-separated',
  },
];

/** A setting that cannot be used; the message names the flag or variable, what it accepts, and what it got. */
export class SettingError extends FixableError {
  override name = 'SettingError';
}

/**
 * The settings from the flags given on the command line (`given(key)`: the flag's value, or undefined when it
 * was not given), else the environment, else the defaults. A flag wins over its variable.
 */
export function resolveSettings(given: (key: keyof ServeSettings) => unknown, env: NodeJS.ProcessEnv): ServeSettings {
  const settings: Record<string, unknown> = {};
  for (const setting of SERVE_SETTINGS) {
    const flagValue = given(setting.key);
    const fromEnv = env[setting.env];
    try {
      if (flagValue !== undefined) settings[setting.key] = typeof flagValue === 'string' ? setting.parse(flagValue) : flagValue;
      else if (fromEnv !== undefined && fromEnv !== '') settings[setting.key] = setting.parse(fromEnv);
      else settings[setting.key] = setting.default();
    } catch (error) {
      const source = flagValue !== undefined ? setting.flag.split(' ')[0] : setting.env;
      throw new SettingError(`${source} ${(error as Error).message}`);
    }
  }
  return settings as unknown as ServeSettings;
}
