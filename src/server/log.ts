import { ATOMIC_WRITE_BYTES, type LogOutput } from './log-output.ts';
import type { LogLevel } from './settings.ts';

/**
 * One line of the request log. `key_id` is the id `hcas keys list` shows, never the key; `plan` is the
 * caller's plan id, `anonymous`, or absent when limits are off; `client` is the address the quota is
 * counted for (X-Forwarded-For from a trusted proxy, else the socket peer).
 */
export interface RequestRecord {
  time: string;
  level: LogLevel;
  request_id: string;
  method: string;
  path: string;
  /** The route pattern (`/api/v1/health-scores/:zip/`), or absent for a path no route serves. */
  route?: string;
  status: number;
  duration_ms: number;
  bytes: number;
  client: string;
  key_id?: number;
  plan?: string;
}

/** Writes one JSON object per line. A record's `level` (default info) decides whether it is written. */
export type LineLog = (record: object) => void;

/** A log that can say whether a level is written, so callers skip building records nobody reads. */
export type LevelledLog = LineLog & {
  /** Hands the lines of this event-loop turn to the output now. */
  flush(): void;
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

/**
 * A JSON-lines log that batches the lines of one event-loop turn into few writes, so logging costs little
 * under load. Each write ends at a line boundary and stays within PIPE_BUF when it can, so lines from
 * cluster workers sharing a pipe never interleave (a LogOutput then gathers writes and makes them in the
 * background). Records below `level` are dropped.
 */
export function jsonLines(out: { write(chunk: string): unknown } | LogOutput, level: LogLevel = 'info'): LevelledLog {
  const threshold = RANK[level];
  let pending: string[] = [];
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    let chunk = '';
    for (const line of pending) {
      if (chunk.length > 0 && chunk.length + line.length > ATOMIC_WRITE_BYTES) {
        out.write(chunk);
        chunk = '';
      }
      chunk += line;
    }
    if (chunk.length > 0) out.write(chunk);
    pending = [];
  };
  const log = (record: object) => {
    const recordLevel = (record as { level?: LogLevel }).level;
    if (recordLevel !== undefined && RANK[recordLevel] < threshold) return;
    pending.push(`${JSON.stringify(record)}\n`);
    if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  };
  return Object.assign(log, {
    flush,
    enabled: (wanted: LogLevel) => RANK[wanted] >= threshold,
    close: async () => {
      flush();
      if ('close' in out) await out.close();
    },
    flushSync: () => {
      flush();
      if ('flushSync' in out) out.flushSync();
    },
  });
}
