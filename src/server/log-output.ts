import { fstatSync, write, writeSync } from 'node:fs';

/** Largest write that a pipe keeps whole when several processes share it (POSIX PIPE_BUF). */
export const ATOMIC_WRITE_BYTES = 4096;
/** Lines held while the destination cannot take them (a stalled reader, a full disk); past this they are dropped, and counted. */
export const MAX_HELD_BYTES = 16 * 1024 * 1024;
/** A file is written in writes of up to this much, so a busy server writes its log in few system calls. */
const FILE_WRITE_BYTES = 64 * 1024;
/** Lines wait at most this long for a write to fill. */
export const LOG_FLUSH_MS = 100;
/** How long a synchronous flush retries a pipe that is full (EAGAIN) before it gives up on the rest. */
const SYNC_RETRY_MS = 1_000;

/** Where the log's lines go: written in the background, flushed at shutdown and before the process ends. */
export interface LogOutput {
  /**
   * Holds the chunk (bytes are held as they are: the caller never changes them); `now` starts a write at once
   * (with every line held before it, so the order is kept).
   */
  write(chunk: string | Buffer, now?: boolean): void;
  /** Writes what is held and waits for every write (shutdown). */
  close(): Promise<void>;
  /** Writes what is held before returning (the process is about to end). */
  flushSync(): void;
}

/**
 * The log's output on a file descriptor (stdout by default), written asynchronously: lines gather in memory
 * and leave in large writes made off the event loop, so a slow disk or a stalled log reader never holds a
 * request. A write starts when a full one is held, when a line that must not wait comes (a server event: an
 * operator or a supervisor watches for it), or LOG_FLUSH_MS after the first line waiting; one is in
 * flight at a time, so lines stay in order. A pipe or socket (journald, docker, `| tee`) gets writes of at
 * most PIPE_BUF made of whole chunks (the caller's chunks end at a line and fit in it), so the lines of
 * workers sharing it never interleave; a file gets writes of up to 64 KiB (a shared file offset keeps each
 * write whole). Past `maxHeldBytes` lines are dropped, never silently: a `log_lines_dropped` line says how
 * many once the output takes lines again.
 *
 * Not pino's SonicBoom: it did the same at several times the CPU per line in this server's pattern, because
 * it measures the byte length of its whole pending buffer on every write (docs/ARCHITECTURE.md, "Decisions";
 * bench/request-costs.ts times the line "written to a file").
 */
export function logOutput(fd = 1, maxHeldBytes = MAX_HELD_BYTES, flushMs = LOG_FLUSH_MS): LogOutput {
  return new FdOutput(fd, maxHeldBytes, flushMs);
}

class FdOutput implements LogOutput {
  private readonly writeBytes: number;
  // Bytes, not strings: a line held across a few young-generation collections would be promoted to the old
  // one (the lines of a turn are a rope of strings); a Buffer's bytes live outside the heap.
  private held: Buffer[] = [];
  private heldBytes = 0;
  private writing = false;
  private closing = false;
  private closed = false;
  private timer: NodeJS.Timeout | undefined;
  private dropped = 0;
  private failures = 0;
  /** Bytes held up to the end of the last line that must not wait: writes follow one another until it is out. */
  private urgentBytes = 0;
  private readonly idle: Array<() => void> = [];
  private readonly fd: number;
  private readonly maxHeldBytes: number;
  private readonly flushMs: number;

  constructor(fd: number, maxHeldBytes: number, flushMs: number) {
    this.fd = fd;
    this.maxHeldBytes = maxHeldBytes;
    this.flushMs = flushMs;
    this.writeBytes = isPipe(fd) ? ATOMIC_WRITE_BYTES : FILE_WRITE_BYTES;
  }

