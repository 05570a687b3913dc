import { createWriteStream } from 'node:fs';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import yauzl from 'yauzl';
import { BuildError } from '../../pipeline/base/errors.ts';
import { jsonPath } from './discover.ts';

/** The file an unpack step wrote, and the archive member it came from. */
export interface Unpacked {
  file: string;
  member: string | null;
}

// A gzip header with no name and no time (RFC 1952): deflate, mtime 0, no extra flags, OS unknown.
const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff]);

/**
 * Writes the one member of `zipFile` whose name matches `member` into `outDir`. A deflated member becomes a
 * `.gz` file by copying its compressed bytes between a gzip header and trailer (CRC-32 and size from the
 * zip's directory): no inflating, so the 11 GB NPPES CSV costs a 1 GB copy, and whoever reads the `.gz`
 * checks the CRC at its end. A stored member is copied as it is.
 */
export async function unpackZipMember(zipFile: string, member: RegExp, outDir: string, where: string): Promise<Unpacked> {
  let zip: yauzl.ZipFile;
  try {
    zip = await yauzl.openPromise(zipFile, { lazyEntries: true, autoClose: false });
  } catch (error) {
    throw new BuildError(
      `${where}: ${zipFile} is not a readable zip archive (${(error as Error).message}). Delete it and run hcas fetch again.`,
    );
  }
  try {
    const names: string[] = [];
    const matches: yauzl.Entry[] = [];
    for await (const entry of zip.eachEntry()) {
      if (entry.fileName.endsWith('/')) continue;
      names.push(entry.fileName);
      if (member.test(entry.fileName)) matches.push(entry);
    }
    if (matches.length !== 1) {
      const found =
        matches.length === 0
          ? `no member matches ${member}`
          : `${matches.length} members match ${member} (${matches.map((e) => e.fileName).join(', ')})`;
      throw new BuildError(
        `${where}: in ${path.basename(zipFile)}, ${found}; its members: ${names.slice(0, 20).join(', ')}${names.length > 20 ? ', ...' : ''}. The archive's layout changed: update unpack.zip_member in the source list to match the data file.`,
      );
    }
    const entry = matches[0];
    const name = path.basename(entry.fileName);
    if (entry.compressionMethod === 8) {
      const out = path.join(outDir, `${name}.gz`);
      const raw = await zip.openReadStreamPromise(entry, { decodeFileData: false });
      const trailer = Buffer.alloc(8);
      trailer.writeUInt32LE(entry.crc32 >>> 0, 0);
      // ISIZE is the uncompressed size modulo 2^32 (RFC 1952), so a 10 GB member fits.
      trailer.writeUInt32LE(entry.uncompressedSize % 2 ** 32, 4);
      await writeAtomically(out, wrap(raw, GZIP_HEADER, trailer, entry.compressedSize, where));
      return { file: out, member: entry.fileName };
    }
    if (entry.compressionMethod === 0) {
      const out = path.join(outDir, name);
      await writeAtomically(
        out,
        wrap(await zip.openReadStreamPromise(entry), Buffer.alloc(0), Buffer.alloc(0), entry.uncompressedSize, where),
      );
      return { file: out, member: entry.fileName };
    }
    throw new BuildError(
      `${where}: ${entry.fileName} in ${path.basename(zipFile)} uses zip compression method ${entry.compressionMethod}${entry.compressionMethod === 9 ? ' (Deflate64)' : ''}, which Node cannot inflate. ` +
        `Unpack it yourself (\`unzip -p ${zipFile} '${entry.fileName}' | gzip -1 > ${path.join(outDir, `${name}.gz`)}\`), or ask the publisher for a standard zip.`,
    );
  } finally {
    zip.close();
  }
}

async function* wrap(stream: Readable, head: Buffer, tail: Buffer, expectedBytes: number, where: string): AsyncGenerator<Buffer> {
  yield head;
  let bytes = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    bytes += chunk.length;
    yield chunk;
  }
  if (bytes !== expectedBytes)
    throw new BuildError(
      `${where}: the zip member held ${bytes} bytes, its directory says ${expectedBytes}: the archive is damaged. Delete it and run hcas fetch again.`,
    );
  yield tail;
}

async function writeAtomically(out: string, chunks: AsyncIterable<Buffer>): Promise<void> {
  const tmp = `${out}.tmp`;
  try {
    await pipeline(chunks, createWriteStream(tmp));
    await rename(tmp, out);
  } catch (error) {
    await rm(tmp, { force: true });
    throw error;
  }
}

/**
 * Writes the array of records at `recordsPath` of a JSON file as CSV (an API answer such as HUD's
 * `{"data": {"results": [...]}}`), the records' keys as the header in first-seen order.
 */
export async function jsonRecordsToCsv(jsonFile: string, recordsPath: string, out: string, where: string): Promise<Unpacked> {
  let document: unknown;
  try {
    document = JSON.parse(await readFile(jsonFile, 'utf8'));
  } catch (error) {
    throw new BuildError(`${where}: ${jsonFile} is not JSON (${(error as Error).message}); the service did not answer with data.`);
  }
  const records = jsonPath(document, recordsPath);
  if (!Array.isArray(records) || records.length === 0 || records.some((r) => typeof r !== 'object' || r === null || Array.isArray(r))) {
    throw new BuildError(
      `${where}: ${jsonFile} has no array of records at "${recordsPath}" (found ${JSON.stringify(records)?.slice(0, 80) ?? 'nothing'}). The service changed its answer: update unpack.json_records in the source list.`,
    );
  }
  const header: string[] = [];
  const seen = new Set<string>();
  for (const record of records) {
    for (const name of Object.keys(record)) {
      if (!seen.has(name)) {
        seen.add(name);
        header.push(name);
      }
    }
  }
  const lines = [header.map(csvField).join(',')];
  for (const record of records as Array<Record<string, unknown>>) lines.push(header.map((name) => csvField(record[name])).join(','));
  const tmp = `${out}.tmp`;
  await writeFile(tmp, `${lines.join('\n')}\n`);
  await rename(tmp, out);
  return { file: out, member: null };
}

function csvField(value: unknown): string {
  const text = value === null || value === undefined ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
