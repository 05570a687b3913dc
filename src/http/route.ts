import type { JsonSchema } from './json-schema.ts';
import type { ParamSpecs, ParamValues } from './params.ts';

/**
 * What a handler sees: validated path and query values, the data of the build being served (the API's
 * `Queries`), and the request URL for links.
 */
// biome-ignore lint/suspicious/noExplicitAny: the dispatcher is generic over the build data; each API fixes its type.
export interface HandlerContext<P = Record<string, unknown>, Q = Record<string, unknown>, D = any> {
  params: P;
  query: Q;
  queries: D;
  /** The request in its canonical form (each parameter in its one spelling, in the route's order, defaults left out), for links. */
  url: { path: string; search: URLSearchParams };
  /** The request time (injectable through the dispatcher's `now`), for answers that depend on it (blog). */
  now: () => Date;
  /** Features of the caller's plan, e.g. `white_label_widget`; empty for anonymous callers. */
  features: ReadonlySet<string>;
  /** Live state of the server for `meta/` (rate limits: backend, ok or degraded); undefined for `hcas get`. */
  status?: () => Record<string, unknown>;
}

/** What a handler returns; the dispatcher serialises `body` as JSON. Errors are thrown as `ApiError`. */
export interface HandlerResult {
  status: number;
  /** A value sent as JSON, or the bytes of a static file (with its Content-Type in `headers`). */
  body: unknown;
  headers?: Record<string, string>;
  /**
   * For a 200 that depends on the request time: the epoch milliseconds at which it may change. It is cached
   * until then, and its ETag covers the body, so a client's copy goes stale exactly when the answer changes.
   */
  validUntil?: number;
  /** A strong ETag of the route's own, for a body that is the same in every build (default: build id and URL). */
  etag?: string;
}

/**
 * A 200 whose body is made while it is sent (bulk exports): never cached, never buffered. `chunks` is pulled
 * only as fast as the client reads, so memory stays constant whatever the size of the body.
 */
export interface StreamResult {
  status: 200;
  /** Content-Type and Content-Disposition; the common headers and the ETag are added by the dispatcher. */
  headers: Record<string, string>;
  chunks: () => Iterable<string> | AsyncIterable<string>;
}

/** True for a streamed result. */
export function isStream(result: HandlerResult | StreamResult): result is StreamResult {
  return 'chunks' in result;
}

/** A response header as OpenAPI describes it. */
export interface HeaderDoc {
  description: string;
  schema: JsonSchema;
}

/** What a route's 200 answer is, for openapi.json. */
export interface ResponseDoc {
  description: string;
  /** Schema of a JSON body; `{ $ref: '#/components/schemas/Name' }` for a shared one. */
  schema?: JsonSchema;
  /** Non-JSON bodies by media type (the exports). */
  media?: Record<string, JsonSchema>;
  /** Headers this route adds to its 200 (beyond ETag and the headers every answer has). */
  headers?: Record<string, HeaderDoc>;
  /** When the route answers 404 for a reason other than a path parameter or a page past the last. */
  notFound?: string;
}

/** The group a route is listed under in openapi.json. */
export interface RouteTag {
  name: string;
  description: string;
}

/**
 * How `hcas export-static` (src/static/) writes a route's answers as files for any static host:
 * - `once`: its answer without parameters (a list's first page at its defaults); `index` names the file of a
 *   folder path whatever `--index-name` says (the map's page is `index.html`, for hosts to serve it as a page);
 * - `per-key`: one answer per value of its path parameter, the values of the key list of that name
 *   (src/static/targets.ts); `providers`: only with `--providers` (four million profiles);
 * - `server`: not written, and `why` (it needs parameters, or its answer is not the same for everyone).
 */
export type StaticExport =
  | { write: 'once'; index?: string }
  | { write: 'per-key'; keys: string; providers?: true }
  | { write: 'server'; why: string };

/** The answer without parameters, written once: most routes' StaticExport. */
export const ONCE: StaticExport = { write: 'once' };

