import { existsSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Worker } from 'node:worker_threads';
import { startThread } from '../../core/threads.ts';
import { PACKAGE_ROOT } from '../../core/package.ts';
import { BuildError } from '../base/errors.ts';
import { RecordBatch, ValueBatch, type Records } from './batch.ts';
import { cleanHeader, DelimitedReader, detectDelimiter } from './delimited.ts';
import { openBytes, type StreamPosition } from './open.ts';
import type { FromWorker, Position, ToWorker, WorkerInput } from './reader-protocol.ts';
import { parseBatch, type ParsedBatch, type ParsePlan } from './parse.ts';
import { unpackRows } from './row-codec.ts';
import { LAYOUTS } from '../layouts/index.ts';
import type { Layout } from '../layouts/types.ts';

export { detectDelimiter };

/** How far through its file a reader is: text bytes split so far, and the fraction of the file (0..1). */
export interface ReadProgress {
  textBytes: number;
  fraction: number;
}

/** An opened input: the header (trimmed, BOM removed) and a stream of data rows in batches. */
export interface RecordSource {
  header: string[];
  /** Chooses the header columns (by index) the batches carry, in slot order: call once, before iterating. */
  select(columns: number[]): void;
  batches: AsyncIterable<Records>;
  /** Instead of select + batches: the records parsed through a layout (in the worker thread when there is one). */
  parse<Row>(layout: Layout<Row>, plan: ParsePlan): AsyncIterable<ParsedBatch<Row>>;
  /** Where the reader is in the file (updated as batches arrive). */
  progress(): ReadProgress;
  /** Stops reading (a worker thread is ended); safe to call more than once. */
  close(): void;
}

/**
 * How delimited files are split: bytes, decoding only the selected columns, in a worker thread for large
 * files (`threads`: auto = files of about 32 MB of text or more).
 */
export interface ReadOptions {
  threads?: 'auto' | 'worker' | 'main';
  /**
   * With a worker thread, which thread parses records through the layout: `either` (builds) lets the worker
   * give a batch to the main thread whenever that one keeps up; tests pin `worker` or `main` to check both ways.
   */
  parseIn?: 'either' | 'worker' | 'main';
}

/** Text size from which a file is split in a worker thread (compressed files are counted at 8x). */
const WORKER_MIN_TEXT_BYTES = 32 << 20;
/** Batches the worker may run ahead of the main thread (4 MB of text each). */
const WORKER_IN_FLIGHT = 4;

/**
 * Opens `.csv`, `.txt` (tab, comma or pipe separated, detected from the header), `.gz` of either,
 * `.zip` (first CSV/TXT entry) and Census API `.json` exports, always streaming except JSON.
 */
export async function openRecords(file: string, sourceKey: string, options: ReadOptions = {}): Promise<RecordSource> {
  if (!existsSync(file) || !statSync(file).isFile()) {
    // Only the default sample's files are written by a command: name it for those alone.
    const sample = file.startsWith(path.join(PACKAGE_ROOT, 'raw', 'sample') + path.sep);
    throw new BuildError(
      `source "${sourceKey}": file not found: ${file}. ` +
        (sample
          ? 'Run `hcas sample` to write the synthetic providers of the default build (npm start does).'
          : `Fix the path in the manifest (sources.${sourceKey}.path), or name the folder that holds the manifest's files with --root DIR.`),
    );
  }
  if (/\.json$/i.test(file)) return openCensusJson(file, sourceKey);
  const threads = options.threads ?? 'auto';
  const size = statSync(file).size;
  const textBytes = /\.(gz|zip)$/i.test(file) ? size * 8 : size;
  if (threads === 'worker' || (threads === 'auto' && textBytes >= WORKER_MIN_TEXT_BYTES))
    return openInWorker(file, sourceKey, options.parseIn ?? 'either');
  return openInThread(file, sourceKey);
}

function fractionOf(position: StreamPosition, textBytesRead: number): number {
  if (position.textBytes) return Math.min(1, textBytesRead / position.textBytes);
  return position.fileBytes ? Math.min(1, position.fileBytesRead / position.fileBytes) : 1;
}

/** Splits on this thread: small files, where starting a worker would cost more than it saves. */
async function openInThread(file: string, sourceKey: string): Promise<RecordSource> {
  const { stream, position } = await openBytes(file, sourceKey);
  let reader: DelimitedReader;
  try {
    reader = await DelimitedReader.open(stream);
  } catch (error) {
    stream.destroy();
    throw error;
  }
  let batches: AsyncGenerator<RecordBatch> | null = null;
  const source: RecordSource = {
    header: reader.header,
    select: (columns) => reader.select(columns),
    get batches() {
      return (batches ??= reader.batches());
    },
    parse(layout, plan) {
      return parseLocally(source, layout, plan);
    },
    progress: () => ({ textBytes: reader.textBytesRead, fraction: fractionOf(position, reader.textBytesRead) }),
    close: () => stream.destroy(),
  };
  return source;
}

/**
 * The worker allocates a string or two per field it parses, millions a second: with V8's default young
 * generation (16 MB semi-spaces) it spends a tenth of its time in scavenges. 96 MB: 1,000,000 NPPES rows in
 * 11.1 s instead of 12.6 s (48 MB 11.4 s, 192 MB no better).
 */
const WORKER_LIMITS = { maxYoungGenerationSizeMb: 96 };

/** Starts the reader worker: reader-worker.js beside this module compiled, reader-worker.ts run as TypeScript. */
function startWorker(input: WorkerInput): Worker {
  return startThread(import.meta.url, 'reader-worker', input, WORKER_LIMITS);
}

