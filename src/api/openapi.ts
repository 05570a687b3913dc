import { packageVersion } from '../../core/package.ts';
import type { JsonSchema } from '../http/json-schema.ts';
import { openApiDocument, type ErrorDoc } from '../http/openapi.ts';
import { type HeaderDoc, NO_PARAMS, ok, ONCE, route, type Route } from '../http/route.ts';
import { API_BASE } from './paths.ts';
import { REFERENCE_TAG } from './reference.ts';

/** Headers every answer carries, errors included (src/auth adds them; decisions.md, "Authentication, plans and limits"). */
const RATE_LIMIT_HEADERS: Record<string, HeaderDoc> = {
  'X-RateLimit-Limit': {
    description: 'Calls allowed in the current window of the caller\'s plan (docs/api.md, "API keys, plans and rate limits").',
    schema: { type: 'integer', minimum: 0 },
  },
  'X-RateLimit-Remaining': { description: 'Calls left in the current window.', schema: { type: 'integer', minimum: 0 } },
  'X-RateLimit-Reset': { description: 'Unix epoch seconds at which the current window resets.', schema: { type: 'integer', minimum: 0 } },
};

const ERRORS: readonly ErrorDoc[] = [
  {
    status: 400,
    description:
      '`invalid_parameter` (the message names the parameter and what it accepts, e.g. an unknown or repeated parameter) or `conflicting_credentials`',
  },
  { status: 401, description: '`invalid_api_key`: an unknown, revoked or malformed API key' },
  {
    status: 403,
    description: "`plan_upgrade_required`: the caller's plan does not include this endpoint; the message names the plan that does",
  },
  { status: 404, description: '`not_found`' },
  {
    status: 429,
    description: "`rate_limited`: the plan's quota for the current window is used up",
    headers: { 'Retry-After': { description: 'Seconds until the quota resets.', schema: { type: 'integer', minimum: 0 } } },
  },
  { status: 500, description: '`internal_error`: logged; the body carries no details' },
];

const INFO = {
  title: 'hcas: Healthcare Access Scoring Service',
  description:
    'A read-only JSON API of healthcare access scores per US ZIP code, the Transportation Vulnerability Index, census data and bulk exports. Every path ends in `/` (a GET without it is a 301 to it). Every answer is JSON except the exports (CSV or NDJSON); errors are always `{error, message, status}`. Data answers carry a strong ETag derived from the dataset build and answer `If-None-Match` with 304.',
  license: { name: 'MIT', identifier: 'MIT' },
};

const SECURITY_SCHEMES = {
  ApiKeyHeader: {
    type: 'apiKey',
    in: 'header',
    name: 'X-API-Key',
    description: 'An API key. Without a key the caller is on the anonymous tier (100 calls per day per IP, Free plan features).',
  },
  BearerKey: {
    type: 'http',
    scheme: 'bearer',
    description:
      'The same API key as `Authorization: Bearer <key>`; sending both forms with different keys is a 400 `conflicting_credentials`.',
  },
};

/**
 * The route table `routes` followed by `openapi.json`, the OpenAPI 3.1 document of all of them (itself
 * included), built on first request. `schemas` are the answers' shared schemas, by name.
 */
export function withOpenApi(routes: readonly Route[], schemas: Record<string, JsonSchema>): readonly Route[] {
  let document: Record<string, unknown> | undefined;
  const all: Route[] = [...routes];
  const describe = () =>
    openApiDocument(all, {
      basePath: API_BASE.slice(0, -1),
      info: { title: INFO.title, version: packageVersion(), description: INFO.description, license: INFO.license },
      security: [{}, { ApiKeyHeader: [] }, { BearerKey: [] }],
      securitySchemes: SECURITY_SCHEMES,
      schemas: { ...schemas, OpenApiDocument: DOCUMENT_SCHEMA },
      everyAnswer: RATE_LIMIT_HEADERS,
      errors: ERRORS,
    });
  all.push(
    route({
      // The one path without a trailing slash: a document name, as OpenAPI tooling expects it.
      path: `${API_BASE}openapi.json`,
      exported: ONCE,
      kind: 'lookup',
      summary: 'This API as an OpenAPI 3.1 document, generated from the route table',
      tag: REFERENCE_TAG,
      pathParams: NO_PARAMS,
      query: NO_PARAMS,
      response: { description: 'The OpenAPI document', schema: { $ref: '#/components/schemas/OpenApiDocument' } },
      handle: () => ok((document ??= describe())),
    }),
  );
  return all;
}

const DOCUMENT_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['openapi', 'info', 'paths'],
  properties: { openapi: { const: '3.1.0' }, info: { type: 'object' }, paths: { type: 'object' } },
  description: 'This document.',
};
