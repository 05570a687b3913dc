import type { Worker } from 'node:worker_threads';
import { ALL_ROUTES } from '../api/index.ts';
import { ApiError, type ErrorCode } from '../http/errors.ts';
import type { HandlerResult } from '../http/route.ts';
import type { QueryJob, QueryRunner } from '../http/work.ts';
import type { LineLog } from './log.ts';
import { startThread } from '../../core/threads.ts';
import { endThread } from './threads.ts';

/** The limits of a process's query workers (docs/api.md, "Limits and failure behaviour"). */
export interface QueryPoolLimits {
  /** Worker threads per server process. */
  threads: number;
  /** Jobs one thread has at once: a synchronous one runs to its end, a heavy one lets the others run between its slices. */
  jobsPerThread: number;
  /** Jobs waiting for a thread, in all; the next one is refused `503 server_busy`. */
  maxWaiting: number;
  /** Jobs of one caller (an API key, a client address) waiting at once: one caller cannot fill the line. */
  maxWaitingPerCaller: number;
  /** A job that runs longer is stopped: its thread is ended and replaced, and the request answered 503. */
  timeoutMs: number;
  /** The threads' nice value (Linux): the event loops that answer cached requests get the CPU first. */
  nice: number;
}

export const DEFAULT_QUERY_POOL: QueryPoolLimits = {
  threads: 1,
  jobsPerThread: 4,
  maxWaiting: 64,
  maxWaitingPerCaller: 16,
  timeoutMs: 10_000,
  nice: 10,
};

/** A message to a thread: a job, or the release of a build's handle. */
export type ThreadRequest =
  | { kind: 'job'; id: number; build: string; file: string; buildId: string; job: QueryJob }
  | { kind: 'release'; build: string };

/** The id of a thread's first message, sent once it has loaded its modules (job ids start at 1). */
export const THREAD_READY = 0;

/** A thread's answer to a job: the result, an API error (a 404, a 400), or an unexpected failure. */
export interface ThreadReply {
  id: number;
  result?: Omit<HandlerResult, 'body'> & { body: Uint8Array };
  apiError?: { code: ErrorCode; message: string; headers: Record<string, string> };
  failure?: { name: string; message: string; stack?: string };
}

interface Job {
  message: Extract<ThreadRequest, { kind: 'job' }>;
  resolve: (result: HandlerResult) => void;
  reject: (error: unknown) => void;
}

/** The routes a thread can make: the API's own (a route a test adds is made on the event loop). */
const KNOWN_ROUTES = new Set(ALL_ROUTES.map((route) => route.path));

/** One worker thread and the jobs it has. */
class QueryThread {
  readonly worker: Worker;
  readonly jobs = new Map<number, Job & { timer: NodeJS.Timeout }>();
  readonly startedMs = Date.now();
  alive = true;
  /** Settles once the thread has loaded its modules (its THREAD_READY message) or has exited. */
  readonly ready: Promise<void>;

  constructor(nice: number, settled: () => void, ended: (thread: QueryThread, error: unknown) => void) {
    this.worker = startThread(import.meta.url, 'query-worker', { nice });
    this.worker.unref();
    let loaded = () => {};
    this.ready = new Promise((resolve) => (loaded = resolve));
    this.worker.on('message', (reply: ThreadReply) => {
      if (reply.id === THREAD_READY) return loaded();
      this.settle(reply);
      settled();
    });
    this.worker.on('error', (error) => ended(this, error));
    this.worker.on('exit', (code) => {
      loaded();
      ended(this, new Error(`the query worker thread exited with code ${code}`));
    });
  }

  private settle(reply: ThreadReply): void {
    const job = this.jobs.get(reply.id);
    if (!job) return;
    this.jobs.delete(reply.id);
    clearTimeout(job.timer);
    if (reply.result) {
      const { body, ...rest } = reply.result;
      job.resolve({ ...rest, body: Buffer.from(body.buffer, body.byteOffset, body.byteLength) });
    } else if (reply.apiError) {
      job.reject(new ApiError(reply.apiError.code, reply.apiError.message, reply.apiError.headers));
    } else {
      const error = new Error(reply.failure?.message);
      error.name = reply.failure?.name ?? 'Error';
      error.stack = reply.failure?.stack;
      job.reject(error);
    }
  }
}

/**
 * Worker threads that make the answers of every route that is not `inline` (lists, searches, rankings,
 * GeoJSON), so whatever its parameters, no request holds the event loop that answers the others. Bounded:
 * `threads` threads of `jobsPerThread` jobs each, `maxWaiting` jobs in line (`maxWaitingPerCaller` per
 * caller), then `503 server_busy` with `Retry-After: 1`. The line is served caller by caller in turn, so a
 * flood from one address waits behind its own requests, not in front of everyone's. Threads start on first
 * use and are replaced when they die or a job outruns `timeoutMs`.
 */
export class QueryPool {
  private readonly limits: QueryPoolLimits;
  private readonly log: LineLog;
  private threads: QueryThread[] = [];
  /** Waiting jobs by caller; Map order is the turn order (a caller served goes to the back). */
  private readonly waiting = new Map<string, Job[]>();
  private waitingCount = 0;
  private nextId = 1;
  private nextBuild = 1;
  /** Threads that died within a second of starting, in a row: past 3, the pool gives up (answers are made on the event loop). */
  private quickDeaths = 0;
  private broken = false;
  /** Jobs refused because the line was full, and jobs stopped for running too long (for the metrics). */
  readonly refused = { full: 0, timedOut: 0 };

