import { ERROR_STATUS } from './errors.ts';
import type { ParamSpecs } from './params.ts';
import type { Route } from './route.ts';

/** A JSON Schema (draft 2020-12, the dialect of OpenAPI 3.1). */
export type JsonSchema = { [keyword: string]: unknown };

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
  /** Headers this route adds to its 200 (beyond ETag and the rate-limit headers every answer has). */
  headers?: Record<string, HeaderDoc>;
  /** When the route answers 404 for a reason other than a path parameter or a page past the last. */
  notFound?: string;
}

export interface OpenApiOptions {
  /** The path prefix the server URL stands for (`/api/v1`); paths are listed without it. */
  basePath: string;
  version: string;
  /** Shared schemas, referenced as `#/components/schemas/NAME`. */
  schemas: Record<string, JsonSchema>;
}

/** Groups of endpoints by the first path segment; a segment not listed here is its own group. */
const TAGS: Record<string, { name: string; description: string }> = {
  'health-scores': { name: 'Health scores', description: 'Healthcare access scores per ZIP code: records, all score types, nearby ZIPs, GeoJSON and census data.' },
  tvi: { name: 'Transportation Vulnerability Index', description: 'The TVI per ZIP code, the most vulnerable ZIP codes, and metro areas and ZIP codes ranked by vulnerability.' },
  'widget-score': { name: 'Widget', description: 'The compact score the embeddable widget shows (CORS-enabled, cacheable for 24 hours).' },
  compare: { name: 'Comparison', description: 'Score records of several ZIP codes side by side.' },
  exports: { name: 'Bulk exports', description: 'Every record of a resource as streamed CSV or NDJSON.' },
  blog: { name: 'Blog', description: 'Published posts about the methodology and data.' },
  'score-types': { name: 'Reference', description: 'Score types, states and the dataset build.' },
  states: { name: 'Reference', description: 'Score types, states and the dataset build.' },
  meta: { name: 'Reference', description: 'Score types, states and the dataset build.' },
  'openapi.json': { name: 'Reference', description: 'Score types, states and the dataset build.' },
};

const RATE_LIMIT_HEADERS: Record<string, HeaderDoc> = {
  'X-RateLimit-Limit': { description: 'Calls allowed in the current window of the caller\'s plan (decisions.md, "Authentication, plans and limits").', schema: { type: 'integer', minimum: 0 } },
  'X-RateLimit-Remaining': { description: 'Calls left in the current window.', schema: { type: 'integer', minimum: 0 } },
  'X-RateLimit-Reset': { description: 'Unix epoch seconds at which the current window resets.', schema: { type: 'integer', minimum: 0 } },
};

const ERROR_DESCRIPTIONS: Record<string, string> = {
  400: '`invalid_parameter` (the message names the parameter and what it accepts, e.g. an unknown or repeated parameter) or `conflicting_credentials`',
  401: '`invalid_api_key`: an unknown, revoked or malformed API key',
  403: '`plan_upgrade_required`: the caller\'s plan does not include this endpoint; the message names the plan that does',
  404: '`not_found`',
  429: '`rate_limited`: the plan\'s quota for the current window is used up',
  500: '`internal_error`: logged; the body carries no details',
};

/**
 * The OpenAPI 3.1 document of a route table: one GET operation per route, with its parameters and their
 * constraints (from the parameter specs), its 200 body (from the route's `response`), the error answers it
 * can give (all with the one error body) and the headers every answer carries.
 */
