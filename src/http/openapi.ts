import { ERROR_STATUS } from './errors.ts';
import { record, type JsonSchema } from './json-schema.ts';
import type { ParamSpecs } from './params.ts';
import type { HeaderDoc, Route, RouteTag } from './route.ts';

/** An error answer every operation documents; a 404 is listed only where the route can answer one. */
export interface ErrorDoc {
  status: number;
  /** For 404: the start of the text, followed by the route's reasons. */
  description: string;
  /** Headers this error adds (e.g. Retry-After on a 429). */
  headers?: Record<string, HeaderDoc>;
}

export interface OpenApiOptions {
  /** The path prefix the server URL stands for (`/api/v1`); paths are listed without it. */
  basePath: string;
  /** The document's `info` (title, version, description, license). */
  info: Record<string, unknown>;
  /** Who may call: `security` and `components/securitySchemes`. */
  security: unknown[];
  securitySchemes: Record<string, unknown>;
  /** Shared schemas, referenced as `#/components/schemas/NAME`; `Error` is added first. */
  schemas: Record<string, JsonSchema>;
  /** Headers every answer carries, errors and 304s included (the rate-limit headers). */
  everyAnswer: Record<string, HeaderDoc>;
  /** The error answers, in the order they are listed. */
  errors: readonly ErrorDoc[];
}

/** The one error body (interface specification 2.18). */
export const ERROR_SCHEMA: JsonSchema = record(
  {
    error: { type: 'string', enum: Object.keys(ERROR_STATUS) },
    message: { type: 'string' },
    status: { type: 'integer', minimum: 400, maximum: 599 },
  },
  'The one error body (interface specification 2.18).',
);

const ETAG: HeaderDoc = {
  description:
    'Strong tag of this answer: the dataset build id and a hash of the URL. Send it back in `If-None-Match` to get a 304 while the data is unchanged.',
  schema: { type: 'string' },
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
    const tag: RouteTag = route.tag ?? { name: segment, description: `Endpoints under ${options.basePath}/${segment}/.` };
    tags.set(tag.name, tag.description);
    paths[path] = { get: operation(route, path, tag.name, options) };
  }
  const errorHeaders = Object.assign({}, ...options.errors.map((error) => error.headers ?? {}));
  return {
    openapi: '3.1.0',
    info: options.info,
    servers: [{ url: options.basePath, description: 'The server that sent this document' }],
    security: options.security,
    tags: [...tags].map(([name, description]) => ({ name, description })),
    paths,
    components: {
      schemas: { Error: ERROR_SCHEMA, ...options.schemas },
      securitySchemes: options.securitySchemes,
      headers: { ...options.everyAnswer, ETag: ETAG, ...errorHeaders },
    },
  };
}

/** `/api/v1/health-scores/:zip/` as OpenAPI lists it under the server `/api/v1`: `/health-scores/{zip}/`. */
export function openApiPath(routePath: string, basePath: string): string {
  return routePath.slice(basePath.length).replace(/:(\w+)/g, '{$1}');
}

function operation(route: Route, path: string, tag: string, options: OpenApiOptions): Record<string, unknown> {
  const doc = route.response ?? { description: 'Not described yet', schema: {} };
  const pathNames = Object.keys(route.pathParams);
  const content = doc.media
    ? Object.fromEntries(Object.entries(doc.media).map(([type, schema]) => [type, { schema }]))
    : { 'application/json': { schema: doc.schema ?? {} } };
  const notFound = [
    doc.notFound ?? (pathNames.length ? `nothing has that ${pathNames.join(' and ')}` : ''),
    'page' in route.query ? 'a page past the last one' : '',
  ].filter(Boolean);
  const every = refs(options.everyAnswer);
  const responses: Record<string, unknown> = {
    200: { description: doc.description, headers: { ETag: headerRef('ETag'), ...doc.headers, ...every }, content },
    304: { description: "Not modified: `If-None-Match` names this answer's ETag.", headers: { ETag: headerRef('ETag'), ...every } },
  };
  for (const error of options.errors) {
    if (error.status === 404 && notFound.length === 0) continue;
    const description = error.status === 404 ? `${error.description}: ${notFound.join('; ')}` : error.description;
    const headers = { ...every, ...refs(error.headers ?? {}) };
    responses[error.status] = { description, headers, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
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
  const words = path
    .split(/[/.-]/)
    .filter(Boolean)
    .map((word) => {
      const name = /^\{(\w+)\}$/.exec(word);
      const text = name ? `by_${name[1]}` : word;
      return text
        .split('_')
        .map((part) => part[0].toUpperCase() + part.slice(1))
        .join('');
    });
  return `get${words.join('')}`;
}

function headerRef(name: string): { $ref: string } {
  return { $ref: `#/components/headers/${name}` };
}

function refs(headers: Record<string, HeaderDoc>): Record<string, { $ref: string }> {
  return Object.fromEntries(Object.keys(headers).map((name) => [name, headerRef(name)]));
}
