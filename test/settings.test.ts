import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cgroupCpuLimit, defaultWorkers } from '../src/server/cpus.ts';
import {
  parseBoolean,
  resolveSettings,
  SERVE_SETTINGS,
  SettingError,
  SHARED_SETTINGS,
  type ServeSettings,
} from '../src/server/settings.ts';

const root = path.resolve(import.meta.dirname, '..');

/** A fake file system for the cgroup reader. */
const files = (entries: Record<string, string>) => (file: string) => entries[file];

describe('hcas serve settings: flag, else environment, else default', () => {
  const none = () => undefined;

  it('defaults', () => {
    const settings = resolveSettings(none, {});
    expect(settings).toMatchObject({
      // The file in the hcas folder, whatever the working directory (the cluster's workers read it too).
      db: path.join(root, 'dist-api/hcas.sqlite'),
      port: 8000,
      host: '127.0.0.1',
      logLevel: 'info',
      quiet: false,
      watch: true,
      limits: true,
      metrics: true,
      metricsToken: undefined,
      snapshot: true,
      snapshotDir: tmpdir(),
      sendTimeout: 30,
      maxConnections: 2048,
      maxConnectionsPerClient: 128,
    });
    expect(settings.workers).toBeGreaterThanOrEqual(1);
  });

  it('every setting reads its variable', () => {
    const env = {
      HCAS_DB: '/data/hcas.sqlite',
      HCAS_PORT: '9000',
      HCAS_HOST: '0.0.0.0',
      HCAS_WORKERS: '3',
      HCAS_LOG_LEVEL: 'WARN',
      HCAS_QUIET: 'yes',
      HCAS_WATCH: 'false',
      HCAS_LIMITS: '0',
      HCAS_METRICS: 'off',
      HCAS_METRICS_TOKEN: 'secret',
      HCAS_SNAPSHOT: 'no',
      HCAS_SNAPSHOT_DIR: '/var/cache/hcas',
      HCAS_SEND_TIMEOUT: '60',
      HCAS_MAX_CONNECTIONS: '500',
      HCAS_MAX_CONNECTIONS_PER_CLIENT: '20',
      HCAS_COUNT_WAIT: '25',
      HCAS_LOOPBACK_UNMETERED: 'on',
    };
    expect(resolveSettings(none, env)).toEqual({
      db: '/data/hcas.sqlite',
      port: 9000,
      host: '0.0.0.0',
      workers: 3,
      logLevel: 'warn',
      quiet: true,
      watch: false,
      limits: false,
      metrics: false,
      metricsToken: 'secret',
      snapshot: false,
      snapshotDir: '/var/cache/hcas',
      sendTimeout: 60,
      maxConnections: 500,
      maxConnectionsPerClient: 20,
      countWait: 25,
      loopbackUnmetered: true,
    });
    // Each variable in the table is one of these: a new setting must be added to the test too.
    expect(SERVE_SETTINGS.map((s) => s.env).sort()).toEqual(Object.keys(env).sort());
  });

  it('a flag wins over its variable; an empty variable is unset', () => {
    const flags: Partial<Record<keyof ServeSettings, unknown>> = { port: '8080', watch: true, quiet: false };
    const settings = resolveSettings((key) => flags[key], { HCAS_PORT: '9000', HCAS_WATCH: 'false', HCAS_QUIET: 'true', HCAS_HOST: '' });
    expect(settings).toMatchObject({ port: 8080, watch: true, quiet: false, host: '127.0.0.1' });
  });

  it('a bad value names the flag or the variable, what it accepts and what it got', () => {
    const fails = (env: Record<string, string>, flags: Partial<Record<keyof ServeSettings, unknown>> = {}) => {
      try {
        resolveSettings((key) => flags[key], env);
      } catch (error) {
        expect(error).toBeInstanceOf(SettingError);
        return (error as Error).message;
      }
      throw new Error('expected an error');
    };
    expect(fails({ HCAS_PORT: '80000' })).toBe('HCAS_PORT must be an integer from 0 to 65535, got 80000');
    expect(fails({}, { port: 'x' })).toBe('--port must be an integer from 0 to 65535, got x');
    expect(fails({ HCAS_WORKERS: '0' })).toBe('HCAS_WORKERS must be an integer from 1 to 256, got 0');
    expect(fails({ HCAS_LOG_LEVEL: 'verbose' })).toBe('HCAS_LOG_LEVEL must be one of debug, info, warn, error, got verbose');
    expect(fails({ HCAS_WATCH: 'maybe' })).toBe('HCAS_WATCH must be true or false (also 1/0, yes/no, on/off), got maybe');
  });

  it('booleans: true/false, 1/0, yes/no, on/off, any case', () => {
    for (const yes of ['1', 'true', 'TRUE', 'yes', 'on']) expect(parseBoolean(yes)).toBe(true);
    for (const no of ['0', 'false', 'No', 'off']) expect(parseBoolean(no)).toBe(false);
  });

  it('a bad variable stops `hcas serve` with one line naming it', async () => {
    const result = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        ['bin/hcas.js', 'serve'],
        { cwd: root, env: { ...process.env, HCAS_PORT: 'eighty' }, timeout: 30_000 },
        (error, _stdout, stderr) => resolve({ code: error ? (error.code as number) : 0, stderr }),
      );
    });
    expect(result).toEqual({ code: 2, stderr: 'hcas: HCAS_PORT must be an integer from 0 to 65535, got eighty\n' });
  });
});

