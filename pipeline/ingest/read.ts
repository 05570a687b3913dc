import { createReadStream, existsSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createGunzip } from 'node:zlib';
import type { Readable } from 'node:stream';
import { splitRecords, type SplitOptions } from './fast-csv.ts';
import yauzl from 'yauzl';
import { BuildError } from '../errors.ts';

/** One data row of an input file: its values and the 1-based line (or JSON row) it came from. */
export interface RawRecord {
  line: number;
  /** The fields, possibly only the first few (see RecordSource.limitFields). */
  values: string[];
  /** How many fields the row has in the file, including any not copied into `values`. */
  fieldCount: number;
}

/** An opened input: the header (trimmed, BOM removed) and a stream of data rows in batches. */
export interface RecordSource {
  header: string[];
  batches: AsyncIterable<RawRecord[]>;
  /** Stop copying fields past this many (call before iterating): wide files need only their first columns. */
  limitFields(count: number): void;
}

/**
 * Opens `.csv`, `.txt` (tab, comma or pipe separated, detected from the header), `.gz` of either,
 * `.zip` (first CSV/TXT entry) and Census API `.json` exports, always streaming except JSON.
 */
export async function openRecords(file: string, sourceKey: string): Promise<RecordSource> {
  if (!existsSync(file) || !statSync(file).isFile()) {
    throw new BuildError(`source "${sourceKey}": file not found: ${file}. Fix the path in the manifest (sources.${sourceKey}.path) or create the file (hcas sample writes the bundled sample).`);
  }
  if (/\.json$/i.test(file)) return openCensusJson(file, sourceKey);
  const stream = /\.zip$/i.test(file) ? await openZipEntry(file, sourceKey) : openPlain(file);
  return openDelimited(stream);
}

function openPlain(file: string): Readable {
  const raw = createReadStream(file, { highWaterMark: 1 << 20 });
  return /\.gz$/i.test(file) ? raw.pipe(createGunzip({ chunkSize: 1 << 20 })) : raw;
}

function openZipEntry(file: string, sourceKey: string): Promise<Readable> {
  return new Promise((resolve, reject) => {
    yauzl.open(file, { lazyEntries: true }, (error, zip) => {
      if (error || !zip) return reject(new BuildError(`source "${sourceKey}": ${file} is not a readable zip archive (${error?.message})`));
      zip.on('entry', (entry: yauzl.Entry) => {
        if (/\/$/.test(entry.fileName) || !/\.(csv|txt)$/i.test(entry.fileName) || /fileheader/i.test(entry.fileName)) {
          zip.readEntry();
          return;
        }
        zip.openReadStream(entry, (streamError, stream) => {
          if (streamError || !stream) reject(new BuildError(`source "${sourceKey}": cannot read ${entry.fileName} in ${file}`));
          else resolve(stream);
        });
      });
      zip.on('end', () => reject(new BuildError(`source "${sourceKey}": ${file} holds no .csv or .txt file`)));
      zip.readEntry();
    });
  });
}

/** Reads the first line to pick the delimiter, then splits the whole stream into records. */
async function openDelimited(stream: Readable): Promise<RecordSource> {
  const firstChunk = await readFirstLine(stream);
  const delimiter = detectDelimiter(firstChunk.line);
  // Tab-separated Census files are unquoted; a stray quote inside a name must not swallow lines.
  const options: SplitOptions = { delimiter, quote: delimiter !== '\t' };
  const chunks = (async function* () {
    yield firstChunk.buffered;
    if (!firstChunk.ended) yield* stream as AsyncIterable<Buffer>;
  })();
  const iterator = splitRecords(chunks, options)[Symbol.asyncIterator]();
  const first = await iterator.next();
  if (first.done || first.value.length === 0) throw new BuildError('the file is empty: expected a header line');
  const header = first.value[0].values.map(cleanHeader);
  const pending = first.value.slice(1);
  return {
    header,
    limitFields: (count) => void (options.maxFields = count),
    batches: (async function* () {
      if (pending.length) yield pending;
      for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
    })(),
  };
}

/** Buffers the stream up to its first newline without consuming the rest, so the delimiter can be sniffed. */
function readFirstLine(stream: Readable): Promise<{ line: string; buffered: Buffer; ended: boolean }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const finish = (ended: boolean) => {
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', reject);
      stream.pause();
      const buffered = Buffer.concat(chunks);
      const newline = buffered.indexOf(10);
      resolve({ line: buffered.subarray(0, newline >= 0 ? newline : buffered.length).toString('utf8'), buffered, ended });
    };
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      if (chunk.includes(10) || chunks.reduce((n, c) => n + c.length, 0) > 1 << 20) finish(false);
    };
    const onEnd = () => finish(true);
    stream.on('data', onData);
    stream.once('end', onEnd);
    stream.once('error', reject);
  });
}

/** Exported for tests: the separator that splits the header into the most fields. */
export function detectDelimiter(headerLine: string): string {
  const counts = ['\t', ',', '|', ';'].map((d) => [d, headerLine.split(d).length] as const);
  counts.sort((a, b) => b[1] - a[1]);
  return counts[0][1] > 1 ? counts[0][0] : ',';
}

function cleanHeader(name: string): string {
  return name.replace(/^\uFEFF/, '').trim();
}

/** Census Data API JSON: an array of arrays whose first row is the header; values arrive as strings or null. */
async function openCensusJson(file: string, sourceKey: string): Promise<RecordSource> {
  let rows: unknown;
  try {
    rows = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    throw new BuildError(`source "${sourceKey}": ${file} is not valid JSON (${(error as Error).message}); expected a Census API export (array of arrays)`);
  }
  if (!Array.isArray(rows) || rows.length === 0 || !Array.isArray(rows[0])) {
    throw new BuildError(`source "${sourceKey}": ${file} is not a Census API export: expected an array of arrays with a header row first`);
  }
  const header = (rows[0] as unknown[]).map((v) => cleanHeader(String(v)));
  // A JSON row that is not an array becomes an empty record so the layout rejects it with its row number.
  const records = rows.slice(1).map((row, i) => ({ line: i + 2, values: Array.isArray(row) ? row.map((v) => (v === null || v === undefined ? '' : String(v))) : [], fieldCount: Array.isArray(row) ? row.length : 0 }));
  return {
    header,
    limitFields: () => {},
    batches: (async function* () {
      for (let i = 0; i < records.length; i += 10_000) yield records.slice(i, i + 10_000);
    })(),
  };
}
