import { redactKeys } from '../auth/keys.ts';
import { BoundedMap, keyBytes } from '../http/bounded-map.ts';
import type { LineLog } from './log.ts';

/** How often repeats of an error already logged are summed up in one line. */
export const ERROR_SUMMARY_MS = 60_000;
/** Memory for the kinds of error seen in a summary window: about 150 kinds; past that, the oldest are forgotten. */
const KINDS_BYTES = 128 * 1024;

interface Kind {
  /** Repeats since the kind was last logged (in full or summed up). */
  repeats: number;
  /** Whether a summary window has passed with no repeat (then the kind is forgotten). */
  quiet: boolean;
}

/**
 * The log of unexpected errors (each answered 500 without details): the first of each kind with its full
 * stack, its repeats summed up once a minute (`error_repeated`, with the count), so a burst of the same
 * failure (a damaged file behind thousands of requests) costs a few lines, not one stack per request. A
 * kind is the error's class, message and first stack frame.
 */
export class ErrorLog {
  private readonly kinds = new BoundedMap<Kind>(KINDS_BYTES, (key) => keyBytes(key) + 64);
  private readonly timer: NodeJS.Timeout;
  private readonly log: LineLog;

  constructor(log: LineLog) {
    this.log = log;
    this.timer = setInterval(() => this.summarize(), ERROR_SUMMARY_MS).unref();
  }

  /** Logs an error a request met, in full the first time its kind is seen. */
  report(error: unknown, request: { method: string; url: string }): void {
    const stack = error instanceof Error ? (error.stack ?? String(error)) : String(error);
    const kind = kindOf(error, stack);
    const seen = this.kinds.get(kind);
    if (seen !== undefined) {
      seen.repeats++;
      seen.quiet = false;
      return;
    }
    this.kinds.set(kind, { repeats: 0, quiet: false });
    this.log({
      time: new Date().toISOString(),
      level: 'error',
      event: 'error',
      method: request.method,
      path: redactKeys(request.url),
      error: stack,
    });
  }

  /** Writes the repeats counted so far (every minute, and when the server stops). */
  summarize(): void {
    for (const [kind, counted] of this.kinds.entries()) {
      if (counted.repeats === 0) {
        if (counted.quiet) this.kinds.delete(kind);
        else counted.quiet = true;
        continue;
      }
      this.log({
        time: new Date().toISOString(),
        level: 'error',
        event: 'error_repeated',
        error: kind,
        count: counted.repeats,
        detail: 'the same error as the one logged in full before',
      });
      counted.repeats = 0;
    }
  }

  close(): void {
    clearInterval(this.timer);
    this.summarize();
  }
}

/** An error's kind: class, message (redacted, cut to 300 characters) and the first frame of its stack. */
function kindOf(error: unknown, stack: string): string {
  const head = error instanceof Error ? `${error.name}: ${error.message}` : stack.split('\n')[0];
  const frame =
    stack
      .split('\n')
      .find((line) => line.trimStart().startsWith('at '))
      ?.trim() ?? '';
  return redactKeys(`${head.slice(0, 300)} ${frame.slice(0, 200)}`);
}
