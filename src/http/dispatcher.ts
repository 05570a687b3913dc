import { createHash } from 'node:crypto';
import { DEFAULT_CACHE_BYTES, ResponseCache } from './cache.ts';
import { ApiError, notFound } from './errors.ts';
import { entityTag } from './etag.ts';
import { readPath, readQuery } from './params.ts';
import { requestLimitError } from './request-limits.ts';
import { emptyResponse, jsonBytes, jsonResponse, Representation, type ApiResponse, type RequestHeaders } from './response.ts';
import { isStream, type HandlerResult, type Route, type StreamResult } from './route.ts';
import { Router, type RouteMatch } from './router.ts';
import { streamResponse } from './stream.ts';

/** One request as the dispatcher sees it; `url` is the path and query as sent (`/api/v1/states/?x=1`). */
export interface ApiRequest {
  method: string;
  url: string;
  headers?: RequestHeaders;
  /** Features of the caller's plan (set by authentication); answers may differ by them (white-label widget). */
  features?: ReadonlySet<string>;
}

export interface DispatcherOptions<D> {
  routes: readonly Route[];
  /** The data of one build that handlers read (the API's `Queries`); it never changes under a dispatcher. */
  data: D;
  /** Identifies the data: the prefix of every ETag (the build id). */
  dataTag: string;
  /** Releases the data (closes the database), once the dispatcher is retired and its requests are done. */
  close?: () => void;
  cacheBytes?: number;
  /** Told about every unexpected error (the client only sees a 500 without details). */
  reportError?: (error: unknown, request: ApiRequest) => void;
  /** The clock of time-dependent answers (blog publication); tests inject a fixed time. */
  now?: () => Date;
  /** Live state of the server that `meta/` reports (rate-limit backend and health); absent for `hcas get`. */
  status?: () => Record<string, unknown>;
}

export const ALLOWED_METHODS = 'GET, HEAD, OPTIONS';
const PREFLIGHT_HEADERS = {
  Allow: ALLOWED_METHODS,
  'Access-Control-Allow-Methods': ALLOWED_METHODS,
  'Access-Control-Allow-Headers': 'Authorization, X-API-Key, If-None-Match',
  'Access-Control-Max-Age': '86400',
};

/**
 * Answers requests from a route table over one build's data: routing, the HTTP conventions (trailing-slash
 * redirect, 405, OPTIONS, ETag/304, compression, streaming) and the handlers. The server writes what
 * `respond` returns; `hcas get` prints its body. Responses are sync except the first compression of a body
 * and asynchronous handlers.
 */
export class Dispatcher<D = unknown> {
  private readonly data: D;
  private readonly dataTag: string;
  private readonly router: Router;
  private readonly cache: ResponseCache;
  private readonly routeOfPath = new Map<string, Route | null>();
  private readonly reportError: (error: unknown, request: ApiRequest) => void;
  private readonly now: () => Date;
  private readonly status: (() => Record<string, unknown>) | undefined;
  private readonly close: () => void;
  private inflight = 0;
  private retired = false;
  private closed = false;

  constructor(options: DispatcherOptions<D>) {
    this.data = options.data;
    this.dataTag = options.dataTag;
    this.router = new Router(options.routes);
    this.cache = new ResponseCache(options.cacheBytes ?? DEFAULT_CACHE_BYTES);
    this.reportError = options.reportError ?? ((error) => console.error(error));
    this.now = options.now ?? (() => new Date());
    this.status = options.status;
    this.close = options.close ?? (() => {});
  }

  /** The full response to a request. */
  respond(request: ApiRequest): ApiResponse | Promise<ApiResponse> {
    const { method } = request;
    // Absolute-form targets (`GET http://host/api/v1/...`, RFC 9112 3.2.2) name the same resource.
    const url = request.url.charCodeAt(0) === 0x2f ? request.url : originForm(request.url);
    const headers = request.headers ?? {};
    const features = request.features ?? NO_FEATURES;
    const read = method === 'GET' || method === 'HEAD';
    // Callers with plan features may get other bodies (white-label widget), so they get their own entries.
    const key = features.size === 0 ? url : `${url}\n${featureKey(features)}`;
    if (read) {
      const cached = this.cache.get(key);
      if (cached && (cached.expiresAt === undefined || this.now().getTime() < cached.expiresAt)) return cached.respond(method, headers);
    }
    // After the cache: a cached URL has passed these checks already.
    const tooBig = requestLimitError(url);
    if (tooBig) return this.fail(method, request, tooBig);
    const queryAt = url.indexOf('?');
    const path = queryAt < 0 ? url : url.slice(0, queryAt);
    const search = queryAt < 0 ? '' : url.slice(queryAt);
    let match = this.router.match(path);
    if (!match) {
      const slashed = path.endsWith('/') ? undefined : this.router.match(`${path}/`);
      if (!slashed) return this.fail(method, request, notFound(`No endpoint at ${shorten(path)}; every path starts with /api/v1/ and ends with /`));
      if (read) return redirect(method, `${path}/${search}`);
      match = slashed;
    }
    if (method === 'OPTIONS') return emptyResponse(204, PREFLIGHT_HEADERS);
    if (!read) {
      const message = `${shorten(method)} is not allowed: the API is read-only and answers ${ALLOWED_METHODS}`;
      return this.fail(method, request, new ApiError('method_not_allowed', message, { Allow: ALLOWED_METHODS }));
    }
    try {
      const result = this.handle(match, path, search, features);
      if (!(result instanceof Promise)) return this.succeed(method, key, headers, result);
      this.inflight++;
      return result
        .then((settled) => this.succeed(method, key, headers, settled), (error: unknown) => this.fail(method, request, error))
        .finally(() => this.release());
    } catch (error) {
      return this.fail(method, request, error);
    }
  }