describe('workers: one per CPU the process may use, the cgroup quota included', () => {
  it('cgroup v2: cpu.max of the group and its parents, the smallest wins, fractions round down', () => {
    const v2 = (own: string, parent = 'max 100000') =>
      files({
        '/proc/self/cgroup': '0::/system.slice/hcas.service\n',
        '/sys/fs/cgroup/system.slice/hcas.service/cpu.max': own,
        '/sys/fs/cgroup/system.slice/cpu.max': parent,
      });
    expect(cgroupCpuLimit(v2('max 100000'))).toBeUndefined();
    expect(cgroupCpuLimit(v2('200000 100000'))).toBe(2);
    expect(cgroupCpuLimit(v2('150000 100000'))).toBe(1);
    expect(cgroupCpuLimit(v2('50000 100000'))).toBe(1);
    expect(cgroupCpuLimit(v2('400000 100000', '300000 100000'))).toBe(3);
  });

  it("a container: the namespace root is the container's group", () => {
    expect(cgroupCpuLimit(files({ '/proc/self/cgroup': '0::/\n', '/sys/fs/cgroup/cpu.max': '100000 100000\n' }))).toBe(1);
  });

  it('cgroup v1: cfs_quota_us / cfs_period_us; -1 is no quota', () => {
    const v1 = (quota: string) =>
      files({
        '/proc/self/cgroup': '12:memory:/docker/abc\n4:cpu,cpuacct:/docker/abc\n0::/\n',
        '/sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_quota_us': quota,
        '/sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_period_us': '100000',
      });
    expect(cgroupCpuLimit(v1('-1'))).toBeUndefined();
    expect(cgroupCpuLimit(v1('300000'))).toBe(3);
  });

  it('the default is the smaller of the CPUs and the quota: 1 CPU on a 64-core host forks 1 worker', () => {
    const oneCpu = files({ '/proc/self/cgroup': '0::/\n', '/sys/fs/cgroup/cpu.max': '100000 100000' });
    expect(defaultWorkers(oneCpu, 64)).toBe(1);
    expect(defaultWorkers(files({}), 64)).toBe(64);
    expect(defaultWorkers(files({ '/proc/self/cgroup': '0::/\n', '/sys/fs/cgroup/cpu.max': '800000 100000' }), 4)).toBe(4);
  });
});

describe('the settings table in the README', () => {
  const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
  const rows = readme.split('\n').filter((line) => line.startsWith('|'));

  it('has a row for every setting, with its flag, variable and default', () => {
    for (const setting of [...SERVE_SETTINGS, ...SHARED_SETTINGS]) {
      const row = rows.find((line) => line.includes(`\`${setting.env}\``));
      expect(row, `add a row for ${setting.env} to the README's settings table`).toBeDefined();
      if (setting.flag) expect(row, setting.env).toContain(`\`${setting.flag.split(' ')[0]}`);
      expect(row, setting.env).toContain(setting.shown.startsWith('(') ? setting.shown : `\`${setting.shown}\``);
    }
  });
});
