import type { Readable } from 'node:stream';
import { compress, COMPRESS_MIN_BYTES, negotiate, type Coding } from './compress.ts';
import { matchesIfNoneMatch, variantTag } from './etag.ts';
import type { Route } from './route.ts';

/** A complete response: what the server writes and what `hcas get` prints (`body`). */
export interface ApiResponse {
  status: number;
  headers: Readonly<Record<string, string | number>>;
  body: Buffer;
  /**
   * `body` as latin1 text (one character a byte), kept with the small cached answers: Node writes a string body
   * and the headers as one string in one write, where a Buffer body costs a gathered write (`writev`) of two,
   * and the kernel's socket work is most of a request's CPU. The same bytes either way. Kept because the
   * paired measurement of both forms (bare servers, and hcas, each pair loaded at once) put the Buffer form
   * above 2% of a request's CPU; see bench/request-path.ts.
   */
  text?: string;
  /**
   * A streamed body (bulk exports), sent instead of `body`. Whoever receives the response must pipe it or
   * destroy it: the build's database stays open until it closes.
   */
  stream?: Readable;
}

/** Request headers the dispatcher reads (a Node `IncomingHttpHeaders` fits). */
export type RequestHeaders = Readonly<Record<string, string | string[] | undefined>>;

export const JSON_TYPE = 'application/json; charset=utf-8';
const EMPTY = Buffer.alloc(0);
/** Bodies up to this size are kept as text too (`ApiResponse.text`); larger ones are written from their Buffer, uncopied. */
export const TEXT_BODY_MAX_BYTES = 8 * 1024;
const NO_HEADERS: Record<string, string> = Object.freeze({}) as Record<string, string>;
const VARY_ENCODING: Record<string, string> = Object.freeze({ Vary: 'Accept-Encoding' });

/** Headers on every JSON response. `no-cache` lets clients keep a copy but revalidate it with the ETag. */
export const COMMON_HEADERS = {
  'Cache-Control': 'no-cache',
  'X-Content-Type-Options': 'nosniff',
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': 'ETag',
} as const;

/** Serialises a body: compact JSON plus a newline, so terminals and `curl` print it tidily. */
export function jsonBytes(value: unknown): Buffer {
  return Buffer.from(`${JSON.stringify(value)}\n`);
}

/** An uncached JSON response (errors, redirects); a HEAD request gets the same headers and no body. */
export function jsonResponse(method: string, status: number, value: unknown, headers: Record<string, string> = {}): ApiResponse {
  const body = jsonBytes(value);
  return {
    status,
    headers: { 'Content-Type': JSON_TYPE, 'Content-Length': body.length, ...COMMON_HEADERS, ...headers },
    body: method === 'HEAD' ? EMPTY : body,
  };
}

/** A response without a body (204, 304). */
export function emptyResponse(status: number, headers: Record<string, string>): ApiResponse {
  return { status, headers: { ...COMMON_HEADERS, ...headers }, body: EMPTY };
}

/**
 * A 200 response of one URL in one build, kept in the response cache. Its GET, HEAD and 304 answers and each
 * compressed variant are built once, so a cache hit allocates nothing.
 */
export class Representation {
  readonly compressible: boolean;
  private readonly get: ApiResponse;
  private readonly head: ApiResponse;
  /** 304 answers by coding (`identity` for none), built on first use: each carries its variant's tag. */
  private notModified: Map<Coding | 'identity', ApiResponse> | undefined;
  /** Compressed variants, made on first request (most cached answers are never asked for compressed). */
  private variants: Map<Coding, { get: ApiResponse; head: ApiResponse } | Promise<{ get: ApiResponse; head: ApiResponse }>> | undefined;
  /** The Vary header of every answer: content coding and whatever the route's own headers name. */
  private readonly vary: Record<string, string>;
  /** Bytes of the bodies held, for the cache's budget; grows as variants are added. */
  bytes: number;
  /** Told how many bytes a new variant added (set by the cache). */
  onGrow: (bytes: number) => void = () => {};

  readonly etag: string;
  /** Answered per plan feature set (the route's `byFeatures`): a lookup by the URL alone must look again with the features. */
  byFeatures = false;
  /** The route that answered it: the gate's routing of a cached URL is a cache lookup. */
  route: Route | undefined;
  private readonly extraHeaders: Record<string, string>;
  readonly expiresAt?: number;

