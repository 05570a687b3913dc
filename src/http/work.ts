import { ApiError } from './errors.ts';
import type { HandlerResult } from './route.ts';

/**
 * Answers that take long to make (a route marked `heavy`, such as the GeoJSON of every ZIP) run through
 * this queue: `concurrency` at a time per process, `maxWaiting` more in line, at most `maxWaitingPerCaller`
 * of one caller (an API key, or a client address), and the next request a `503 server_busy`. The line is
 * served caller by caller in turn, so one caller's flood waits behind itself and never fills the line for
 * everyone. Their handlers make the body in slices that give the event loop back between them, so a cheap
 * request (a score, the widget script) waits for one slice at most, never for whole bodies.
 */
export class WorkQueue {
  private running = 0;
  /** Waiting tasks by caller; Map order is the turn order (a caller served goes to the back). */
  private readonly waiting = new Map<string, Array<() => void>>();
  private waitingCount = 0;
  readonly concurrency: number;
  readonly maxWaiting: number;
  readonly maxWaitingPerCaller: number;

  constructor(concurrency = 1, maxWaiting = 16, maxWaitingPerCaller = Math.max(1, Math.floor(maxWaiting / 4))) {
    this.concurrency = concurrency;
    this.maxWaiting = maxWaiting;
    this.maxWaitingPerCaller = maxWaitingPerCaller;
  }

  /** Runs `task` for `caller` when a place is free; throws the 503 at once when the line (or the caller's share of it) is full. */
  async run<T>(task: () => T | Promise<T>, caller = ''): Promise<T> {
    if (this.running >= this.concurrency) {
      const queue = this.waiting.get(caller);
      if (this.waitingCount >= this.maxWaiting) {
        throw new ApiError(
          'server_busy',
          `This server process is making ${this.concurrency + this.waitingCount} large answers; retry in a moment`,
          { 'Retry-After': '1' },
        );
      }
      if (queue !== undefined && queue.length >= this.maxWaitingPerCaller) {
        throw new ApiError(
          'server_busy',
          `Your ${caller.startsWith('key:') ? 'API key' : 'address'} already has ${queue.length} large answers waiting on this server process, the most one caller may; retry in a moment`,
          { 'Retry-After': '1' },
        );
      }
      await new Promise<void>((resolve) => {
        if (queue) queue.push(resolve);
        else this.waiting.set(caller, [resolve]);
        this.waitingCount++;
      });
    } else {
      this.running++;
    }
    try {
      return await task();
    } finally {
      const next = this.next();
      // The place passes to the next in line (running stays the same), or is freed.
      if (next) setImmediate(next);
      else this.running--;
    }
  }

  /** The next task in line: the first of the caller whose turn it is, who then goes to the back. */
  private next(): (() => void) | undefined {
    const turn = this.waiting.entries().next();
    if (turn.done) return undefined;
    const [caller, queue] = turn.value;
    const next = queue.shift()!;
    this.waitingCount--;
    this.waiting.delete(caller);
    if (queue.length > 0) this.waiting.set(caller, queue);
    return next;
  }
}

/**
 * Streamed answers (bulk exports) in progress, at most `max` per process and `perCaller` per caller (an API
 * key, or a client address): each holds a build open and produces a batch of rows per event-loop turn while
 * its client reads, so they are few, one caller cannot hold them all, and the next one is a
 * `503 server_busy` until one ends.
 */
export class StreamSlots {
  private open = 0;
  private readonly byCaller = new Map<string, number>();
  readonly max: number;
  readonly perCaller: number;

  constructor(max = 4, perCaller = Math.max(1, Math.floor(max / 2))) {
    this.max = max;
    this.perCaller = perCaller;
  }

  /** Takes a slot for `caller`; returns its release (call once, when the stream closes), or throws the 503. */
  take(caller = ''): () => void {
    const held = this.byCaller.get(caller) ?? 0;
    if (held >= this.perCaller) {
      throw new ApiError(
        'server_busy',
        `Your ${caller.startsWith('key:') ? 'API key' : 'address'} already has ${this.perCaller} exports streaming from this server process, the most one caller may; retry when one ends`,
        { 'Retry-After': '5' },
      );
    }
    if (this.open >= this.max) {
      throw new ApiError('server_busy', `This server process is sending ${this.max} exports, its limit; retry in a few seconds`, {
        'Retry-After': '5',
      });
    }
    this.open++;
    this.byCaller.set(caller, held + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.open--;
      const left = (this.byCaller.get(caller) ?? 1) - 1;
      if (left > 0) this.byCaller.set(caller, left);
      else this.byCaller.delete(caller);
    };
  }
}

/** What a query worker needs to make one answer: the route and everything its handler reads, as plain data. */
export interface QueryJob {
  /** The route's path pattern (`/api/v1/health-scores/`). */
  route: string;
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  /** The canonical path and query string, for links. */
  url: { path: string; search: string };
  /** The request time, epoch milliseconds. */
  nowMs: number;
  features: string[];
}

/**
 * Where answers that may not be made on the event loop are made (src/server/query-pool.ts: worker threads,
 * each with its own handle on the build). Per build: `run` makes the answer of one request, or returns
 * undefined when no worker can make it (a route the workers do not know), and the dispatcher makes it itself.
 */
export interface QueryRunner {
  run(job: QueryJob, caller: string): Promise<HandlerResult> | undefined;
  /** The build is retired and its requests done: the workers close their handles on it. */
  release(): void;
}

/** What a process runs its expensive answers through; one per server, shared by the builds it serves. */
export interface Workload {
  heavy: WorkQueue;
  streams: StreamSlots;
}

/** The limits of one server process (docs/api.md, "Limits and failure behaviour"). */
export function defaultWorkload(): Workload {
  return { heavy: new WorkQueue(1, 16, 4), streams: new StreamSlots(4) };
}

/** Gives the event loop back (other requests run), then resumes: what a heavy handler does between slices. */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
