import { promisify } from 'node:util';
import type { BrotliOptions, ZlibOptions } from 'node:zlib';

/** Bodies smaller than this are sent as they are: compressing them costs more time than it saves bytes. */
export const COMPRESS_MIN_BYTES = 1024;

export type Coding = 'br' | 'gzip';

/**
 * node:zlib, loaded on the first compression rather than at startup: a one-shot command (`hcas score`) never
 * compresses, and loading zlib is a part of its startup worth saving (bench/cli.ts).
 */
const zlib = () => process.getBuiltinModule('node:zlib');
let coders:
  | { brotli(body: Buffer, options: BrotliOptions): Promise<Buffer>; gzip(body: Buffer, options: ZlibOptions): Promise<Buffer> }
  | undefined;

/**
 * The coding to send for an `Accept-Encoding` header: the acceptable one with the highest q-value, brotli
 * on a tie (smaller for JSON); undefined for identity. `*` stands for any coding not named.
 */
export function negotiate(acceptEncoding: string | undefined): Coding | undefined {
  if (!acceptEncoding) return undefined;
  const quality = new Map<string, number>();
  for (const part of acceptEncoding.split(',')) {
    const [name, ...rest] = part.trim().toLowerCase().split(';');
    const q = rest.map((p) => p.trim()).find((p) => p.startsWith('q='));
    quality.set(name.trim(), q === undefined ? 1 : Number(q.slice(2)) || 0);
  }
  const any = quality.get('*') ?? 0;
  const br = quality.get('br') ?? any;
  const gz = quality.get('gzip') ?? quality.get('x-gzip') ?? any;
  if (br <= 0 && gz <= 0) return undefined;
  return br >= gz ? 'br' : 'gzip';
}

/**
 * Compresses a body off the main thread (zlib's thread pool). Brotli quality 5 compresses JSON almost as
 * well as 11 at a small fraction of the time; the result is cached per build, so this runs once per URL.
 */
export function compress(body: Buffer, coding: Coding): Promise<Buffer> {
  coders ??= { brotli: promisify(zlib().brotliCompress), gzip: promisify(zlib().gzip) };
  return coding === 'br' ? coders.brotli(body, brotliOptions(body)) : coders.gzip(body, GZIP_OPTIONS);
}

/**
 * The same bytes as `compress`, made on this thread: for many small bodies in a row (`hcas export-static`),
 * where handing each to zlib's threads costs more than compressing it.
 */
export function compressSync(body: Buffer, coding: Coding): Buffer {
  return coding === 'br' ? zlib().brotliCompressSync(body, brotliOptions(body)) : zlib().gzipSync(body, GZIP_OPTIONS);
}

const GZIP_OPTIONS: ZlibOptions = { level: 6 };

function brotliOptions(body: Buffer): BrotliOptions {
  const { constants } = zlib();
  return {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: 5,
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
    },
  };
}