  /**
   * The route a request target names (absolute form and query string allowed), without answering it: the
   * gate decides plan access by it. Remembered per path (bounded: clients can invent any number of paths).
   */
  routeOf(target: string): Route | undefined {
    const url = target.charCodeAt(0) === 0x2f ? target : originForm(target);
    const queryAt = url.indexOf('?');
    const path = queryAt < 0 ? url : url.slice(0, queryAt);
    let route = this.routeOfPath.get(path);
    if (route === undefined) {
      route = this.router.match(path)?.route ?? null;
      if (this.routeOfPath.size >= MAX_REMEMBERED_PATHS) this.routeOfPath.clear();
      this.routeOfPath.set(path, route);
    }
    return route ?? undefined;
  }

  /** The response cache's hits and misses so far, and what it holds (for the server's metrics). */
  cacheStats(): { hits: number; misses: number; entries: number; bytes: number } {
    return { hits: this.cache.hits, misses: this.cache.misses, ...this.cache.size };
  }

  /** Releases the data now, or once the asynchronous requests under way have finished. */
  retire(): void {
    this.retired = true;
    if (this.inflight === 0 && !this.closed) {
      this.closed = true;
      this.close();
    }
  }

  private handle(match: RouteMatch, path: string, search: string, features: ReadonlySet<string>): HandlerResult | StreamResult | Promise<HandlerResult | StreamResult> {
    const { route } = match;
    const searchParams = new URLSearchParams(search);
    const params = readPath(route.pathParams, match.params, this.data);
    const query = readQuery(route.query, searchParams, this.data, path);
    return route.handle({ params, query, queries: this.data, url: { path, search: searchParams }, now: this.now, features, status: this.status });
  }

  /**
   * A 200 is cached under its key (URL and plan features; the build never changes), until its `validUntil`
   * when it has one; a streamed 200 is sent as it is made; anything else a handler returns is sent as is.
   */
  private succeed(method: string, key: string, headers: RequestHeaders, result: HandlerResult | StreamResult): ApiResponse | Promise<ApiResponse> {
    if (isStream(result)) return this.stream(method, key, headers, result);
    if (result.status !== 200) return jsonResponse(method, result.status, result.body, result.headers);
    const body = Buffer.isBuffer(result.body) ? result.body : jsonBytes(result.body);
    // A clock-dependent body changes within a build: its tag must change with it.
    const tagged = result.validUntil === undefined ? key : `${key}\n${createHash('sha256').update(body).digest('base64url')}`;
    const etag = result.etag ?? entityTag(this.dataTag, tagged);
    const representation = new Representation(body, etag, result.headers, result.validUntil);
    this.cache.set(key, representation);
    return representation.respond(method, headers);
  }

  /** A streamed answer; the database stays open (as for a request in flight) until the stream closes. */
  private stream(method: string, key: string, headers: RequestHeaders, result: StreamResult): ApiResponse {
    const response = streamResponse(method, entityTag(this.dataTag, key), headers, result);
    if (response.stream) {
      this.inflight++;
      response.stream.once('close', () => this.release());
    }
    return response;
  }

  private fail(method: string, request: ApiRequest, error: unknown): ApiResponse {
    if (error instanceof ApiError) return jsonResponse(method, error.status, error.toBody(), error.headers);
    this.reportError(error, request);
    return internalError(method);
  }

  private release(): void {
    this.inflight--;
    if (this.retired) this.retire();
  }
}

const NO_FEATURES: ReadonlySet<string> = new Set();
const MAX_REMEMBERED_PATHS = 10_000;
const featureKeys = new WeakMap<ReadonlySet<string>, string>();

/** A plan's features as one cache-key suffix, computed once per set (authentication reuses a set per plan). */
function featureKey(features: ReadonlySet<string>): string {
  let text = featureKeys.get(features);
  if (text === undefined) {
    text = [...features].sort().join(',');
    featureKeys.set(features, text);
  }
  return text;
}

/** The 500 response: no stack trace or SQL, which go to the log instead. */
export function internalError(method: string): ApiResponse {
  const error = new ApiError('internal_error', 'The server could not answer this request; the error has been logged');
  return jsonResponse(method, error.status, error.toBody());
}

/** A 301 to the path with its trailing slash; the query string is kept. */
function redirect(method: string, location: string): ApiResponse {
  const body = { message: `This endpoint's path ends with a slash: ${shorten(location)}`, location, status: 301 };
  return jsonResponse(method, 301, body, { Location: location });
}

/** The path and query of an absolute-form target (`http://host/api/v1/...`, RFC 9112 3.2.2). */
function originForm(target: string): string {
  const match = /^https?:\/\/[^/?#]*(.*)$/i.exec(target);
  return match ? match[1] || '/' : target;
}

/** Echoed request text is cut short, so a huge path cannot make a huge error body. */
function shorten(text: string): string {
  return text.length > 100 ? `${text.slice(0, 100)}...` : text;
}
