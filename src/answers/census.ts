import type { CensusMeasure } from '../../core/census-measures.ts';
import { nullable, record, type Infer, type JsonSchema, type Schema } from '../http/json-schema.ts';
import { stateCode, string, zipCode } from './fields.ts';

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

type Groups = typeof CENSUS_GROUPS;

/** A source a group's values came from, with its vintage from the build's `meta.sources`. */
export const CensusSource = record({ key: string, vintage: nullable(string) });
export type CensusSource = Infer<typeof CensusSource>;

const censusSources = {
  type: 'array',
  description:
    "The sources the group's values came from (manifest keys), with their vintages, in manifest order; empty when every value is null.",
  items: CensusSource,
} as const;

/** One group's values (null where the source has none) and the sources they came from. */
type CensusGroup<Fields> = { [F in keyof Fields]: number | null } & { sources: CensusSource[] };

function censusGroup<Fields extends Record<string, string>>(fields: Fields): Schema<CensusGroup<Fields>> {
  const properties: Record<string, JsonSchema> = {};
  for (const [field, measure] of Object.entries(fields)) {
    properties[field] = {
      type: ['number', 'null'],
      description: `ACS measure \`${measure}\`; null when the source suppressed it or has no value.`,
    };
  }
  // The fields are the group's, known only here: the type above says what they hold.
  const schema: JsonSchema = record({ ...properties, sources: censusSources });
  return schema;
}

const groups = Object.fromEntries(Object.entries(CENSUS_GROUPS).map(([group, fields]) => [group, censusGroup(fields)])) as {
  [G in keyof Groups]: Schema<CensusGroup<Groups[G]>>;
};

/** The census values of a ZIP by group (`health-scores/{zip}/census/`). */
export const Census = record(
  { zip_code: zipCode, city: string, state: stateCode, ...groups },
  'ACS values of a ZIP by group; each field name carries its unit (_pct 0-100, _usd, _years; counts otherwise).',
);
export type Census = Infer<typeof Census>;
