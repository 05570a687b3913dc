import { Census, CENSUS_GROUPS, type CensusSource } from '../answers/census.ts';
import { withZipLookup } from '../answers/zip-lookup.ts';
import { notFound } from '../http/errors.ts';
import { ref, type JsonSchema } from '../http/json-schema.ts';
import { NO_PARAMS, ok, route, type HandlerResult, type NoParams, type Route } from '../http/route.ts';
import type { Queries } from '../query/index.ts';
import type { Context } from './context.ts';
import { HEALTH_SCORES_TAG } from './health-scores.ts';
import { zip } from './params.ts';
import { API_BASE } from './paths.ts';
import { answeringZipAliases } from './zip-lookup.ts';

const zipPath = { zip };

/** `health-scores/{zip}/census/`: the ZIP's census values by group, null where the source has none. */
function getCensus({ params, queries }: Context<typeof zipPath, NoParams>): HandlerResult {
  const place = queries.census.place(params.zip);
  if (!place) throw notFound(`No census data for ZIP code ${params.zip}`);
  const stored = new Map(queries.census.byZip(params.zip).map((row) => [row.measure, row]));
  const order = sourceOrder(queries);
  const body: Record<string, unknown> = { zip_code: params.zip, city: place.city, state: place.state };
  for (const [group, fields] of Object.entries(CENSUS_GROUPS)) {
    const values: Record<string, unknown> = {};
    const sources = new Set<string>();
    for (const [field, measure] of Object.entries(fields)) {
      const row = stored.get(measure);
      values[field] = row?.value ?? null;
      if (row && row.value !== null) sources.add(row.source);
    }
    values.sources = [...sources]
      .sort((a, b) => (order.get(a)?.index ?? Infinity) - (order.get(b)?.index ?? Infinity) || a.localeCompare(b))
      .map((key): CensusSource => ({ key, vintage: order.get(key)?.vintage ?? null }));
    body[group] = values;
  }
  return ok(body);
}

/** Each source key's position in the build's manifest order and its vintage. */
function sourceOrder(queries: Queries): Map<string, { index: number; vintage: string | null }> {
  const order = new Map<string, { index: number; vintage: string | null }>();
  queries.meta.sources.forEach((entry, index) => {
    const source = entry as { key?: unknown; vintage?: unknown };
    if (typeof source.key === 'string')
      order.set(source.key, { index, vintage: typeof source.vintage === 'string' ? source.vintage : null });
  });
  return order;
}

/** The answer's schema (openapi.json `components/schemas`). */
export const schemas: Record<string, JsonSchema> = { Census: withZipLookup(Census) };

export const routes: readonly Route[] = [
  route({
    path: `${API_BASE}health-scores/:zip/census/`,
    exported: { write: 'per-key', keys: 'zips' },
    kind: 'lookup',
    summary: 'ACS census values of one ZIP code by group (demographics, income, insurance, housing, transportation), with source vintages',
    tag: HEALTH_SCORES_TAG,
    pathParams: zipPath,
    query: NO_PARAMS,
    response: {
      description: 'Census values by group; null where the source suppressed a value or has none',
      schema: ref('Census'),
      notFound: 'the ZIP code is not scored',
    },
    handle: answeringZipAliases(getCensus),
  }),
];
