import {
  closeSync,
  copyFileSync,
  mkdirSync,
  openSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/files.ts';
import { FIXTURE_BUILD_ID, fixtureDb } from '../helpers/fixture-db.ts';
import { bodyJson, request } from '../helpers/http.ts';
import { ServerProcess } from '../helpers/process.ts';
import { attempt, freePort, load, processTree, rebuiltCopy, tally, treeRssMb, until } from './helpers.ts';

/**
 * Finding 1 of issue #16: an operator changes the database file under a running server in place
 * (`truncate -s 0`, `cp new.sqlite hcas.sqlite`, `rsync --inplace`): the same inode shrinks or is
 * rewritten while it is served. The server must keep answering from the last good build, restart workers
 * from it, say so on /readyz, refuse a bad file and take a good one, whatever the file goes through.
 */

const dir = tempDir('hcas-attack-db-');
const plansFile = path.join(dir, 'plans.json');
// One plan for everybody, with a quota no test reaches: the counters are what is checked, not the refusals.
writeFileSync(
  plansFile,
  JSON.stringify({
    name: 'attack plans',
    open: [],
    anonymous: { quota: 1_000_000, window: 'day', access: 'all' },
    plans: [{ id: 'all', name: 'All', quota: 1_000_000, window: 'day', endpoints: ['*'] }],
  }),
);
/** Resident memory the whole server (primary and two workers) may use on the fixture: measured 190-210 MiB. */
const RSS_BOUND_MB = 450;

let fixture: string;
let zips: string[];
const running: ServerProcess[] = [];
beforeAll(async () => {
  fixture = await fixtureDb();
  const db = new Database(fixture, { readonly: true });
  zips = db.prepare('SELECT zip_code FROM zips ORDER BY zip_code').pluck().all() as string[];
  db.close();
});
afterEach(() => {
  for (const server of running.splice(0)) server.stop();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function serve(
  name: string,
  extra: string[] = [],
  port = 0,
): Promise<{ server: ServerProcess; url: string; file: string; state: string }> {
  const folder = path.join(dir, name);
  mkdirSync(folder, { recursive: true });
  const file = path.join(folder, 'hcas.sqlite');
  copyFileSync(fixture, file);
  const state = path.join(folder, 'state.sqlite');
  const server = new ServerProcess([
    'bin/hcas.js',
    'serve',
    '--db',
    file,
    '--port',
    String(port),
    '--quiet',
    '--state-file',
    state,
    '--plans',
    plansFile,
    ...extra,
  ]);
  running.push(server);
  const listening = await server.waitFor((e) => e.event === 'listening');
  return { server, url: listening.url as string, file, state };
}

/** Paths that each read the database (distinct URLs, so the response cache does not answer them). */
const reading = (client: number, i: number) => {
  const zip = zips[(client * 97 + i * 13) % zips.length];
  return [
    `/api/v1/health-scores/${zip}/`,
    `/api/v1/tvi/${zip}/`,
    `/api/v1/health-scores/${zip}/all-scores/`,
    `/api/v1/health-scores/${zip}/census/`,
  ][(client + i) % 4];
};

const buildIdOf = async (url: string) => (bodyJson(await request(url, '/api/v1/meta/')) as { build_id: string }).build_id;
const readiness = async (url: string) =>
  bodyJson(await request(url, '/readyz')) as {
    status: string;
    build_id: string;
    pid: number;
    checks: Record<string, { status: string; detail?: string }>;
  };

/** Calls counted in the state file for every anonymous caller (loopback here). */
function countedCalls(state: string): number {
  const db = new Database(state, { readonly: true });
  try {
    return db.prepare("SELECT coalesce(sum(calls), 0) FROM counters WHERE subject LIKE 'ip:%'").pluck().get() as number;
  } finally {
    db.close();
  }
}

describe('the database file changed in place under a serving cluster', { timeout: 120_000 }, () => {
  it('truncated to 0 bytes mid-load: every request answered from the last good build, a killed worker comes back, readyz degraded, counts exact', async () => {
    const { server, url, file, state } = await serve('truncate', ['--workers', '2']);
    let apiCalls = 0;
    expect(await buildIdOf(url)).toBe(FIXTURE_BUILD_ID);
    apiCalls++;
    const inode = statSync(file).ino;
    // Four clients, 100 requests each; at the 100th answer the file is cut to nothing, as `truncate -s 0` does.
    const outcomes = await load(url, 4, 100, reading, (done) => {
      if (done === 100) truncateSync(file, 0);
    });
    apiCalls += outcomes.length;
    expect(statSync(file)).toMatchObject({ ino: inode, size: 0 });
    expect(tally(outcomes)).toEqual({ 200: 400 });

    // /readyz tells the truth: serving (200), degraded, naming the file's problem and the build kept.
    await until(async () => (await readiness(url)).checks.database.status === 'degraded', '/readyz to report the bad file');
    const ready = await readiness(url);
    expect(ready).toMatchObject({ status: 'degraded', build_id: FIXTURE_BUILD_ID });
    expect(ready.checks.database.detail).toMatch(/not a valid build/);
    // The log is written in the background: its line may follow /readyz's answer by a moment.
    await until(() => server.events.some((e) => e.event === 'reload_failed'), 'reload_failed in the log', 5_000);

    // A worker killed now (any crash) is replaced by one serving the same good build.
    const workers = processTree(server.pid).slice(1);
    expect(workers).toHaveLength(2);
    process.kill(workers[0], 'SIGKILL');
    await server.waitFor((e) => e.event === 'worker_exit');
    await until(
      () =>
        processTree(server.pid)
          .slice(1)
          .filter((pid) => !workers.includes(pid)).length === 1,
      'a replacement worker',
    );
    const fresh = processTree(server.pid)
      .slice(1)
      .find((pid) => !workers.includes(pid))!;
    await until(async () => {
      apiCalls++;
      if ((await request(url, '/api/v1/states/')).status !== 200) return false;
      // Each request is a connection of its own, and the primary hands connections to the workers in turn: a
      // call and one probe per try could land the probe on the same worker every time. Two probes cannot.
      return (await readiness(url)).pid === fresh || (await readiness(url)).pid === fresh;
    }, 'the replacement worker to answer');
    const after = await load(url, 2, 50, reading);
    apiCalls += after.length;
    expect(tally(after)).toEqual({ 200: 100 });
    expect(treeRssMb(server.pid)).toBeLessThan(RSS_BOUND_MB);

    // A good build copied over the same inode (cp, rsync --inplace) is taken; /readyz is ready again.
    const next = rebuiltCopy(fixture, path.join(dir, 'truncate', 'next.sqlite'), 'c0ffeec0ffeec0ff');
    copyFileSync(next, file);
    expect(statSync(file).ino).toBe(inode);
    await until(async () => {
      apiCalls++;
      return (await buildIdOf(url)) === 'c0ffeec0ffeec0ff';
    }, 'the copied build to be served');
    await until(async () => (await readiness(url)).status === 'ready', '/readyz ready again');

    // Nothing crashed, so every call counted was answered, and every answered call counted.
    expect(server.events.filter((e) => e.event === 'worker_exit')).toHaveLength(1);
    await until(() => countedCalls(state) === apiCalls, `${apiCalls} calls counted (counted: ${countedCalls(state)})`, 5_000);
  });
});

describe('the database file changed in place under a single server process', { timeout: 120_000 }, () => {
  it('rewritten in the middle (rsync --inplace): the bad file is refused, the last good build keeps answering, a good file renamed in is taken', async () => {
    const { server, url, file } = await serve('inplace', ['--workers', '1']);
    const size = statSync(file).size;
    // 64 KiB of noise over the middle of the file, its size unchanged: what an interrupted in-place sync leaves.
    const fd = openSync(file, 'r+');
    writeSync(fd, Buffer.alloc(64 * 1024, 0xa5), 0, 64 * 1024, Math.floor(size / 2 / 4096) * 4096);
    closeSync(fd);
    await server.waitFor((e) => e.event === 'reload_failed');
    const outcomes = await load(url, 4, 50, reading);
    expect(tally(outcomes)).toEqual({ 200: 200 });
    const ready = await readiness(url);
    expect(ready).toMatchObject({ status: 'degraded', build_id: FIXTURE_BUILD_ID, checks: { database: { status: 'degraded' } } });
    expect(ready.checks.database.detail).toMatch(/quick_check found damage/);

    renameSync(rebuiltCopy(fixture, `${file}.next`, 'feedc0defeedc0de'), file);
    await until(async () => (await buildIdOf(url)) === 'feedc0defeedc0de', 'the renamed build to be served');
    expect((await readiness(url)).status).toBe('ready');
    expect(treeRssMb(server.pid)).toBeLessThan(RSS_BOUND_MB);
  });

  it('served in place (--no-snapshot) and truncated: no crash (the file is never memory-mapped), /readyz 503, back when a good file is renamed in', async () => {
    const { server, url, file } = await serve('no-snapshot', ['--workers', '1', '--no-snapshot']);
    expect((await load(url, 2, 20, reading)).every((o) => o.status === 200)).toBe(true);
    truncateSync(file, 0);
    await until(async () => (await request(url, '/readyz')).status === 503, '/readyz to answer 503');
    const ready = await readiness(url);
    expect(ready.checks.database.status).toBe('failing');
    expect(ready.checks.database.detail).toMatch(/changed in place.*--no-snapshot/);
    // Requests that need pages the process has not cached fail; the process itself stays up.
    const during = await load(url, 2, 20, (client, i) => reading(client + 2, i));
    expect(during.every((o) => o.status === 200 || o.status === 500)).toBe(true);
    expect((await request(url, '/healthz')).status).toBe(200);

    renameSync(rebuiltCopy(fixture, `${file}.next`, 'abcabcabcabcabca'), file);
    await until(async () => (await request(url, '/readyz')).status === 200, '/readyz ready again');
    expect(tally(await load(url, 2, 20, (client, i) => reading(client + 4, i)))).toEqual({ 200: 40 });
    expect(await buildIdOf(url)).toBe('abcabcabcabcabca');
    expect(server.events.some((e) => e.event === 'stopped')).toBe(false);
  });
});

describe('workers that cannot start', { timeout: 120_000 }, () => {
  it('never take the primary down: it restarts them ever more slowly, and at once when a good file comes', async () => {
    const snapshots = path.join(dir, 'crash-snapshots');
    // A fixed port: when no worker is left, Node's cluster closes the listening socket, and workers started
    // later listen again on the port they were given (port 0 would be a new one).
    const { server, url, file } = await serve('crash', ['--workers', '2', '--snapshot-dir', snapshots], await freePort());
    // The source and the private copy both destroyed: no worker can start, and there is no good file to take.
    truncateSync(file, 0);
    const folder = readdirSync(snapshots).find((name) => name.startsWith(`hcas-serving-${server.pid}-`))!;
    for (const copy of readdirSync(path.join(snapshots, folder))) truncateSync(path.join(snapshots, folder, copy), 0);
    for (const worker of processTree(server.pid).slice(1)) process.kill(worker, 'SIGKILL');
    await server.waitFor((e) => e.event === 'crash_loop', 60_000);
    expect(server.events.filter((e) => e.event === 'worker_exit').length).toBeGreaterThanOrEqual(5);
    expect(server.events.some((e) => e.event === 'stopped')).toBe(false);

    // A good file copied over the source: the workers waiting to restart start now, on it.
    copyFileSync(rebuiltCopy(fixture, path.join(dir, 'crash', 'good.sqlite'), '0123012301230123'), file);
    await until(async () => (await attempt(url, '/api/v1/meta/')).status === 200, 'a worker to answer again', 60_000);
    expect(await buildIdOf(url)).toBe('0123012301230123');
    expect(tally(await load(url, 2, 20, reading))).toEqual({ 200: 40 });
  });
});
