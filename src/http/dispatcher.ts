import { createHash } from 'node:crypto';
import { BoundedMap, keyBytes } from './bounded-map.ts';
import { DEFAULT_CACHE_BYTES, ResponseCache } from './cache.ts';
import { ApiError, notFound } from './errors.ts';
import { entityTag } from './etag.ts';
import { canonicalText, IGNORED_QUERY, readPath, readQuery, type ParamSpecs } from './params.ts';
import { MAX_URL_LENGTH, requestLimitError } from './request-limits.ts';
import { emptyResponse, jsonBytes, jsonResponse, Representation, type ApiResponse, type RequestHeaders } from './response.ts';
import { isStream, type HandlerResult, type Route, type StreamResult } from './route.ts';
import { Router, type RouteMatch } from './router.ts';
import { streamResponse } from './stream.ts';
import { defaultWorkload, type QueryRunner, type Workload } from './work.ts';

/** One request as the dispatcher sees it; `url` is the path and query as sent (`/api/v1/states/?x=1`). */
export interface ApiRequest {
  method: string;
  url: string;
  headers?: RequestHeaders;
  /** Features of the caller's plan (set by authentication); answers may differ by them (white-label widget). */
  features?: ReadonlySet<string>;
  /**
   * Who is asking, for the fair share of the query workers and the export slots: `key:12`, `ip:203.0.113.9`
   * (set by authentication), else the client address.
   */
  caller?: string;
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
  /** The queue of heavy answers and the slots of streamed ones, shared by the builds a process serves. */
  workload?: Workload;
  /** Where the answers of routes that are not `inline` are made (query workers); absent: here. */
  queryRunner?: QueryRunner;
}

/** What `routeOf` found for a request target: its route, and its cached answer when it has one. */
export interface Routed {
  target: string;
  route: Route | undefined;
  /** The response cache's entry of the target as sent (`respond` answers from it without looking again). */
  cached?: Representation;
}

/** A request as parsed: its parameters, and its canonical form (one spelling per value) for the cache and links. */
interface ParsedRequest {
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  url: { path: string; search: URLSearchParams };
  /** The canonical path and query: the response cache's key, the ETag's input. */
  key: string;
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
  /** Route of each path the gate asked about; bounded by bytes, since clients invent paths. */
  private readonly routeOfPath = new BoundedMap<Route | null>(ROUTE_MEMO_BYTES, (path) => keyBytes(path) + 16);
  /** The canonical text of each parameter's default, per route (computed once: it may depend on the build). */
  private readonly defaults = new Map<Route, Record<string, string | undefined>>();
  /** Heavy answers being made, by canonical key: a second request for one waits for the first. */
  private readonly making = new Map<string, Promise<HandlerResult | StreamResult>>();
  private readonly reportError: (error: unknown, request: ApiRequest) => void;
  private readonly now: () => Date;
  private readonly status: (() => Record<string, unknown>) | undefined;
  private readonly close: () => void;
  private readonly workload: Workload;
  private readonly queryRunner: QueryRunner | undefined;
  private inflight = 0;
  private retired = false;
  private closed = false;
  /** Read requests answered from the response cache, and those that were not (for the metrics). */
  private hits = 0;
  private misses = 0;

  constructor(options: DispatcherOptions<D>) {
    this.data = options.data;
    this.dataTag = options.dataTag;
    this.router = new Router(options.routes);
    this.cache = new ResponseCache(options.cacheBytes ?? DEFAULT_CACHE_BYTES);
    this.reportError = options.reportError ?? ((error) => console.error(error));
    this.now = options.now ?? (() => new Date());
    this.status = options.status;
    this.close = options.close ?? (() => {});
    this.workload = options.workload ?? defaultWorkload();
    this.queryRunner = options.queryRunner;
  }

