import type { CensusMeasure } from '../../core/census-measures.ts';
import { notFound } from '../http/errors.ts';
import { nullable, record, ref, type JsonSchema } from '../http/json-schema.ts';
import { NO_PARAMS, ok, route, type HandlerResult, type NoParams, type Route } from '../http/route.ts';
import type { Queries } from '../query/index.ts';
import type { Context } from './context.ts';
import { HEALTH_SCORES_TAG } from './health-scores.ts';
import { zip } from './params.ts';
import { API_BASE } from './paths.ts';
import { stateCode, string, zipCode } from './schemas.ts';
import { answeringZipAliases, withZipLookup } from './zip-lookup.ts';

const zipPath = { zip };

/**
 * The census endpoint's groups: each published field and the one canonical measure (docs/schema.md, `census`)
 * it shows. Field names carry their unit (`_pct` 0-100, `_usd`, `_years`; plain counts otherwise). Every
 * canonical measure appears exactly once (test/census.test.ts).
 */
export const CENSUS_GROUPS = {
  demographics: {
    population: 'population',
    median_age_years: 'median_age',
    age_65_plus_pct: 'age65_pct',
    disability_pct: 'disability_pct',
    white_pct: 'white_pct',
    black_pct: 'black_pct',
    asian_pct: 'asian_pct',
    hispanic_pct: 'hispanic_pct',
  },
  income: {
    median_household_income_usd: 'median_household_income',
    per_capita_income_usd: 'per_capita_income',
    poverty_pct: 'poverty_pct',
    unemployment_pct: 'unemployment_pct',
  },
  insurance: {
    uninsured_pct: 'uninsured_pct',
    public_insurance_pct: 'public_insurance_pct',
    private_insurance_pct: 'private_insurance_pct',
  },
  housing: {
    housing_units: 'housing_units',
    owner_occupied_pct: 'owner_occupied_pct',
    renter_occupied_pct: 'renter_occupied_pct',
    median_home_value_usd: 'median_home_value',
  },
  transportation: {
    households_without_vehicle_pct: 'no_vehicle_pct',
    transit_commute_pct: 'transit_commute_pct',
    walk_commute_pct: 'walk_commute_pct',
    broadband_pct: 'broadband_pct',
  },
} as const satisfies Record<string, Record<string, CensusMeasure>>;

/** A source a group's values came from, with its vintage from the build's `meta.sources`. */
export interface CensusSource {
  key: string;
  vintage: string | null;
}

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

const censusSources: JsonSchema = {
  type: 'array',
  description:
    "The sources the group's values came from (manifest keys), with their vintages, in manifest order; empty when every value is null.",
  items: record({ key: string, vintage: nullable(string) }),
};

function censusGroup(fields: Record<string, string>): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const [field, measure] of Object.entries(fields)) {
    properties[field] = {
      type: ['number', 'null'],
      description: `ACS measure \`${measure}\`; null when the source suppressed it or has no value.`,
    };
  }
  return record({ ...properties, sources: censusSources });
}

/** The answer's schema (openapi.json `components/schemas`). */
export const schemas: Record<string, JsonSchema> = {
  Census: withZipLookup(
    record(
      {
        zip_code: zipCode,
        city: string,
        state: stateCode,
        ...Object.fromEntries(Object.entries(CENSUS_GROUPS).map(([group, fields]) => [group, censusGroup(fields)])),
      },
      'ACS values of a ZIP by group; each field name carries its unit (_pct 0-100, _usd, _years; counts otherwise).',
    ),
  ),
};

export const routes: readonly Route[] = [
  route({
    path: `${API_BASE}health-scores/:zip/census/`,
    inline: true,
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
