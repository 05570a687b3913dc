import { copyFileSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fixtureDb } from './helpers/fixture-db.ts';
import { bodyJson, request } from './helpers/http.ts';
import { ServerProcess } from './helpers/process.ts';

let dir: string;
let fixture: string;
const running: ServerProcess[] = [];

beforeAll(async () => {
  fixture = await fixtureDb();
  dir = mkdtempSync(path.join(os.tmpdir(), 'hcas-lifecycle-'));
});
afterEach(() => {
  for (const server of running.splice(0)) server.stop();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A copy of the fixture with another build id, written beside `file` (the way a build writes its output). */
function rebuilt(file: string, buildId: string): string {
  const next = `${file}.next`;
  copyFileSync(fixture, next);
  const db = new Database(next);
  db.prepare("UPDATE meta SET value = ? WHERE key = 'build_id'").run(JSON.stringify(buildId));
  db.close();
  return next;
}

async function start(args: string[], name: string): Promise<{ server: ServerProcess; url: string; file: string }> {
  const file = path.join(dir, name, 'hcas.sqlite');
  rmSync(path.dirname(file), { recursive: true, force: true });
  mkdirSync(path.dirname(file), { recursive: true });
  copyFileSync(fixture, file);
  const server = new ServerProcess(args.map((arg) => (arg === 'DB' ? file : arg)));
  running.push(server);
  const listening = await server.waitFor((e) => e.event === 'listening');
  return { server, url: listening.url as string, file };
}

async function buildIdOf(url: string): Promise<string> {
  const result = await request(url, '/api/v1/meta/');
  expect(result.status).toBe(200);
  return (bodyJson(result) as { build_id: string }).build_id;
}

/** Requests meta/ in a loop until `until` returns true; every answer must be a 200. */
async function pollMeta(url: string, until: (buildId: string) => boolean, timeoutMs = 10_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  let requests = 0;
  for (;;) {
    const id = await buildIdOf(url);
    requests++;
    if (until(id)) return requests;
    if (Date.now() > deadline) throw new Error(`still build ${id} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('reload', { timeout: 60_000 }, () => {
  it('swaps to a new file renamed into place, without failing a request in flight', async () => {
    const { server, url, file } = await start(['bin/run-ts.js', 'test/helpers/slow-server.ts', '--db', 'DB'], 'watch');
    const oldId = await buildIdOf(url);
    const inFlight = request(url, '/api/v1/test/slow/?ms=1500&n=1');
    await new Promise((r) => setTimeout(r, 200));
    renameSync(rebuilt(file, 'feedfacefeedface'), file);
    // Four clients keep asking through the swap: every answer must be a 200 from one build or the other.
    await Promise.all([1, 2, 3, 4].map(() => pollMeta(url, (id) => id === 'feedfacefeedface')));
    const slow = await inFlight;
    expect(slow.status).toBe(200);
    // Started on the old build, it read the old database after the swap: the old handle stayed open.
    expect(bodyJson(slow)).toEqual({ build_id: oldId, zip_code: '02801' });
    expect(server.events.find((e) => e.event === 'reload')).toMatchObject({
      reason: 'file-change',
      build_id: 'feedfacefeedface',
      previous_build_id: oldId,
    });
    const after = await request(url, '/api/v1/test/slow/?ms=0&n=2');
    expect(bodyJson(after)).toEqual({ build_id: 'feedfacefeedface', zip_code: '02801' });
  });

  it('on SIGHUP, even without watching the file', async () => {
    const { server, url, file } = await start(['bin/run-ts.js', 'test/helpers/slow-server.ts', '--db', 'DB', '--no-watch'], 'hup');
    const oldId = await buildIdOf(url);
    renameSync(rebuilt(file, 'abcdefabcdef0123'), file);
    await new Promise((r) => setTimeout(r, 500));
    expect(await buildIdOf(url)).toBe(oldId);
    const inFlight = request(url, '/api/v1/test/slow/?ms=1000&n=3');
    await new Promise((r) => setTimeout(r, 200));
    server.signal('SIGHUP');
    await pollMeta(url, (id) => id === 'abcdefabcdef0123');
    expect(bodyJson(await inFlight)).toEqual({ build_id: oldId, zip_code: '02801' });
    expect(server.events.find((e) => e.event === 'reload')).toMatchObject({ reason: 'signal' });
  });

  it('keeps serving the old build when the new file cannot be opened', async () => {
    const { server, url, file } = await start(['bin/run-ts.js', 'test/helpers/slow-server.ts', '--db', 'DB', '--no-watch'], 'broken');
    const oldId = await buildIdOf(url);
    const broken = `${file}.broken`;
    writeFileSync(broken, 'not a database');
    renameSync(broken, file);
    server.signal('SIGHUP');
    await server.waitFor((e) => e.event === 'reload_failed');
    expect(await buildIdOf(url)).toBe(oldId);
  });

  it('in cluster mode every worker reloads, and SIGTERM stops them all', async () => {
    // --no-limits: this test polls meta/ freely; quotas and their state are tested in test/auth-processes.test.ts.
    const { server, url, file } = await start(
      ['bin/hcas.js', 'serve', '--db', 'DB', '--port', '0', '--workers', '2', '--quiet', '--no-limits'],
      'cluster',
    );
    renameSync(rebuilt(file, '0123456789abcdef'), file);
    await server.waitForCount((e) => e.event === 'reload', 2);
    for (let i = 0; i < 10; i++) expect(await buildIdOf(url)).toBe('0123456789abcdef');
    server.signal('SIGTERM');
    expect(await server.exited).toBe(0);
  });
});

describe('shutdown', { timeout: 60_000 }, () => {
  it('SIGTERM stops accepting connections and finishes the request in flight', async () => {
    const { server, url } = await start(['bin/run-ts.js', 'test/helpers/slow-server.ts', '--db', 'DB'], 'term');
    const inFlight = request(url, '/api/v1/test/slow/?ms=1000&n=4');
    await new Promise((r) => setTimeout(r, 200));
    server.signal('SIGTERM');
    await server.waitFor((e) => e.event === 'shutting_down');
    await expect(request(url, '/api/v1/states/')).rejects.toThrow(/ECONNREFUSED/);
    const slow = await inFlight;
    expect(slow.status).toBe(200);
    expect(bodyJson(slow)).toMatchObject({ zip_code: '02801' });
    expect(await server.exited).toBe(0);
    expect(server.events.map((e) => e.event)).toEqual(['listening', 'shutting_down', 'stopped']);
  });
});
