import type { CensusMeasure } from '../../core/census-measures.ts';
import { notFound } from '../http/errors.ts';
import { ok, type Context, type HandlerResult, type NoParams } from '../http/route.ts';
import type { Queries } from '../query/index.ts';
import { zipPath } from './health-scores.ts';

/**
 * The census endpoint's groups: each published field and the one canonical measure (docs/schema.md, `census`)
 * it shows. Field names carry their unit (`_pct` 0-100, `_usd`, `_years`; plain counts otherwise). Every
 * canonical measure appears exactly once (test/census.test.ts).
 */
export const CENSUS_GROUPS = {
  demographics: {
    population: 'population', median_age_years: 'median_age', age_65_plus_pct: 'age65_pct', disability_pct: 'disability_pct',
    white_pct: 'white_pct', black_pct: 'black_pct', asian_pct: 'asian_pct', hispanic_pct: 'hispanic_pct',
  },
  income: {
    median_household_income_usd: 'median_household_income', per_capita_income_usd: 'per_capita_income',
    poverty_pct: 'poverty_pct', unemployment_pct: 'unemployment_pct',
  },
  insurance: { uninsured_pct: 'uninsured_pct', public_insurance_pct: 'public_insurance_pct', private_insurance_pct: 'private_insurance_pct' },
  housing: {
    housing_units: 'housing_units', owner_occupied_pct: 'owner_occupied_pct', renter_occupied_pct: 'renter_occupied_pct',
    median_home_value_usd: 'median_home_value',
  },
  transportation: {
    households_without_vehicle_pct: 'no_vehicle_pct', transit_commute_pct: 'transit_commute_pct',
    walk_commute_pct: 'walk_commute_pct', broadband_pct: 'broadband_pct',
  },
} as const satisfies Record<string, Record<string, CensusMeasure>>;

export type CensusGroupName = keyof typeof CENSUS_GROUPS;

/** A source a group's values came from, with its vintage from the build's `meta.sources`. */
export interface CensusSource {
  key: string;
  vintage: string | null;
}

/** `health-scores/{zip}/census/`: the ZIP's census values by group, null where the source has none. */
export function getCensus({ params, queries }: Context<typeof zipPath, NoParams>): HandlerResult {
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
    values.sources = [...sources].sort((a, b) => (order.get(a)?.index ?? Infinity) - (order.get(b)?.index ?? Infinity) || a.localeCompare(b))
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
    if (typeof source.key === 'string') order.set(source.key, { index, vintage: typeof source.vintage === 'string' ? source.vintage : null });
  });
  return order;
}
