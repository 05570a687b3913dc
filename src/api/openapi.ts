import { readFileSync } from 'node:fs';
import { openApiDocument } from '../http/openapi.ts';
import { ok, type HandlerResult, type Route } from '../http/route.ts';
import { SCHEMAS } from './schemas.ts';

const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
const documents = new WeakMap<readonly Route[], Record<string, unknown>>();

/** `openapi.json`: the OpenAPI 3.1 document of a route table, built once per table. */
export function getOpenApi(routes: readonly Route[]): HandlerResult {
  let document = documents.get(routes);
  if (!document) {
    document = openApiDocument(routes, { basePath: '/api/v1', version: VERSION, schemas: SCHEMAS });
    documents.set(routes, document);
  }
  return ok(document);
}
