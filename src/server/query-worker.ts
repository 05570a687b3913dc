/**
 * A query worker thread (query-pool.ts): makes the answers of the routes that are not `inline` (lists,
 * searches, rankings, GeoJSON) on its own read-only handle of each build, so no request's parameters can
 * hold the event loop that answers everyone else. Jobs are handled as they arrive: a synchronous handler
 * runs to its end, a heavy one (GeoJSON) lets the others run between its slices.
 */
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { ALL_ROUTES, Api } from '../api/index.ts';
import { ApiError } from '../http/errors.ts';
import { jsonBytes } from '../http/response.ts';
import { isStream, type HandlerResult } from '../http/route.ts';
import type { QueryJob } from '../http/work.ts';
import { THREAD_READY, type ThreadReply, type ThreadRequest } from './query-pool.ts';

lowerPriority((workerData as { nice: number }).nice);
const routes = new Map(ALL_ROUTES.map((route) => [route.path, route]));
/** Open builds, by file and build id (a file served in place can be replaced by another build). */
const builds = new Map<string, Api>();

parentPort!.on('message', (message: ThreadRequest) => {
  if (message.kind === 'release') {
    builds.get(message.build)?.retire();
    builds.delete(message.build);
    return;
  }
  void make(message.build, message.file, message.buildId, message.job).then(
    (result) => reply(message.id, result),
    (error: unknown) => parentPort!.postMessage(failure(message.id, error)),
  );
});
// Every module loaded (the SQLite binding with them): the pool may end this thread from now on (threads.ts, endThread).
parentPort!.postMessage({ id: THREAD_READY } satisfies ThreadReply);

async function make(build: string, file: string, buildId: string, job: QueryJob): Promise<HandlerResult> {
  const route = routes.get(job.route);
  if (!route) throw new Error(`the query worker has no route ${job.route}`);
  const result = await route.handle({
    params: job.params,
    query: job.query,
    queries: open(build, file, buildId),
    url: { path: job.url.path, search: new URLSearchParams(job.url.search) },
    now: () => new Date(job.nowMs),
    features: new Set(job.features),
  });
  if (isStream(result)) throw new Error(`${job.route} answered a stream, which only the event loop can send`);
  return result;
}

/** The queries of a build, opened on first use; its build id is checked, as a file served in place may have been replaced. */
function open(build: string, file: string, buildId: string): Api['queries'] {
  let api = builds.get(build);
  if (api === undefined) {
    const opened = Api.open(file, { cacheBytes: 0 });
    if (opened.buildId !== buildId) {
      opened.retire();
      throw new ApiError('server_busy', 'The database was replaced while this request waited; retry it', { 'Retry-After': '1' });
    }
    api = opened;
    builds.set(build, api);
  }
  return api.queries;
}

/** Sends a result, its body as bytes of their own (moved, not copied: a small Buffer is a slice of a shared slab). */
function reply(id: number, result: HandlerResult): void {
  const bytes = Buffer.isBuffer(result.body) ? result.body : jsonBytes(result.body);
  const body = new Uint8Array(bytes.length);
  body.set(bytes);
  const message: ThreadReply = {
    id,
    result: { status: result.status, body, headers: result.headers, validUntil: result.validUntil, etag: result.etag },
  };
  parentPort!.postMessage(message, [body.buffer]);
}

function failure(id: number, error: unknown): ThreadReply {
  if (error instanceof ApiError) return { id, apiError: { code: error.code, message: error.message, headers: error.headers } };
  const { name, message, stack } = error instanceof Error ? error : new Error(String(error));
  return { id, failure: { name, message, stack } };
}

/**
 * Runs this thread at a lower priority than the event loops (Linux: a thread's id is a process id to
 * setpriority), so under load the CPU goes to the threads that answer cached requests first. Elsewhere, or
 * when not allowed, the thread keeps the process's priority.
 */
function lowerPriority(nice: number): void {
  try {
    const threadId = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(threadId)) setPriority(threadId, nice);
  } catch {
    // not Linux, or not allowed
  }
}
