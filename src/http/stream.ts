import { pipeline, Readable } from 'node:stream';
import { matchesIfNoneMatch, variantTag } from './etag.ts';
import { COMMON_HEADERS, emptyResponse, type ApiResponse, type RequestHeaders } from './response.ts';
import type { StreamResult } from './route.ts';

/** Bytes buffered ahead of a slow client before the body's producer is paused. */
export const STREAM_HIGH_WATER_BYTES = 256 * 1024;
/** gzip level for streamed bodies: level 4 keeps most of the size gain of 6 at well under its CPU cost. */
const STREAM_GZIP_LEVEL = 4;

/**
 * The answer of a streamed result (bulk exports): 304 on a matching `If-None-Match` (an export is fixed by
 * its build and URL), headers only for HEAD, else a stream that produces the body as the client reads it,
 * gzip-coded when the client accepts gzip. No Content-Length: the body is sent chunked.
 */
export function streamResponse(method: string, etag: string, requestHeaders: RequestHeaders, result: StreamResult): ApiResponse {
  const acceptEncoding = requestHeaders['accept-encoding'];
  // Only gzip: a streaming brotli coder at a useful quality costs several times the CPU for a little less size.
  const gzip = acceptsGzip(acceptEncoding);
  const tag = gzip ? variantTag(etag, 'gzip') : etag;
  const coding: Record<string, string> = gzip ? { 'Content-Encoding': 'gzip' } : {};
  const headers = { ...COMMON_HEADERS, ...result.headers, ETag: tag, Vary: 'Accept-Encoding', ...coding };
  const ifNoneMatch = requestHeaders['if-none-match'];
  if (typeof ifNoneMatch === 'string' && matchesIfNoneMatch(ifNoneMatch, etag))
    return emptyResponse(304, { ETag: tag, Vary: 'Accept-Encoding' });
  if (method === 'HEAD') return { status: 200, headers, body: Buffer.alloc(0) };
  const source = Readable.from(result.chunks(), { objectMode: false, highWaterMark: STREAM_HIGH_WATER_BYTES });
  if (!gzip) return { status: 200, headers, body: Buffer.alloc(0), stream: source };
  // Errors are reported by whoever consumes the returned stream: pipeline passes them on to it.
  // node:zlib is loaded here, not at startup (src/http/compress.ts says why).
  const stream = pipeline(source, process.getBuiltinModule('node:zlib').createGzip({ level: STREAM_GZIP_LEVEL }), () => {});
  return { status: 200, headers, body: Buffer.alloc(0), stream };
}

/** True when `Accept-Encoding` allows gzip (by name or `*`) with a q-value above 0. */
function acceptsGzip(header: string | string[] | undefined): boolean {
  if (header === undefined) return false;
  let any = 0;
  for (const part of (Array.isArray(header) ? header.join(',') : header).split(',')) {
    const [name, ...rest] = part.trim().toLowerCase().split(';');
    const q = rest.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const quality = q === undefined ? 1 : Number(q.slice(2)) || 0;
    if (name.trim() === 'gzip' || name.trim() === 'x-gzip') return quality > 0;
    if (name.trim() === '*') any = quality;
  }
  return any > 0;
}