  /** The full response to a request; `routed` is what `routeOf` found for its target, when the caller asked (the gate). */
  respond(request: ApiRequest, routed?: Routed): ApiResponse | Promise<ApiResponse> {
    const { method } = request;
    // Absolute-form targets (`GET http://host/api/v1/...`, RFC 9112 3.2.2) name the same resource.
    const url = request.url.charCodeAt(0) === 0x2f ? request.url : originForm(request.url);
    const headers = request.headers ?? {};
    const features = request.features ?? NO_FEATURES;
    const read = method === 'GET' || method === 'HEAD';
    // The gate's routeOf has looked this very target up: its entry is reused, not looked up twice (still
    // fresh: a count may have been waited for since).
    const looked = routed?.target === request.url ? this.fresh(routed.cached) : undefined;
    if (read) {
      // The request as sent, when it (or a request of the same canonical form) was answered before. Only
      // routes whose answer depends on plan features (byFeatures) have entries per feature set: a caller
      // with features looks there when the URL alone has none, or one made for callers without them.
      let cached = looked ?? this.fresh(this.cache.get(url));
      if (features.size > 0 && (cached === undefined || cached.byFeatures))
        cached = this.fresh(this.cache.get(`${url}\n${featureKey(features)}`));
      if (cached) {
        this.hits++;
        return cached.respond(method, headers);
      }
      this.misses++;
    }
    // After the cache: a cached URL has passed these checks already. Nothing is cached for a request that fails them.
    const tooBig = requestLimitError(url);
    if (tooBig) return this.fail(method, request, tooBig);
    const queryAt = url.indexOf('?');
    const path = queryAt < 0 ? url : url.slice(0, queryAt);
    const search = queryAt < 0 ? '' : url.slice(queryAt);
    let match = this.router.match(path);
    if (!match) {
      const slashed = path.endsWith('/') ? undefined : this.router.match(`${path}/`);
      if (!slashed)
        return this.fail(
          method,
          request,
          notFound(`No endpoint at ${shorten(path)}; every path starts with /api/v1/ and ends with /, and /api/v1/ lists them`),
        );
      if (read) return redirect(method, `${path}/${search}`);
      match = slashed;
    }
    if (method === 'OPTIONS') return emptyResponse(204, PREFLIGHT_HEADERS);
    if (!read) {
      const message = `${shorten(method)} is not allowed: the API is read-only and answers ${ALLOWED_METHODS}`;
      return this.fail(method, request, new ApiError('method_not_allowed', message, { Allow: ALLOWED_METHODS }));
    }
    return this.answer(request, match, url, path, search);
  }

  /**
   * A read the cache did not hold, routed to `match`: its parameters parsed (a 400 for a bad one), then the
   * answer of another spelling of it made before, or its route's handler's (in a query worker, the work
   * queue for a heavy route, or here), cached by `succeed`.
   */
  private answer(request: ApiRequest, match: RouteMatch, url: string, path: string, search: string): ApiResponse | Promise<ApiResponse> {
    const { method } = request;
    const headers = request.headers ?? {};
    const features = request.features ?? NO_FEATURES;
    try {
      const parsed = this.parse(match, path, search);
      const { byFeatures } = match.route;
      const asked = byFeatures ? features : NO_FEATURES;
      const spelled = asked.size === 0 ? url : `${url}\n${featureKey(asked)}`;
      const key = asked.size === 0 ? parsed.key : `${parsed.key}\n${featureKey(asked)}`;
      // Another spelling of a request answered before: the same answer, and this spelling remembered for it.
      const cached = key === spelled ? undefined : this.fresh(this.cache.get(key));
      if (cached) {
        this.misses--;
        this.hits++;
        this.cache.alias(spelled, key);
        return cached.respond(method, headers);
      }
      const caller = request.caller ?? '';
      const result = match.route.heavy
        ? this.heavy(match.route, key, parsed, asked, caller)
        : this.handle(match.route, parsed, asked, caller);
      if (!(result instanceof Promise)) return this.succeed(method, key, spelled, headers, result, caller, match.route);
      this.inflight++;
      const { route } = match;
      const heavy = route.heavy === true;
      return result
        .then((settled) => {
          // A heavy answer another request made meanwhile is in the cache now: answer from it.
          const made = heavy ? this.fresh(this.cache.get(key)) : undefined;
          if (!made) return this.succeed(method, key, spelled, headers, settled, caller, route);
          this.cache.alias(spelled, key);
          return made.respond(method, headers);
        })
        .catch((error: unknown) => this.fail(method, request, error))
        .finally(() => this.release());
    } catch (error) {
      return this.fail(method, request, error);
    }
  }