/** Decompresses and splits in a worker thread; this thread only decodes the selected fields it is handed. */
async function openInWorker(file: string, sourceKey: string, parseIn: WorkerInput['parseIn']): Promise<RecordSource> {
  const input: WorkerInput = { file, sourceKey, inFlight: WORKER_IN_FLIGHT, parseIn };
  const worker = startWorker(input);
  const inbox = new Inbox(worker);
  const send = (message: ToWorker) => worker.postMessage(message);
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    void worker.terminate();
  };
  const first = await inbox.next().catch((error) => {
    close();
    throw error;
  });
  if (first.type !== 'header') {
    close();
    throw new Error(`reader worker for ${file}: expected the header, got ${first.type}`);
  }
  let progress: ReadProgress = { textBytes: 0, fraction: 0 };
  const track = (position: Position) =>
    void (progress = { textBytes: position.textBytesRead, fraction: fractionOf(position, position.textBytesRead) });
  /** Each message the worker sends, acknowledged once the consumer is done with it (so only a few are in flight). */
  async function* messages(): AsyncGenerator<FromWorker> {
    try {
      for (;;) {
        const message = await inbox.next();
        if (message.type === 'end') return;
        yield message;
        send({ type: 'ack' });
      }
    } finally {
      close();
    }
  }
  const source: RecordSource = {
    header: first.header,
    select: (columns) => send({ type: 'columns', columns }),
    batches: (async function* () {
      for await (const message of messages()) {
        if (message.type !== 'batch') throw new Error(`reader worker for ${file}: unexpected ${message.type}`);
        track(message.position);
        yield new RecordBatch(message.bytes, message.index, message.count, message.width);
      }
    })(),
    parse<Row>(layout: Layout<Row>, plan: ParsePlan): AsyncIterable<ParsedBatch<Row>> {
      // A layout the worker cannot look up by name (a test's own) is parsed here.
      if (LAYOUTS.get(plan.layout) !== layout) return parseLocally(source, layout, plan);
      send({ type: 'plan', plan });
      return (async function* () {
        for await (const message of messages()) {
          if (message.type === 'batch') {
            track(message.position);
            // This thread kept up, so the worker left the parsing of this batch to it.
            yield parseBatch(new RecordBatch(message.bytes, message.index, message.count, message.width), layout, plan);
            continue;
          }
          if (message.type !== 'parsed') throw new Error(`reader worker for ${file}: unexpected ${message.type}`);
          track(message.position);
          const parsed = message.parsed as ParsedBatch<Row>;
          if (message.packed) parsed.rows = unpackRows<Row>(message.packed);
          yield parsed;
        }
      })();
    },
    progress: () => progress,
    close,
  };
  return source;
}

/** Parses on this thread: select the plan's columns, then each batch through the layout. */
export async function* parseLocally<Row>(source: RecordSource, layout: Layout<Row>, plan: ParsePlan): AsyncGenerator<ParsedBatch<Row>> {
  source.select(plan.columns);
  for await (const batch of source.batches) yield parseBatch(batch, layout, plan);
}

/** Messages from the worker as a queue to await; a worker error or early exit rejects the next read. */
class Inbox {
  private readonly queue: FromWorker[] = [];
  private failure: Error | null = null;
  private waiting: { resolve: (message: FromWorker) => void; reject: (error: Error) => void } | null = null;

  constructor(worker: Worker) {
    worker.on('message', (message: FromWorker) => this.push(message));
    worker.on('error', (error) => this.fail(error));
    worker.on('exit', (code) => this.fail(new Error(`reader worker stopped (exit code ${code}) before the end of the file`)));
  }

  next(): Promise<FromWorker> {
    const message = this.queue.shift();
    if (message) return Promise.resolve(message);
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => (this.waiting = { resolve, reject }));
  }

  private push(message: FromWorker): void {
    if (message.type === 'error') {
      this.fail(message.buildError ? new BuildError(message.message) : new Error(message.message));
      return;
    }
    if (this.waiting) {
      const { resolve } = this.waiting;
      this.waiting = null;
      resolve(message);
    } else this.queue.push(message);
  }

  private fail(error: Error): void {
    this.failure ??= error;
    if (this.waiting) {
      const { reject } = this.waiting;
      this.waiting = null;
      reject(this.failure);
    }
  }
}

/** Census Data API JSON: an array of arrays whose first row is the header; values arrive as strings or null. */
async function openCensusJson(file: string, sourceKey: string): Promise<RecordSource> {
  let rows: unknown;
  try {
    rows = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    throw new BuildError(
      `source "${sourceKey}": ${file} is not valid JSON (${(error as Error).message}); expected a Census API export (array of arrays)`,
    );
  }
  if (!Array.isArray(rows) || rows.length === 0 || !Array.isArray(rows[0])) {
    throw new BuildError(`source "${sourceKey}": ${file} is not a Census API export: expected an array of arrays with a header row first`);
  }
  const header = (rows[0] as unknown[]).map((v) => cleanHeader(String(v)));
  // A JSON row that is not an array becomes an empty record so the layout rejects it with its row number.
  const records = rows.slice(1).map((row, i) => {
    const values = Array.isArray(row) ? row.map((v) => (v === null || v === undefined ? '' : String(v))) : [];
    return { line: i + 2, values, fieldCount: values.length };
  });
  let columns: number[] = [];
  const source: RecordSource = {
    header,
    select: (selected) => void (columns = selected),
    batches: (async function* () {
      for (let i = 0; i < records.length; i += 10_000) yield new ValueBatch(records.slice(i, i + 10_000), columns);
    })(),
    parse(layout, plan) {
      return parseLocally(source, layout, plan);
    },
    progress: () => ({ textBytes: 0, fraction: 1 }),
    close: () => {},
  };
  return source;
}
