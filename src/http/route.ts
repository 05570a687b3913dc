import type { Queries } from '../query/index.ts';
import type { ParamSpecs, ParamValues } from './params.ts';

/** What a handler sees: validated path and query values, the build's queries, and the request URL for links. */
export interface HandlerContext<P = Record<string, unknown>, Q = Record<string, unknown>> {
  params: P;
  query: Q;
  queries: Queries;
  url: { path: string; search: URLSearchParams };
}

/** What a handler returns; the dispatcher serialises `body` as JSON. Errors are thrown as `ApiError`. */
export interface HandlerResult {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** One endpoint of the route table. `path` uses `:name` for path parameters and ends in `/`. */
export interface Route<P extends ParamSpecs = ParamSpecs, Q extends ParamSpecs = ParamSpecs> {
  path: string;
  /** One line for docs and `--help`. */
  summary: string;
  pathParams: P;
  query: Q;
  handle(context: HandlerContext<ParamValues<P>, ParamValues<Q>>): HandlerResult | Promise<HandlerResult>;
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