  /**
   * The route a request target names (absolute form and query string allowed), without answering it: the
   * gate decides plan access by it. Remembered per path, within a memory budget; a path longer than any
   * request target the API answers is routed but not remembered. A target answered before is routed by its
   * cache entry, which comes back with the route for `respond` to answer from.
   */
  routeOf(target: string): Routed {
    const url = target.charCodeAt(0) === 0x2f ? target : originForm(target);
    const cached = this.fresh(this.cache.get(url));
    if (cached?.route !== undefined) return { target, route: cached.route, cached };
    const queryAt = url.indexOf('?');
    const path = queryAt < 0 ? url : url.slice(0, queryAt);
    if (path.length > MAX_URL_LENGTH) return { target, route: this.router.match(path)?.route };
    let route = this.routeOfPath.get(path);
    if (route === undefined) {
      route = this.router.match(path)?.route ?? null;
      this.routeOfPath.set(path, route);
    }
    return { target, route: route ?? undefined };
  }

  /** Read requests answered from the response cache and those that were not, and what the cache holds (for the metrics). */
  cacheStats(): { hits: number; misses: number; entries: number; bytes: number } {
    return { hits: this.hits, misses: this.misses, ...this.cache.size };
  }

  /** Releases the data now, or once the asynchronous requests under way have finished. */
  retire(): void {
    this.retired = true;
    if (this.inflight === 0 && !this.closed) {
      this.closed = true;
      this.queryRunner?.release();
      this.close();
    }
  }

  /** A cached answer that is still valid (answers that depend on the clock expire). */
  private fresh(cached: Representation | undefined): Representation | undefined {
    return cached && (cached.expiresAt === undefined || this.now().getTime() < cached.expiresAt) ? cached : undefined;
  }

  /**
   * Reads the path and query parameters (a 400 for a bad one) and writes the request in its canonical form:
   * the route's path with each path parameter in its one spelling, then each query parameter that is set
   * and differs from its default, in the route's order. Every spelling of one request has one form.
   */
  private parse(match: RouteMatch, path: string, search: string): ParsedRequest {
    const { route } = match;
    const params = readPath(route.pathParams, match.params, this.data) as Record<string, unknown>;
    const query = readQuery(route.query, new URLSearchParams(search), this.data, path) as Record<string, unknown>;
    const canonicalPath = route.path.replace(/:(\w+)/g, (_, name: string) =>
      encodeURIComponent(canonicalText(route.pathParams[name], params[name], this.data)),
    );
    const canonicalSearch = new URLSearchParams();
    if (route.query !== IGNORED_QUERY) {
      const defaults = this.defaultsOf(route);
      for (const [name, spec] of Object.entries(route.query as ParamSpecs)) {
        const value = query[name];
        if (value === undefined) continue;
        const text = canonicalText(spec, value, this.data);
        if (text !== defaults[name]) canonicalSearch.append(name, text);
      }
    }
    const text = canonicalSearch.toString();
    return {
      params,
      query,
      url: { path: canonicalPath, search: canonicalSearch },
      key: text === '' ? canonicalPath : `${canonicalPath}?${text}`,
    };
  }