export function openApiDocument(routes: readonly Route[], options: OpenApiOptions): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  const tags = new Map<string, string>();
  for (const route of routes) {
    const path = openApiPath(route.path, options.basePath);
    const segment = path.split('/')[1];
    const tag = TAGS[segment] ?? { name: segment, description: `Endpoints under ${options.basePath}/${segment}/.` };
    tags.set(tag.name, tag.description);
    paths[path] = { get: operation(route, path, tag.name) };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'hcas: Healthcare Access Scoring Service',
      version: options.version,
      description: 'A read-only JSON API of healthcare access scores per US ZIP code, the Transportation Vulnerability Index, census data and bulk exports. Every path ends in `/` (a GET without it is a 301 to it). Every answer is JSON except the exports (CSV or NDJSON); errors are always `{error, message, status}`. Data answers carry a strong ETag derived from the dataset build and answer `If-None-Match` with 304.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: options.basePath, description: 'The server that sent this document' }],
    security: [{}, { ApiKeyHeader: [] }, { BearerKey: [] }],
    tags: [...tags].map(([name, description]) => ({ name, description })),
    paths,
    components: {
      schemas: options.schemas,
      securitySchemes: {
        ApiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'An API key. Without a key the caller is on the anonymous tier (100 calls per day per IP, Free plan features).' },
        BearerKey: { type: 'http', scheme: 'bearer', description: 'The same API key as `Authorization: Bearer <key>`; sending both forms with different keys is a 400 `conflicting_credentials`.' },
      },
      headers: {
        ...RATE_LIMIT_HEADERS,
        ETag: { description: 'Strong tag of this answer: the dataset build id and a hash of the URL. Send it back in `If-None-Match` to get a 304 while the data is unchanged.', schema: { type: 'string' } },
        'Retry-After': { description: 'Seconds until the quota resets.', schema: { type: 'integer', minimum: 0 } },
      },
    },
  };
}

/** `/api/v1/health-scores/:zip/` as OpenAPI lists it under the server `/api/v1`: `/health-scores/{zip}/`. */
export function openApiPath(routePath: string, basePath: string): string {
  return routePath.slice(basePath.length).replace(/:(\w+)/g, '{$1}');
}

function operation(route: Route, path: string, tag: string): Record<string, unknown> {
  const doc = route.response ?? { description: 'Not described yet', schema: {} };
  const pathNames = Object.keys(route.pathParams);
  const content = doc.media
    ? Object.fromEntries(Object.entries(doc.media).map(([type, schema]) => [type, { schema }]))
    : { 'application/json': { schema: doc.schema ?? {} } };
  const notFound = [
    doc.notFound ?? (pathNames.length ? `nothing has that ${pathNames.join(' and ')}` : ''),
    'page' in route.query ? 'a page past the last one' : '',
  ].filter(Boolean);
  const errors = [400, 401, 403, ...(notFound.length ? [404] : []), 429, 500];
  const responses: Record<string, unknown> = {
    200: { description: doc.description, headers: { ETag: headerRef('ETag'), ...doc.headers, ...rateLimitRefs() }, content },
    304: { description: 'Not modified: `If-None-Match` names this answer\'s ETag.', headers: { ETag: headerRef('ETag'), ...rateLimitRefs() } },
  };
  for (const status of errors) {
    const description = status === 404 ? `${ERROR_DESCRIPTIONS[404]}: ${notFound.join('; ')}` : ERROR_DESCRIPTIONS[status];
    const headers = { ...rateLimitRefs(), ...(status === 429 ? { 'Retry-After': headerRef('Retry-After') } : {}) };
    responses[status] = { description, headers, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
  }
  return {
    operationId: operationId(path),
    summary: route.summary,
    tags: [tag],
    parameters: [...parameters(route.pathParams, 'path'), ...parameters(route.query, 'query')],
    responses,
  };
}

function parameters(specs: ParamSpecs, location: 'path' | 'query'): Array<Record<string, unknown>> {
  return Object.entries(specs).map(([name, spec]) => ({
    name,
    in: location,
    required: location === 'path' || spec.required === true,
    description: `Accepts ${spec.accepts}.`,
    schema: spec.schema ?? { type: 'string' },
  }));
}

/** `getHealthScoresByZipNearby` from `/health-scores/{zip}/nearby/`. */
function operationId(path: string): string {
  const words = path.split(/[/.-]/).filter(Boolean).map((word) => {
    const name = /^\{(\w+)\}$/.exec(word);
    const text = name ? `by_${name[1]}` : word;
    return text.split('_').map((part) => part[0].toUpperCase() + part.slice(1)).join('');
  });
  return `get${words.join('')}`;
}

function headerRef(name: string): { $ref: string } {
  return { $ref: `#/components/headers/${name}` };
}

function rateLimitRefs(): Record<string, { $ref: string }> {
  return Object.fromEntries(Object.keys(RATE_LIMIT_HEADERS).map((name) => [name, headerRef(name)]));
}

/** The error codes of the one error body, for its schema. */
export const ERROR_CODES = Object.keys(ERROR_STATUS);
