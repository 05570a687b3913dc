/**
 * Streaming output for the sample generator.
 *
 * The national-scale NPPES file is several gigabytes uncompressed, so nothing is ever assembled whole in
 * memory: text is buffered up to about a megabyte, written to a file stream (through gzip level 1 for .gz
 * files), and the writer waits for 'drain' whenever the stream signals backpressure.
 */
import { createWriteStream, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { once } from 'node:events';
import { finished, pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import type { Writable } from 'node:stream';

/** Options of {@link OutputFile.open}. */
export interface OutputOptions {
  /** Compress with gzip level 1 (fast; the files are large and highly repetitive). */
  gzip?: boolean;
  /** Start the file with a UTF-8 byte order mark, as some official exports do (HIFLD). */
  bom?: boolean;
  /** Line terminator; defaults to "\n". Some official files use "\r\n". */
  eol?: '\n' | '\r\n';
}

const FLUSH_THRESHOLD = 1 << 20;

/** A text file written in chunks with backpressure. */
export class OutputFile {
  private parts: string[] = [];
  private buffered = 0;
  /** Data lines written through {@link line} (headers are written with {@link header} and not counted). */
  rows = 0;

  readonly path: string;
  private readonly target: Writable;
  private readonly done: Promise<void>;
  readonly eol: string;

  private constructor(path: string, target: Writable, done: Promise<void>, eol: string) {
    this.path = path;
    this.target = target;
    this.done = done;
    this.eol = eol;
    // A stream error must not go unhandled while nobody is awaiting `done`; close() rethrows it.
    done.catch(() => undefined);
  }

  /** Creates parent directories and opens the file. */
  static open(path: string, options: OutputOptions = {}): OutputFile {
    mkdirSync(dirname(path), { recursive: true });
    const file = createWriteStream(path, { highWaterMark: 1 << 20 });
    let target: Writable = file;
    let done: Promise<void>;
    if (options.gzip) {
      const gzip = createGzip({ level: 1, chunkSize: 1 << 17 });
      target = gzip;
      done = pipeline(gzip, file);
    } else {
      done = finished(file);
    }
    const out = new OutputFile(path, target, done, options.eol ?? '\n');
    if (options.bom) out.append('\uFEFF');
    return out;
  }

  /** Buffers raw text; returns true when the caller should `await flush()` before adding more. */
  append(text: string): boolean {
    this.parts.push(text);
    this.buffered += text.length;
    return this.buffered >= FLUSH_THRESHOLD;
  }

  /** Writes the header line (not counted as a row). */
  header(text: string): void {
    this.append(text + this.eol);
  }

  /** Buffers one data line (the terminator is added); returns true when a flush is due. */
  line(text: string): boolean {
    this.rows++;
    return this.append(text + this.eol);
  }

  /** Writes buffered text to the stream, waiting for 'drain' if the stream is full. */
  async flush(): Promise<void> {
    if (this.parts.length === 0) return;
    const chunk = this.parts.join('');
    this.parts = [];
    this.buffered = 0;
    if (!this.target.write(chunk)) {
      await Promise.race([once(this.target, 'drain'), this.done]);
    }
  }

  /** Flushes, ends the stream and waits until the file is completely written. */
  async close(): Promise<void> {
    await this.flush();
    this.target.end();
    await this.done;
  }
}

/** Writes a header and lines to a file, flushing as it goes; returns the number of data lines. */
export async function writeLines(path: string, header: string, lines: Iterable<string>, options: OutputOptions = {}): Promise<number> {
  const out = OutputFile.open(path, options);
  out.header(header);
  for (const text of lines) if (out.line(text)) await out.flush();
  await out.close();
  return out.rows;
}

const NEEDS_QUOTES = /[",\r\n]/;

/** One CSV field, quoted only when it must be (RFC 4180), as most official CSV exports do. */
export function csvField(value: string | number): string {
  const text = String(value);
  return NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** A CSV line from values, quoting only where needed. */
export function csvLine(values: readonly (string | number)[]): string {
  return values.map(csvField).join(',');
}

/** A field always wrapped in double quotes (NPPES style: every field quoted, "" when empty). */
export function quoted(value: string | number): string {
  const text = String(value);
  return text.includes('"') ? `"${text.replace(/"/g, '""')}"` : `"${text}"`;
}
