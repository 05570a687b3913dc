/**
 * The canonical census measures: the values of the database's `census.measure` column. A manifest maps a
 * source's columns to them (pipeline/layouts/census.ts); the census endpoint groups them (src/api/census.ts).
 */
export const CENSUS_MEASURES = [
  'population',
  'median_age',
  'age65_pct',
  'white_pct',
  'black_pct',
  'asian_pct',
  'hispanic_pct',
  'median_household_income',
  'per_capita_income',
  'poverty_pct',
  'unemployment_pct',
  'uninsured_pct',
  'public_insurance_pct',
  'private_insurance_pct',
  'disability_pct',
  'housing_units',
  'owner_occupied_pct',
  'renter_occupied_pct',
  'median_home_value',
  'no_vehicle_pct',
  'transit_commute_pct',
  'walk_commute_pct',
  'broadband_pct',
] as const;
export type CensusMeasure = (typeof CENSUS_MEASURES)[number];
