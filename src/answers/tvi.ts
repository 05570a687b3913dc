import { TVI_TIER_NAMES } from '../../core/tvi-tiers.ts';
import { arrayOf, nullable, record, type Infer } from '../http/json-schema.ts';
import { score, stateCode, string, zipCode } from './fields.ts';

const tier = { type: 'string', enum: TVI_TIER_NAMES } as const;
const subScore = { type: 'number', minimum: 0, maximum: 100 } as const;
const zeroVehiclePct = nullable({ type: 'number', minimum: 0, maximum: 100 });
const nearestHospitalMiles = nullable({ type: 'number', minimum: 0 });

/** The TVI of one ZIP (interface specification 2.13) plus the basis of its health outcome sub-score. */
export const TviRecord = record(
  {
    zip_code: zipCode,
    tvi_score: score,
    tvi_tier: tier,
    vehicle_score: subScore,
    transit_score: subScore,
    facility_distance_score: subScore,
    population_vulnerability_score: subScore,
    health_outcome_score: subScore,
    health_outcome_basis: {
      type: 'string',
      enum: ['places', 'disability_fallback'],
      description: 'What the health outcome sub-score ranks: CDC PLACES prevalence, or the disability share where PLACES has no value.',
    },
    zero_vehicle_pct: zeroVehiclePct,
    nearest_hospital_miles: nearestHospitalMiles,
    population: nullable({ type: 'integer', minimum: 0 }),
  },
  'The Transportation Vulnerability Index of a ZIP (2.13); sub-scores are percentile ranks, higher = more vulnerable.',
);
export type TviRecord = Infer<typeof TviRecord>;

/** An entry of `tvi/top-vulnerable/` (interface specification 2.14). */
export const TviListEntry = record(
  {
    zip_code: zipCode,
    city: string,
    state: stateCode,
    tvi_score: score,
    tvi_tier: tier,
    zero_vehicle_pct: zeroVehiclePct,
    nearest_hospital_miles: nearestHospitalMiles,
  },
  'A ZIP in the most-vulnerable list (2.14).',
);
export type TviListEntry = Infer<typeof TviListEntry>;

/** A metro or micro area in `tvi/rankings/`. */
export const TviMetroRank = record({
  rank: { type: 'integer', minimum: 1 },
  cbsa_code: { type: 'string', pattern: '^[0-9]{5}$' },
  cbsa_title: string,
  cbsa_type: { type: 'string', enum: ['Metro', 'Micro'] },
  tvi_score: { type: 'number', minimum: 0, maximum: 100 },
  tvi_tier: tier,
  zip_count: { type: 'integer', minimum: 1 },
  population: { type: 'integer', minimum: 0 },
});
export type TviMetroRank = Infer<typeof TviMetroRank>;

/** A ZIP in `tvi/rankings/`. */
export const TviZipRank = record({
  rank: { type: 'integer', minimum: 1 },
  zip_code: zipCode,
  city: string,
  state: stateCode,
  tvi_score: score,
  tvi_tier: tier,
});
export type TviZipRank = Infer<typeof TviZipRank>;

/** `tvi/rankings/`: the most vulnerable metro/micro areas and ZIP codes. */
export const TviRankings = record(
  { metros: arrayOf(TviMetroRank), zip_codes: arrayOf(TviZipRank) },
  'Metro/micro areas (population-weighted TVI, one decimal) and ZIP codes, most vulnerable first.',
);
