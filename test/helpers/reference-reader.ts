import type { Readable } from 'node:stream';
import { BuildError } from '../../pipeline/base/errors.ts';
import { ValueBatch } from '../../pipeline/ingest/batch.ts';
import { cleanHeader, detectDelimiter } from '../../pipeline/ingest/delimited.ts';
import { splitRecords, type SplitOptions } from './fast-csv.ts';
import { openBytes, type ByteStream } from '../../pipeline/ingest/open.ts';
import { openRecords, parseLocally, type RecordSource } from '../../pipeline/ingest/read.ts';

/**
 * Opens a source with the reader as it was before the byte splitter, for an ingest to be checked against
 * (IngestOptions.open): delimited text decoded to strings and split by fast-csv.ts. Census API JSON, which
 * that reader never split, is read as the build reads it.
 */
export async function openReference(file: string, sourceKey: string): Promise<RecordSource> {
  if (/\.json$/i.test(file)) return openRecords(file, sourceKey);
  return referenceSource(await openBytes(file, sourceKey));
}

/**
 * The stream decoded to strings and split by fast-csv.ts, every field up to the last selected column
 * copied. Slower; kept so tests can check the fast reader against it, record by record and build by build.
 */
async function referenceSource({ stream, position }: ByteStream): Promise<RecordSource> {
  const firstChunk = await readFirstLine(stream);
  const delimiter = detectDelimiter(firstChunk.line);
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
  let columns: number[] = [];
  const source: RecordSource = {
    header,
    select: (selected) => {
      columns = selected;
      options.maxFields = Math.max(0, ...selected) + 1;
    },
    batches: (async function* () {
      if (pending.length) yield new ValueBatch(pending, columns);
      for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield new ValueBatch(next.value, columns);
    })(),
    parse(layout, plan) {
      return parseLocally(source, layout, plan);
    },
    progress: () => ({ textBytes: 0, fraction: position.fileBytes ? position.fileBytesRead / position.fileBytes : 1 }),
    close: () => stream.destroy(),
  };
  return source;
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