/** What every endpoint declares. `path` uses `:name` for path parameters and ends in `/` (a file name for documents). */
// biome-ignore lint/suspicious/noExplicitAny: see HandlerContext.
interface RouteBase<P extends ParamSpecs = ParamSpecs, Q extends ParamSpecs = ParamSpecs, D = any> {
  path: string;
  /** One line for docs and `--help`. */
  summary: string;
  /** Its group in openapi.json (default: its first path segment). */
  tag?: RouteTag;
  pathParams: P;
  query: Q;
  /** The 200 answer for `openapi.json`; every API route needs one (test/openapi.test.ts). */
  response?: ResponseDoc;
  /** Where `hcas export-static` stands on it (StaticExport): every route says, so a new one is never left out unseen. */
  exported: StaticExport;
  handle(context: HandlerContext<ParamValues<P>, ParamValues<Q>, D>): HandlerResult | StreamResult | Promise<HandlerResult | StreamResult>;
}

/**
 * How a route's answer is made and served: only the combinations that exist, one `kind` each.
 *
 * - `query` (the default): made, on a server with query workers, in one of them, so no parameters can make
 *   it hold the event loop (the dispatcher's `queryRunner`); without workers (`hcas get`) it is made here.
 *   `heavy`: it takes long to make (the GeoJSON of every ZIP): it runs through the process's WorkQueue, one at
 *   a time, identical requests share one computation, and its handler yields between slices.
 * - `lookup`: an answer read by key from an index, of bounded size whatever the parameters (one record, a
 *   small reference list, a static file): made on the event loop. `byFeatures`: its answer depends on the
 *   caller's plan features (the white-label widget): it is cached per feature set, and only such a route's
 *   handler is told the features (every other sees none), so no answer made for one plan is served to another.
 * - `asset`: what a page loads (the widget's embed script, the map's page and data files): made on the event
 *   loop, and metering leaves it out, so a page never loses it to a quota. `heavy` as above (the map's data).
 * - `stream`: its body is streamed as the client reads it (bulk exports), a batch per event-loop turn: made
 *   here, never in a query worker.
 */
export type RouteKind =
  | { kind?: 'query'; heavy?: true }
  | { kind: 'lookup'; byFeatures?: true }
  | { kind: 'asset'; heavy?: true }
  | { kind: 'stream' };

/** An endpoint as a module declares it: the base and one of the kinds. */
// biome-ignore lint/suspicious/noExplicitAny: see HandlerContext.
export type RouteDefinition<P extends ParamSpecs = ParamSpecs, Q extends ParamSpecs = ParamSpecs, D = any> = RouteBase<P, Q, D> & RouteKind;

/** One endpoint of the route table: its declaration, with what its kind means for the dispatcher and the gate. */
// biome-ignore lint/suspicious/noExplicitAny: see HandlerContext.
export interface Route<P extends ParamSpecs = ParamSpecs, Q extends ParamSpecs = ParamSpecs, D = any> extends RouteBase<P, Q, D> {
  kind: NonNullable<RouteKind['kind']>;
  /** Made on the event loop (`lookup`, `asset`), never in a query worker. */
  readonly inline: boolean;
  /** Left out of metering (`asset`). */
  readonly asset: boolean;
  /** Streamed (`stream`). */
  readonly streamed: boolean;
  /** Made through the work queue (`heavy`). */
  readonly heavy: boolean;
  /** Cached per feature set, its handler told the features (`byFeatures`). */
  readonly byFeatures: boolean;
}

/** Declares a route with its handler type-checked against its parameter specs; its kind's flags are set once here. */
// biome-ignore lint/suspicious/noExplicitAny: see HandlerContext.
export function route<P extends ParamSpecs, Q extends ParamSpecs, D = any>(definition: RouteDefinition<P, Q, D>): Route {
  const kind = definition.kind ?? 'query';
  return {
    ...definition,
    kind,
    inline: kind === 'lookup' || kind === 'asset',
    asset: kind === 'asset',
    streamed: kind === 'stream',
    heavy: 'heavy' in definition && definition.heavy === true,
    byFeatures: 'byFeatures' in definition && definition.byFeatures === true,
  } as unknown as Route;
}

/** The specs of an endpoint without parameters. */
export const NO_PARAMS: Record<never, never> = {};
export type NoParams = typeof NO_PARAMS;

/** A 200 result. */
export function ok(body: unknown): HandlerResult {
  return { status: 200, body };
}