  /**
   * `headers` are a route's own (e.g. the widget's `Cache-Control`); they override the common ones and are sent
   * with 304s too. `expiresAt` (epoch ms) ends the entry's life in the cache (answers that depend on the clock).
   */
  constructor(content: Buffer, etag: string, extraHeaders: Record<string, string> = NO_HEADERS, expiresAt?: number) {
    const body = ownMemory(content);
    this.etag = etag;
    this.extraHeaders = extraHeaders;
    this.expiresAt = expiresAt;
    this.compressible = body.length >= COMPRESS_MIN_BYTES;
    const varyOn = [this.compressible ? 'Accept-Encoding' : '', extraHeaders.Vary ?? ''].filter(Boolean).join(', ');
    this.vary = varyOn === '' ? NO_HEADERS : varyOn === VARY_ENCODING.Vary ? VARY_ENCODING : { Vary: varyOn };
    const headers = {
      'Content-Type': JSON_TYPE,
      'Content-Length': body.length,
      ETag: etag,
      ...COMMON_HEADERS,
      ...extraHeaders,
      ...this.vary,
    };
    const text = bodyText(body);
    this.get = { status: 200, headers, body, text };
    this.head = { status: 200, headers, body: EMPTY };
    this.bytes = body.length + textBytes(text);
  }

  /** The answer to one request: 304 on a matching `If-None-Match`, else the best coding the client accepts. */
  respond(method: string, headers: RequestHeaders): ApiResponse | Promise<ApiResponse> {
    const coding = this.compressible ? negotiate(headerText(headers['accept-encoding'])) : undefined;
    const ifNoneMatch = headers['if-none-match'];
    if (typeof ifNoneMatch === 'string' && matchesIfNoneMatch(ifNoneMatch, this.etag)) return this.notModifiedAs(coding ?? 'identity');
    if (!coding) return method === 'HEAD' ? this.head : this.get;
    const variant = this.variant(coding);
    if (variant instanceof Promise) return variant.then((v) => (method === 'HEAD' ? v.head : v.get));
    return method === 'HEAD' ? variant.head : variant.get;
  }

  private notModifiedAs(coding: Coding | 'identity'): ApiResponse {
    this.notModified ??= new Map();
    let response = this.notModified.get(coding);
    if (!response) {
      response = emptyResponse(304, {
        ...this.extraHeaders,
        ETag: coding === 'identity' ? this.etag : variantTag(this.etag, coding),
        ...this.vary,
      });
      this.notModified.set(coding, response);
    }
    return response;
  }

  private variant(coding: Coding) {
    this.variants ??= new Map();
    const variants = this.variants;
    let variant = variants.get(coding);
    if (!variant) {
      const pending = compress(this.get.body, coding).then((body) => {
        const headers = {
          ...this.get.headers,
          'Content-Length': body.length,
          'Content-Encoding': coding,
          ETag: variantTag(this.etag, coding),
        };
        const text = bodyText(body);
        const built = { get: { status: 200, headers, body, text }, head: { status: 200, headers, body: EMPTY } };
        variants.set(coding, built);
        const bytes = body.length + textBytes(text);
        this.bytes += bytes;
        this.onGrow(bytes);
        return built;
      });
      // A failed compression is retried by the next request instead of being cached.
      pending.catch(() => variants.delete(coding));
      variants.set(coding, pending);
      variant = pending;
    }
    return variant;
  }
}

/**
 * A body in memory of its own. Node makes small buffers (under 4 KiB) as slices of shared 8 KiB slabs, and
 * one cached slice keeps its whole slab alive: a cache of small answers would hold up to 8 KiB each.
 */
function ownMemory(body: Buffer): Buffer {
  if (body.byteOffset === 0 && body.buffer.byteLength === body.length) return body;
  const own = Buffer.allocUnsafeSlow(body.length);
  body.copy(own);
  return own;
}

/** A small body as latin1 text (see `ApiResponse.text`), else undefined. */
function bodyText(body: Buffer): string | undefined {
  return body.length > 0 && body.length <= TEXT_BODY_MAX_BYTES ? body.toString('latin1') : undefined;
}

/** What a body's text holds on the heap: a byte a character and a string's header. */
function textBytes(text: string | undefined): number {
  return text === undefined ? 0 : text.length + 16;
}

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(',') : value;
}
