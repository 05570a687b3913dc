import type { Queries } from '../query/index.ts';
import type { ResponseDoc } from './openapi.ts';
import type { ParamSpecs, ParamValues } from './params.ts';

/** What a handler sees: validated path and query values, the build's queries, and the request URL for links. */
export interface HandlerContext<P = Record<string, unknown>, Q = Record<string, unknown>> {
  params: P;
  query: Q;
  queries: Queries;
  url: { path: string; search: URLSearchParams };
  /** The request time (injectable through `ApiOptions.now`), for answers that depend on it (blog). */
  now: () => Date;
  /** Features of the caller's plan, e.g. `white_label_widget`; empty for anonymous callers. */
  features: ReadonlySet<string>;
  /** Live state of the server for `meta/` (rate limits: backend, ok or degraded); undefined for `hcas get`. */
  status?: () => Record<string, unknown>;
}

/** What a handler returns; the dispatcher serialises `body` as JSON. Errors are thrown as `ApiError`. */
export interface HandlerResult {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  /**
   * For a 200 that depends on the request time: the epoch milliseconds at which it may change. It is cached
   * until then, and its ETag covers the body, so a client's copy goes stale exactly when the answer changes.
   */
  validUntil?: number;
}

/**
 * A 200 whose body is made while it is sent (bulk exports): never cached, never buffered. `chunks` is pulled
 * only as fast as the client reads, so memory stays constant whatever the size of the body.
 */
export interface StreamResult {
  status: 200;
  /** Content-Type and Content-Disposition; the common headers and the ETag are added by the dispatcher. */
  headers: Record<string, string>;
  chunks: () => Iterable<string>;
}

/** True for a streamed result. */
export function isStream(result: HandlerResult | StreamResult): result is StreamResult {
  return 'chunks' in result;
}

/** One endpoint of the route table. `path` uses `:name` for path parameters and ends in `/`. */
export interface Route<P extends ParamSpecs = ParamSpecs, Q extends ParamSpecs = ParamSpecs> {
  path: string;
  /** One line for docs and `--help`. */
  summary: string;
  pathParams: P;
  query: Q;
  /** The 200 answer for `openapi.json`; every route needs one (test/openapi.test.ts). */
  response?: ResponseDoc;
  handle(context: HandlerContext<ParamValues<P>, ParamValues<Q>>): HandlerResult | StreamResult | Promise<HandlerResult | StreamResult>;
}

/** Declares a route with its handler type-checked against its parameter specs. */
export function route<P extends ParamSpecs, Q extends ParamSpecs>(definition: Route<P, Q>): Route {
  return definition as unknown as Route;
}

/** A 200 result. */
export function ok(body: unknown): HandlerResult {
  return { status: 200, body };
}

/** The context type of a handler for the given path and query specs. */
export type Context<P extends ParamSpecs, Q extends ParamSpecs> = HandlerContext<ParamValues<P>, ParamValues<Q>>;

/** The specs of an endpoint without parameters. */
export const NO_PARAMS: Record<never, never> = {};
export type NoParams = typeof NO_PARAMS;