  write(chunk: string | Buffer, now = false): void {
    // A line after the output was closed (the last lines of a shutdown) is written at once.
    if (this.closed) {
      writeAll(this.fd, typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
      return;
    }
    this.hold(chunk);
    if (now) this.urgentBytes = this.heldBytes;
    this.schedule();
  }

  close(): Promise<void> {
    this.closing = true;
    return new Promise<void>((resolve) => {
      this.idle.push(() => {
        this.closed = true;
        resolve();
      });
      this.schedule();
    });
  }

  flushSync(): void {
    clearTimeout(this.timer);
    const data = Buffer.concat(this.held);
    this.held = [];
    this.heldBytes = 0;
    this.urgentBytes = 0;
    if (data.length > 0) writeAll(this.fd, data);
  }

  /** Takes the chunks of the next write: whole chunks, at least one, within `writeBytes`. */
  private take(): Buffer {
    const { held } = this;
    let count = 0;
    let bytes = 0;
    while (count < held.length && (count === 0 || bytes + held[count].length <= this.writeBytes)) bytes += held[count++].length;
    const data = count === held.length ? held : held.slice(0, count);
    this.held = count === held.length ? [] : held.slice(count);
    this.heldBytes -= bytes;
    this.urgentBytes = Math.max(0, this.urgentBytes - bytes);
    return data.length === 1 ? data[0] : Buffer.concat(data, bytes);
  }

  private failed(error: NodeJS.ErrnoException, lines: Buffer): void {
    this.dropped += countLines(lines);
    if (this.failures++ === 0)
      process.stderr.write(`hcas: the log cannot be written (${error.code ?? error.message}); its lines are dropped and counted\n`);
  }

  /** Makes the next write, off the event loop; when it is done, the next one is scheduled. */
  private readonly start = (): void => {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.writing || this.held.length === 0) return;
    this.writing = true;
    const data = this.take();
    const rest = (offset: number) =>
      write(this.fd, data, offset, data.length - offset, null, (error, written) => {
        if (error?.code === 'EAGAIN') return void setTimeout(() => rest(offset), 10);
        if (error) this.failed(error, data);
        else if (offset + written < data.length) return rest(offset + written);
        this.writing = false;
        this.schedule();
      });
    rest(0);
  };

  /** Starts a write when a full one is held (or at close), else makes sure one starts within LOG_FLUSH_MS. */
  private schedule(): void {
    if (this.writing) return;
    if (this.held.length === 0) {
      for (const wake of this.idle.splice(0)) wake();
      return;
    }
    if (this.closing || this.urgentBytes > 0 || this.heldBytes >= this.writeBytes) this.start();
    else this.timer ??= setTimeout(this.start, this.flushMs).unref();
  }

  private hold(text: string | Buffer): void {
    const chunk = typeof text === 'string' ? Buffer.from(text) : text;
    if (this.heldBytes + chunk.length > this.maxHeldBytes) {
      this.dropped += countLines(chunk);
      return;
    }
    if (this.dropped > 0) {
      const note = { time: new Date().toISOString(), level: 'warn', event: 'log_lines_dropped', count: this.dropped };
      this.dropped = 0;
      this.hold(`${JSON.stringify(note)}\n`);
    }
    this.held.push(chunk);
    this.heldBytes += chunk.length;
  }
}

/** Writes all of `data` synchronously, waiting out a full pipe for at most SYNC_RETRY_MS. */
function writeAll(fd: number, data: Buffer): void {
  const deadline = Date.now() + SYNC_RETRY_MS;
  let offset = 0;
  while (offset < data.length) {
    try {
      offset += writeSync(fd, data, offset);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN' || Date.now() > deadline) return;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
    }
  }
}

/** True for a pipe or socket, where only writes of at most PIPE_BUF stay whole. */
function isPipe(fd: number): boolean {
  try {
    const stat = fstatSync(fd);
    return stat.isFIFO() || stat.isSocket();
  } catch {
    return true;
  }
}

function countLines(chunk: Buffer): number {
  let lines = 0;
  for (let at = chunk.indexOf(NEWLINE); at >= 0; at = chunk.indexOf(NEWLINE, at + 1)) lines++;
  return lines;
}

const NEWLINE = 0x0a;
