import type { Readable } from 'node:stream';
import { BuildError } from '../base/errors.ts';
import type { RecordBatch } from './batch.ts';
import { BatchBuilder, ByteSplitter, type SplitFormat } from './split.ts';

/** Bytes of text handed to the splitter at a time: large enough that per-batch costs vanish, small enough to stream. */
const BATCH_BYTES = 4 << 20;
/** Columns a header may have (the NPPES file has 330). */
const MAX_COLUMNS = 1 << 16;
const LF = 10;

/**
 * A delimited text stream opened up to its header: the delimiter is sniffed from the first line, the header
 * split in full; then `batches()` splits the rest into RecordBatches of the selected columns.
 */
export class DelimitedReader {
  /** Bytes of text consumed so far (decompressed), for progress. */
  textBytesRead = 0;
  private readonly splitter: ByteSplitter;
  private readonly chunks: AsyncIterator<Buffer>;
  readonly header: string[];
  readonly format: SplitFormat;
  private carry: Uint8Array;
  private ended: boolean;

  private constructor(
    header: string[],
    format: SplitFormat,
    splitter: ByteSplitter,
    chunks: AsyncIterator<Buffer>,
    carry: Uint8Array,
    ended: boolean,
  ) {
    this.header = header;
    this.format = format;
    this.splitter = splitter;
    this.chunks = chunks;
    this.carry = carry;
    this.ended = ended;
  }

  static async open(stream: Readable | AsyncIterable<Buffer>): Promise<DelimitedReader> {
    const chunks = (stream as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
    let buffered: Uint8Array = new Uint8Array(0);
    let ended = false;
    const more = async (): Promise<boolean> => {
      const next = await chunks.next();
      if (next.done) return !(ended = true);
      buffered = concat(buffered, next.value);
      return true;
    };
    // The delimiter is the one that splits the first line into the most fields.
    while (buffered.indexOf(LF) === -1 && buffered.length <= 1 << 20 && (await more()));
    const newline = buffered.indexOf(LF);
    const firstLine = Buffer.from(buffered.buffer, buffered.byteOffset, newline >= 0 ? newline : buffered.length).toString('utf8');
    const delimiter = detectDelimiter(firstLine);
    // Tab-separated Census files are unquoted; a stray quote inside a name must not swallow lines.
    const format: SplitFormat = { delimiter, quote: delimiter !== '\t' };
    const splitter = new ByteSplitter(
      format,
      Array.from({ length: MAX_COLUMNS }, (_, i) => i),
    );
    for (;;) {
      const out = new BatchBuilder(MAX_COLUMNS, 1);
      const used = splitter.split(buffered, 0, buffered.length, ended, out, 1);
      if (out.count === 1) {
        const record = out.take(buffered);
        const header = Array.from({ length: Math.min(record.fieldCount(0), MAX_COLUMNS) }, (_, i) => cleanHeader(record.value(0, i)));
        const reader = new DelimitedReader(header, format, splitter, chunks, buffered.slice(used), ended);
        reader.textBytesRead = used;
        return reader;
      }
      if (ended) throw new BuildError('the file is empty: expected a header line');
      await more();
    }
  }

  /** Keeps only these header columns (by index), in this order; call before `batches()`. */
  select(columns: readonly number[]): void {
    this.splitter.select(columns);
  }

  /** The data rows, in batches that own their bytes (so a batch can be handed to another thread). */
  async *batches(): AsyncGenerator<RecordBatch> {
    const width = this.splitter.columnCount;
    let pending: Uint8Array[] = [this.carry];
    let pendingBytes = this.carry.length;
    for (;;) {
      while (!this.ended && pendingBytes < BATCH_BYTES) {
        const next = await this.chunks.next();
        if (next.done) this.ended = true;
        else {
          pending.push(next.value);
          pendingBytes += next.value.length;
        }
      }
      // One copy into a buffer of its own: spans point into it, and it may be transferred to another thread.
      const bytes = new Uint8Array(pendingBytes);
      let at = 0;
      for (const chunk of pending) {
        bytes.set(chunk, at);
        at += chunk.length;
      }
      const out = new BatchBuilder(width, 4096);
      const used = this.splitter.split(bytes, 0, bytes.length, this.ended, out);
      this.textBytesRead += used;
      const rest = bytes.slice(used);
      if (out.count > 0) yield out.take(bytes.subarray(0, used));
      if (this.ended) return;
      pending = [rest];
      pendingBytes = rest.length;
    }
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** Exported for tests: the separator that splits the header into the most fields. */
export function detectDelimiter(headerLine: string): string {
  const counts = ['\t', ',', '|', ';'].map((d) => [d, headerLine.split(d).length] as const);
  counts.sort((a, b) => b[1] - a[1]);
  return counts[0][1] > 1 ? counts[0][0] : ',';
}

export function cleanHeader(name: string): string {
  return name.replace(/^\uFEFF/, '').trim();
}
