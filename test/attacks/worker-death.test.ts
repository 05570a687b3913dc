import http from 'node:http';
import { rmSync } from 'node:fs';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/files.ts';
import { fixtureDb } from '../helpers/fixture-db.ts';
import { ServerProcess, serveArgs } from '../helpers/process.ts';
import { processTree, tally, until } from './helpers.ts';

/**
 * Point 2 of issue #44: at 230 requests a second, `kill -9` of one worker and then the other left 3 requests
 * of 5 kills unanswered (two past a 30 s client timeout, one past 150 s): the cluster primary held them in
 * CLOSE-WAIT with their bytes unread. Node's primary hands each connection to a worker and closes its own
 * copy only when the worker says it took it; a worker killed before it said so (its IPC channel unread) left
 * the primary's copy open for good. The primary now hands such a connection to another worker.
 *
 * The reproduction is made certain by stopping a worker (SIGSTOP) before the requests: the primary hands
 * one of them to it, which never answers; then it is killed.
 */

const dir = tempDir('hcas-attack-worker-death-');
const running: ServerProcess[] = [];
afterEach(() => {
  for (const server of running.splice(0)) server.stop();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A GET on a fresh connection: its status, or 0 with the error (`timeout` past `timeoutMs`). */
function get(url: string, timeoutMs: number): Promise<{ status: number; error?: string; ms: number }> {
  const started = performance.now();
  return new Promise((resolve) => {
    const req = http.get(`${url}/api/v1/states/`, { agent: false, timeout: timeoutMs }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }));
      res.on('error', (error: NodeJS.ErrnoException) => resolve({ status: 0, error: error.code, ms: performance.now() - started }));
    });
    req.on('timeout', () => req.destroy(Object.assign(new Error('timeout'), { code: 'timeout' })));
    req.on('error', (error: NodeJS.ErrnoException) => resolve({ status: 0, error: error.code, ms: performance.now() - started }));
  });
}

/** The pid of the worker that answers /healthz (the operator, on loopback, is told it). */
async function healthzPid(url: string): Promise<number | undefined> {
  return new Promise((resolve) => {
    http
      .get(`${url}/healthz`, { agent: false, timeout: 1_000 }, (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk));
        res.on('end', () => resolve((JSON.parse(text) as { pid?: number }).pid));
      })
      .on('error', () => resolve(undefined));
  });
}

async function cluster(...extra: string[]): Promise<{ server: ServerProcess; url: string; workers: () => number[] }> {
  const server = new ServerProcess(serveArgs(await fixtureDb(), '--workers', '2', '--no-limits', '--snapshot-dir', dir, ...extra));
  running.push(server);
  const url = (await server.waitFor((e) => e.event === 'listening' && e.workers === 2, 60_000)).url as string;
  return { server, url, workers: () => processTree(server.pid).filter((pid) => pid !== server.pid) };
}

describe('a worker killed with connections handed to it', { timeout: 120_000 }, () => {
  it('strands no request: what the primary handed it and it never took is answered by another worker', async () => {
    const { server, url, workers } = await cluster();
    const [stopped] = workers();
    process.kill(stopped, 'SIGSTOP');
    // Each on its own connection: the primary hands them out in turn, and the stopped worker gets one.
    const answers = Promise.all(Array.from({ length: 6 }, () => get(url, 20_000)));
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    process.kill(stopped, 'SIGKILL');
    const got = await answers;
    console.log(`requests around a stopped, then killed worker: ${JSON.stringify(got)}`);
    expect(got.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200, 200]);
    // The primary said what it did, and restarted the worker.
    await until(() => server.events.some((e) => e.event === 'connections_redispatched'), 'the primary to log the hand-over', 5_000);
    await until(() => workers().length === 2, 'the worker to be restarted', 30_000);
  });

  it('a worker that takes no connection for the send timeout is hung: killed, and its connections handed on', async () => {
    const { server, url, workers } = await cluster('--send-timeout', '3');
    const [stopped] = workers();
    process.kill(stopped, 'SIGSTOP');
    const got = await Promise.all(Array.from({ length: 6 }, () => get(url, 20_000)));
    console.log(`requests around a stopped worker, send timeout 3 s: ${JSON.stringify(got)}`);
    expect(got.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200, 200]);
    // Held no longer than the send timeout, and the check that runs every second.
    expect(Math.max(...got.map((answer) => answer.ms))).toBeLessThan(3_000 + 1_000 + 2_000);
    expect(server.events.find((e) => e.event === 'worker_unresponsive')).toMatchObject({ pid: stopped });
  });

  it('under load, kill -9 of one worker and then the other leaves no request without an answer', async () => {
    const { url, workers } = await cluster();
    const perSecond = 150;
    const seconds = 10;
    const landed: Array<Promise<{ status: number; error?: string; ms: number }>> = [];
    const start = performance.now();
    // One worker killed; once its replacement answers (/healthz tells the operator its pid), the other.
    const [first, second] = workers();
    const kills = (async () => {
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      process.kill(first, 'SIGKILL');
      const deadline = performance.now() + 6_000;
      while (performance.now() < deadline) {
        const pid = await healthzPid(url);
        if (pid !== undefined && pid !== first && pid !== second) {
          process.kill(second, 'SIGKILL');
          return 2;
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return 1;
    })();
    // Open loop: each request when it is due, on its own connection (the primary hands every one out).
    while (landed.length < perSecond * seconds) {
      while (landed.length < perSecond * seconds && start + (landed.length * 1000) / perSecond <= performance.now())
        landed.push(get(url, 20_000));
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    const killed = await kills;
    const got = await Promise.all(landed);
    const errors: Record<string, number> = {};
    for (const answer of got) if (answer.error) errors[answer.error] = (errors[answer.error] ?? 0) + 1;
    console.log(`${got.length} requests, ${killed} workers killed: ${JSON.stringify(tally(got))}; errors: ${JSON.stringify(errors)}`);
    // A request a worker was answering when it was killed is lost with it (its connection reset at once); none waits.
    expect(got.filter((answer) => answer.error === 'timeout')).toEqual([]);
    expect(got.filter((answer) => answer.status === 200).length).toBeGreaterThan(got.length * 0.95);
  });
});
