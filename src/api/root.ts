import { packageVersion } from '../../core/package.ts';
import { ApiRoot } from '../answers/root.ts';
import type { JsonSchema } from '../http/json-schema.ts';
import { openApiPath } from '../http/openapi.ts';
import { type HandlerResult, NO_PARAMS, type NoParams, ok, ONCE, route, type Route } from '../http/route.ts';
import type { Context } from './context.ts';
import { API_BASE } from './paths.ts';
import { REFERENCE_TAG } from './reference.ts';

/** Where the API is described for people: the file every hcas package carries (it is not served). */
const DOCUMENTATION = 'docs/api.md in the hcas package: every endpoint with a real request and its answer';

/** The answer's schema (openapi.json `components/schemas`). */
export const schemas: Record<string, JsonSchema> = { ApiRoot };

/**
 * `/api/v1/` (and `/`): what a person or a client finds first, as GitHub's and Datasette's roots do: every
 * endpoint of the table `listed` returns, with its summary, the OpenAPI document, the docs, and the build being served.
 */
export function rootRoutes(listed: () => readonly Route[]): { api: Route; site: Route } {
  let endpoints: Array<{ path: string; summary: string }> | undefined;
  const base = API_BASE.slice(0, -1);
  const handle = ({ queries }: Context<NoParams, NoParams>): HandlerResult => {
    const dataset = queries.meta.dataset as { name?: string } | null;
    return ok({
      name: 'hcas: Healthcare Access Scoring Service',
      version: packageVersion(),
      build: {
        build_id: queries.meta.build_id,
        built_at: queries.meta.built_at,
        dataset: dataset?.name ?? '',
        meta: `${API_BASE}meta/`,
      },
      openapi: `${API_BASE}openapi.json`,
      documentation: DOCUMENTATION,
      // Made on first request: the table lists this route too.
      endpoints: (endpoints ??= listed().map((each) => ({ path: base + openApiPath(each.path, base), summary: each.summary }))),
    });
  };
  const api = route({
    path: API_BASE,
    exported: ONCE,
    kind: 'lookup',
    summary: 'The API root: every endpoint, the OpenAPI document, the docs and the build served',
    tag: REFERENCE_TAG,
    pathParams: NO_PARAMS,
    query: NO_PARAMS,
    response: { description: 'The API root', schema: { $ref: '#/components/schemas/ApiRoot' } },
    handle,
  });
  // The site's root answers the same, so `curl http://host/` finds the API; it is outside the base path,
  // so not in openapi.json (as the widget's script).
  const site = route({
    path: '/',
    exported: ONCE,
    kind: 'lookup',
    summary: 'The API root, at the site root',
    pathParams: NO_PARAMS,
    query: NO_PARAMS,
    handle,
  });
  return { api, site };
}
