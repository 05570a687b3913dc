import { ApiError } from './errors.ts';

/**
 * Answers that take long to make (a route marked `heavy`, such as the GeoJSON of every ZIP) run through
 * this queue: `concurrency` at a time per process, `maxWaiting` more in line, and the next request a
 * `503 server_busy`. Their handlers make the body in slices that give the event loop back between them,
 * so a cheap request (a score, the widget script) waits for one slice at most, never for whole bodies.
 */
export class WorkQueue {
  private running = 0;
  private readonly waiting: Array<() => void> = [];
  readonly concurrency: number;
  readonly maxWaiting: number;

  constructor(concurrency = 1, maxWaiting = 16) {
    this.concurrency = concurrency;
    this.maxWaiting = maxWaiting;
  }

  /** Runs `task` when a place is free; throws the 503 at once when the line is full. */
  async run<T>(task: () => T | Promise<T>): Promise<T> {
    if (this.running >= this.concurrency) {
      if (this.waiting.length >= this.maxWaiting) {
        throw new ApiError(
          'server_busy',
          `This server process is making ${this.concurrency + this.waiting.length} large answers; retry in a moment`,
          { 'Retry-After': '1' },
        );
      }
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.running++;
    }
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      // The place passes to the next in line (running stays the same), or is freed.
      if (next) setImmediate(next);
      else this.running--;
    }
  }
}

/**
 * Streamed answers (bulk exports) in progress, at most `max` per process: each holds a build open and
 * produces a batch of rows per event-loop turn while its client reads, so they are few, and the next one
 * is a `503 server_busy` until one ends.
 */
export class StreamSlots {
  private open = 0;
  readonly max: number;

  constructor(max = 4) {
    this.max = max;
  }

  /** Takes a slot; returns its release (call once, when the stream closes), or throws the 503. */
  take(): () => void {
    if (this.open >= this.max) {
      throw new ApiError('server_busy', `This server process is sending ${this.max} exports, its limit; retry in a few seconds`, {
        'Retry-After': '5',
      });
    }
    this.open++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.open--;
    };
  }
}

/** What a process runs its expensive answers through; one per server, shared by the builds it serves. */
export interface Workload {
  heavy: WorkQueue;
  streams: StreamSlots;
}

/** The limits of one server process (docs/api.md, "Limits and failure behaviour"). */
export function defaultWorkload(): Workload {
  return { heavy: new WorkQueue(1, 16), streams: new StreamSlots(4) };
}

/** Gives the event loop back (other requests run), then resumes: what a heavy handler does between slices. */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
