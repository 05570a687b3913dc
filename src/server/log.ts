import { ATOMIC_WRITE_BYTES, type LogOutput } from './log-output.ts';
import { requestLineBytes, writeRequestLine, type RequestRecord } from './request-line.ts';
import type { LogLevel } from './settings.ts';

/** Writes one JSON object per line. A record's `level` (default info) decides whether it is written. */
export type LineLog = (record: object) => void;

/** A log that can say whether a level is written, so callers skip building records nobody reads. */
export type LevelledLog = LineLog & {
  /** Hands the lines of this event-loop turn to the output now. */
  flush(): void;
  /** Logs a request's line (`writeRequestLine`), at info level. */
  request(record: RequestRecord): void;
  enabled(level: LogLevel): boolean;
  /** Writes every line held and waits for the output (shutdown). */
  close(): Promise<void>;
  /** Writes every line held before returning (the process ends next). */
  flushSync(): void;
};

const RANK: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };

/** True when `log` writes records of `level` (a plain function writes everything). */
export function logs(log: LineLog, level: LogLevel): boolean {
  const enabled = (log as Partial<LevelledLog>).enabled;
  return enabled ? enabled(level) : true;
}

let isoMs = Number.NaN;
let isoText = '';

/**
 * The time as an ISO 8601 string, as `new Date().toISOString()` gives it, made once per millisecond: under
 * load a server logs dozens of lines a millisecond, and the conversion cost most of a microsecond each.
 */
export function isoTime(): string {
  const ms = Date.now();
  if (ms !== isoMs) {
    isoMs = ms;
    isoText = new Date(ms).toISOString();
  }
  return isoText;
}

/** Bytes of each block the lines are written into: the lines of many event-loop turns. */
const SLAB_BYTES = 64 * 1024;

/**
 * A JSON-lines log that batches the lines of one event-loop turn into few writes, so logging costs little
 * under load. The lines are written as bytes, one after the other, into blocks of SLAB_BYTES (request lines
 * by `writeRequestLine`, without a string per line); at the end of the turn the new bytes go to the output,
 * as views of the block, never copied or overwritten. Each write ends at a line boundary and stays within
 * PIPE_BUF when it can, so lines from cluster workers sharing a pipe never interleave (a LogOutput then
 * gathers writes and makes them in the background; another output is handed text). Records below `level`
 * are dropped.
 */
export function jsonLines(out: { write(chunk: string): unknown } | LogOutput, level: LogLevel = 'info'): LevelledLog {
  const threshold = RANK[level];
  // A LogOutput takes the bytes, and is told that a chunk must not wait; a stream is written text.
  const write =
    'flushSync' in out ? (chunk: Buffer, now: boolean) => out.write(chunk, now) : (chunk: Buffer) => out.write(chunk.toString('utf8'));
  let slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
  /** Where the next line goes, and the start of the bytes not yet handed to the output. */
  let at = 0;
  let handed = 0;
  let scheduled = false;
  /** A record other than a request line (an event) is pending: it is written now, not with the next large write. */
  let urgent = false;
  /** Hands the new lines to the output; `startWrite` false when the caller writes them synchronously next. */
  const flush = (startWrite = true) => {
    scheduled = false;
    const now = urgent && startWrite;
    urgent = false;
    if (at > handed) write(slab.subarray(handed, at), now);
    handed = at;
  };
  /** Makes room for a line of at most `bytes`: a new block when this one is full (after handing over its lines). */
  const room = (bytes: number) => {
    if (at + bytes <= slab.length) return;
    if (at > handed) write(slab.subarray(handed, at), false);
    slab = Buffer.allocUnsafeSlow(Math.max(SLAB_BYTES, bytes));
    at = 0;
    handed = 0;
  };
  /** The line from `start` to `at` was written: the lines before it go as one chunk if it would pass PIPE_BUF. */
  const added = (start: number) => {
    if (start > handed && at - handed > ATOMIC_WRITE_BYTES) {
      write(slab.subarray(handed, start), false);
      handed = start;
    }
    if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  };
  const log = (record: object) => {
    const recordLevel = (record as { level?: LogLevel }).level;
    if (recordLevel !== undefined && RANK[recordLevel] < threshold) return;
    urgent = true;
    const text = `${JSON.stringify(record)}\n`;
    room(3 * text.length); // a character is at most 3 bytes of UTF-8
    const start = at;
    at += slab.write(text, at);
    added(start);
  };
  return Object.assign(log, {
    flush: () => flush(),
    request: (record: RequestRecord) => {
      if (RANK.info < threshold) return;
      room(requestLineBytes(record));
      const start = at;
      at = writeRequestLine(slab, at, record);
      added(start);
    },
    enabled: (wanted: LogLevel) => RANK[wanted] >= threshold,
    close: async () => {
      flush();
      if ('close' in out) await out.close();
    },
    flushSync: () => {
      // Not started as a background write: the process may end before one finishes (a fatal line would be lost).
      flush(false);
      if ('flushSync' in out) out.flushSync();
    },
  });
}