  private defaultsOf(route: Route): Record<string, string | undefined> {
    let defaults = this.defaults.get(route);
    if (defaults === undefined) {
      defaults = {};
      for (const [name, spec] of Object.entries(route.query as ParamSpecs)) {
        try {
          const value = spec.read(name, undefined, this.data);
          defaults[name] = value === undefined ? undefined : canonicalText(spec, value, this.data);
        } catch {
          defaults[name] = undefined; // a required parameter has no default
        }
      }
      this.defaults.set(route, defaults);
    }
    return defaults;
  }

  private handle(
    route: Route,
    parsed: ParsedRequest,
    features: ReadonlySet<string>,
    caller: string,
  ): HandlerResult | StreamResult | Promise<HandlerResult | StreamResult> {
    if (this.queryRunner !== undefined && route.inline !== true && route.streamed !== true) {
      const job = {
        route: route.path,
        params: parsed.params,
        query: parsed.query,
        url: { path: parsed.url.path, search: parsed.url.search.toString() },
        nowMs: this.now().getTime(),
        features: [...features],
      };
      const made = this.queryRunner.run(job, caller);
      if (made !== undefined) return made;
    }
    return route.handle({
      params: parsed.params,
      query: parsed.query,
      queries: this.data,
      url: parsed.url,
      now: this.now,
      features,
      status: this.status,
    });
  }

  /** A heavy answer: made through the process's work queue, once for every request waiting for the same key. */
  private heavy(
    route: Route,
    key: string,
    parsed: ParsedRequest,
    features: ReadonlySet<string>,
    caller: string,
  ): Promise<HandlerResult | StreamResult> {
    let made = this.making.get(key);
    if (made === undefined) {
      made = this.workload.heavy.run(() => this.handle(route, parsed, features, caller), caller);
      this.making.set(key, made);
      const done = () => this.making.delete(key);
      made.then(done, done);
    }
    return made;
  }

  /**
   * A 200 is cached under its canonical key (the build never changes), with the spelling it was asked in as
   * an alias, until its `validUntil` when it has one; a streamed 200 is sent as it is made; anything else a
   * handler returns is sent as is.
   */
  private succeed(
    method: string,
    key: string,
    spelled: string,
    headers: RequestHeaders,
    result: HandlerResult | StreamResult,
    caller: string,
    route: Route,
  ): ApiResponse | Promise<ApiResponse> {
    if (isStream(result)) return this.stream(method, key, headers, result, caller);
    if (result.status !== 200) return jsonResponse(method, result.status, result.body, result.headers);
    const body = Buffer.isBuffer(result.body) ? result.body : jsonBytes(result.body);
    // A clock-dependent body changes within a build: its tag must change with it.
    const tagged = result.validUntil === undefined ? key : `${key}\n${createHash('sha256').update(body).digest('base64url')}`;
    const etag = result.etag ?? entityTag(this.dataTag, tagged);
    const representation = new Representation(body, etag, result.headers, result.validUntil);
    representation.byFeatures = route.byFeatures === true;
    representation.route = route;
    this.cache.set(key, representation);
    this.cache.alias(spelled, key);
    return representation.respond(method, headers);
  }

  /**
   * A streamed answer, in one of the process's stream slots (a 503 when none is free); the database stays
   * open (as for a request in flight) until the stream closes.
   */
  private stream(method: string, key: string, headers: RequestHeaders, result: StreamResult, caller: string): ApiResponse {
    const response = streamResponse(method, entityTag(this.dataTag, key), headers, result);
    if (response.stream) {
      let release: () => void;
      try {
        release = this.workload.streams.take(caller);
      } catch (error) {
        response.stream.destroy();
        throw error;
      }
      this.inflight++;
      response.stream.once('close', () => {
        release();
        this.release();
      });
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
/** Memory budget of the route memo: about 4,000 paths of 100 characters. */
const ROUTE_MEMO_BYTES = 1024 * 1024;
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
