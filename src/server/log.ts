/** One line of the request log. */
export interface RequestRecord {
  time: string;
  method: string;
  path: string;
  status: number;
  duration_ms: number;
  bytes: number;
}

/** Writes one JSON object per line. */
export type LineLog = (record: object) => void;

/** Largest write that a pipe keeps whole when several workers share it (POSIX PIPE_BUF). */
const ATOMIC_WRITE_BYTES = 4096;

/**
 * A JSON-lines log that batches the lines of one event-loop turn into few writes, so logging costs little
 * under load. Each write ends at a line boundary and stays within PIPE_BUF when it can, so lines from
 * cluster workers sharing stdout never interleave.
 */
export function jsonLines(out: { write(chunk: string): unknown }): LineLog & { flush(): void } {
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
    pending.push(`${JSON.stringify(record)}\n`);
    if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  };
  return Object.assign(log, { flush });
}
