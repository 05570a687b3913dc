import { createReadStream, statSync } from 'node:fs';
import { createGunzip } from 'node:zlib';
import type { Readable } from 'node:stream';
import yauzl from 'yauzl';
import { BuildError } from '../errors.ts';

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
        zip.openReadStream(entry, (streamError, stream) => {
          if (streamError || !stream) return reject(new BuildError(`source "${sourceKey}": cannot read ${entry.fileName} in ${file}`));
          position.textBytes = entry.uncompressedSize;
          resolve(stream);
        });
      });
      zip.on('end', () => reject(new BuildError(`source "${sourceKey}": ${file} holds no .csv or .txt file`)));
      zip.readEntry();
    });
  });
}