  constructor(limits: Partial<QueryPoolLimits> = {}, log: LineLog = () => {}) {
    this.limits = { ...DEFAULT_QUERY_POOL, ...limits };
    this.log = log;
  }

  /** The runner of one build: its jobs carry the file and build id the threads open. */
  forBuild(file: string, buildId: string): QueryRunner {
    const build = `${this.nextBuild++}:${buildId}`;
    return {
      run: (job, caller) => this.run({ kind: 'job', id: 0, build, file, buildId, job }, caller),
      release: () => {
        for (const thread of this.threads) thread.worker.postMessage({ kind: 'release', build } satisfies ThreadRequest);
      },
    };
  }

  /** Jobs running and waiting now. */
  get load(): { running: number; waiting: number } {
    return { running: this.threads.reduce((sum, t) => sum + t.jobs.size, 0), waiting: this.waitingCount };
  }

  /** Ends the threads; jobs still waiting or running are refused (the server has stopped answering). */
  async close(): Promise<void> {
    this.broken = true;
    const closing = new ApiError('server_busy', 'This server is shutting down; retry', { 'Retry-After': '1' });
    for (const jobs of this.waiting.values()) for (const job of jobs) job.reject(closing);
    this.waiting.clear();
    this.waitingCount = 0;
    const threads = this.threads;
    this.threads = [];
    await Promise.all(threads.map((thread) => this.end(thread, closing)));
  }

  private run(message: Job['message'], caller: string): Promise<HandlerResult> | undefined {
    if (this.broken || !KNOWN_ROUTES.has(message.job.route)) return undefined;
    message.id = this.nextId++;
    return new Promise<HandlerResult>((resolve, reject) => {
      const job = { message, resolve, reject };
      const queue = this.waiting.get(caller);
      if (this.waitingCount >= this.limits.maxWaiting || (queue?.length ?? 0) >= this.limits.maxWaitingPerCaller) {
        this.refused.full++;
        reject(
          new ApiError(
            'server_busy',
            `This server process has ${this.waitingCount} list and search requests waiting for its query workers${queue ? `, ${queue.length} of them yours` : ''}; retry in a moment`,
            { 'Retry-After': '1' },
          ),
        );
        return;
      }
      if (queue) queue.push(job);
      else this.waiting.set(caller, [job]);
      this.waitingCount++;
      this.dispatch();
    });
  }

  /** Hands waiting jobs to threads with room, one caller at a time in turn. */
  private dispatch(): void {
    while (this.waitingCount > 0) {
      const thread = this.freeThread();
      if (!thread) return;
      const [caller, queue] = this.waiting.entries().next().value!;
      const job = queue.shift()!;
      this.waitingCount--;
      this.waiting.delete(caller);
      if (queue.length > 0) this.waiting.set(caller, queue);
      const timer = setTimeout(() => this.timedOut(thread, job), this.limits.timeoutMs).unref();
      thread.jobs.set(job.message.id, { ...job, timer });
      thread.worker.postMessage(job.message);
    }
  }

  /** The thread with the fewest jobs, if it has room; starts threads up to the limit. */
  private freeThread(): QueryThread | undefined {
    if (this.threads.length < this.limits.threads) {
      const thread = new QueryThread(
        this.limits.nice,
        () => this.dispatch(),
        (ended, error) => void this.ended(ended, error),
      );
      this.threads.push(thread);
      return thread;
    }
    let best: QueryThread | undefined;
    for (const thread of this.threads) if (!best || thread.jobs.size < best.jobs.size) best = thread;
    return best && best.jobs.size < this.limits.jobsPerThread ? best : undefined;
  }

  private timedOut(thread: QueryThread, job: Job): void {
    this.refused.timedOut++;
    this.log({
      time: new Date().toISOString(),
      level: 'warn',
      event: 'query_timeout',
      route: job.message.job.route,
      pid: process.pid,
      detail: `a query ran longer than ${this.limits.timeoutMs / 1000} s; its worker thread was ended and replaced`,
    });
    job.reject(
      new ApiError('server_busy', `This request took longer than ${this.limits.timeoutMs / 1000} s and was stopped; retry it later`, {
        'Retry-After': '5',
      }),
    );
    thread.jobs.delete(job.message.id);
    void this.ended(thread, new ApiError('server_busy', 'Another request stopped the query worker; retry', { 'Retry-After': '1' }));
  }

  /** A thread ended (or is ended now): its jobs are refused, and a new thread takes the line. */
  private async ended(thread: QueryThread, error: unknown): Promise<void> {
    if (!thread.alive) return;
    const quick = Date.now() - thread.startedMs < 1_000;
    this.quickDeaths = quick ? this.quickDeaths + 1 : 0;
    this.threads = this.threads.filter((t) => t !== thread);
    await this.end(thread, error);
    if (this.quickDeaths > 3 && !this.broken) {
      this.broken = true;
      this.log({
        time: new Date().toISOString(),
        level: 'error',
        event: 'query_workers_failed',
        pid: process.pid,
        error: error instanceof Error ? error.message : String(error),
        detail: 'the query worker threads keep failing to start: list and search answers are made on the event loop',
      });
      for (const jobs of this.waiting.values()) for (const job of jobs) job.reject(error);
      this.waiting.clear();
      this.waitingCount = 0;
      return;
    }
    this.dispatch();
  }

  private async end(thread: QueryThread, error: unknown): Promise<void> {
    thread.alive = false;
    for (const job of thread.jobs.values()) {
      clearTimeout(job.timer);
      job.reject(error);
    }
    thread.jobs.clear();
    await endThread(thread.worker, thread.ready);
  }
}
