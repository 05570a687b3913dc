import { createReadStream, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { createGunzip, createInflateRaw } from 'node:zlib';
import yauzl from 'yauzl';
import { BuildError } from '../base/errors.ts';

/** How far through its file a byte stream is, for progress: bytes read from disk and decompressed text. */
export interface StreamPosition {
  /** Size of the file on disk. */
  fileBytes: number;
  /** Bytes of the file read so far (compressed bytes for .gz). */
  fileBytesRead: number;
  /** Uncompressed size when the container records it (a .zip entry), else null. */
  textBytes: number | null;
}

/** The bytes of a delimited file: plain, gzip, or the first CSV/TXT entry of a zip archive; all streamed. */
export interface ByteStream {
  stream: Readable;
  position: StreamPosition;
}

const CHUNK_BYTES = 1 << 20;

export async function openBytes(file: string, sourceKey: string): Promise<ByteStream> {
  const position: StreamPosition = { fileBytes: statSync(file).size, fileBytesRead: 0, textBytes: null };
  if (/\.zip$/i.test(file)) return { stream: await openZipEntry(file, sourceKey, position), position };
  const raw = createReadStream(file, { highWaterMark: CHUNK_BYTES });
  raw.on('data', (chunk) => void (position.fileBytesRead += chunk.length));
  const stream = /\.gz$/i.test(file) ? raw.pipe(createGunzip({ chunkSize: CHUNK_BYTES })) : raw;
  // A read error on the file must reach whoever reads the gunzip stream.
  if (stream !== raw) raw.once('error', (error) => stream.destroy(error));
  return { stream, position };
}

function openZipEntry(file: string, sourceKey: string, position: StreamPosition): Promise<Readable> {
  return new Promise((resolve, reject) => {
    yauzl.open(file, { lazyEntries: true }, (error, zip) => {
      if (error || !zip) return reject(new BuildError(`source "${sourceKey}": ${file} is not a readable zip archive (${error?.message})`));
      zip.on('entry', (entry: yauzl.Entry) => {
        if (/\/$/.test(entry.fileName) || !/\.(csv|txt)$/i.test(entry.fileName) || /fileheader/i.test(entry.fileName)) {
          zip.readEntry();
          return;
        }
        zip.close();
        position.textBytes = entry.uncompressedSize;
        entryStream(file, entry, position).then(resolve, (cause: Error) =>
          reject(new BuildError(`source "${sourceKey}": cannot read ${entry.fileName} in ${file} (${cause.message})`)),
        );
      });
      zip.on('end', () => reject(new BuildError(`source "${sourceKey}": ${file} holds no .csv or .txt file`)));
      zip.readEntry();
    });
  });
}

/**
 * The entry's bytes, read in 1 MB chunks and inflated in 1 MB chunks, as a .gz is: yauzl finds the entry
 * (ZIP64 included), but its own stream reads and inflates in small pieces, which made a zip a third
 * slower to read than the same file gzipped.
 */
async function entryStream(file: string, entry: yauzl.Entry, position: StreamPosition): Promise<Readable> {
  if (entry.compressionMethod !== 0 && entry.compressionMethod !== 8)
    throw new Error(`compression method ${entry.compressionMethod} is not supported (only stored and deflate)`);
  const handle = await open(file, 'r');
  const header = Buffer.alloc(30);
  try {
    await handle.read(header, 0, 30, entry.relativeOffsetOfLocalHeader);
  } finally {
    await handle.close();
  }
  if (header.readUInt32LE(0) !== 0x04034b50) throw new Error('bad local file header');
  const start = entry.relativeOffsetOfLocalHeader + 30 + header.readUInt16LE(26) + header.readUInt16LE(28);
  if (entry.compressedSize === 0) return Readable.from([]);
  const raw = createReadStream(file, { start, end: start + entry.compressedSize - 1, highWaterMark: CHUNK_BYTES });
  position.fileBytes = entry.compressedSize;
  raw.on('data', (chunk) => void (position.fileBytesRead += chunk.length));
  if (entry.compressionMethod === 0) return raw;
  const inflate = raw.pipe(createInflateRaw({ chunkSize: CHUNK_BYTES }));
  raw.once('error', (error) => inflate.destroy(error));
  return inflate;
}
