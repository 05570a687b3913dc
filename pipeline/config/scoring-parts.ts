import type { ScorePart } from '../../core/components.ts';
import type * as scoring from './scoring.ts';

/** The name of every scoring constant a build stores in `meta.scoring`: scoring.ts's, the band table, the TVI tiers. */
export type ScoringConstant = keyof typeof scoring | 'bands' | 'tvi_tiers';

/**
 * Which parts of the score each scoring constant moves, so `hcas diff` can name a changed constant as a cause
 * of the ZIPs whose parts moved (src/diff/causes.ts). Typed by the constants themselves: a constant added to
 * scoring.ts without its parts here does not compile. An old build's constant that this code no longer has
 * may move anything; the diff offers it only where nothing it knows explains a ZIP.
 */
export const CONSTANT_PARTS: { readonly [name in ScoringConstant]: readonly ScorePart[] } = {
  COMPOSITE_WEIGHTS: ['composite'],
  PEOPLE_FLOOR: ['composite'],
  bands: ['band'],
  BEDS_BENCHMARK: ['hospital'],
  HOSPITAL_WEIGHTS: ['hospital'],
  HOSPITAL_STEPS: ['hospital'],
  MAJOR_HOSPITAL: ['hospital', 'travel'],
  RATING_RADIUS_MILES: ['hospital'],
  DEFAULT_BEDS: ['hospital'],
  STAFFED_PER_LICENSED_BED: ['hospital'],
  CARE_MINUTES: ['hospital', 'travel'],
  SPECIALIST_MINUTES: ['hospital', 'travel'],
  MINUTES_PER_STRAIGHT_MILE: ['hospital', 'travel'],
  MINUTES_PER_STRAIGHT_MILE_BY_DENSITY: ['hospital', 'travel'],
  ROAD_TABLE_DESCRIBES_RESIDENTS: ['hospital', 'travel'],
  SAME_TRIP_MILES: ['hospital', 'travel'],
  MIN_TRIP_MILES: ['provider', 'hospital', 'travel'],
  RESIDENTS_POINT_TOLERANCE: ['provider', 'hospital', 'travel'],
  GENERAL_HOSPITAL_TYPES: ['hospital', 'travel'],
  EMERGENCY_ONLY_TYPES: ['hospital', 'travel'],
  FACILITY_MATCH_MILES: ['hospital', 'travel'],
  EXPECTED_DENSITY: ['provider'],
  PROVIDER_BENCHMARKS: ['provider'],
  PROVIDER_BENCHMARK_SPAN: ['provider'],
  PROVIDER_STEPS: ['provider'],
  HEALTH_CENTER_CLINICIANS: ['provider'],
  NP_PA_PRIMARY_CARE_WEIGHT: ['provider', 'travel'],
  ESTIMATED_FROM: ['provider', 'travel', 'composite'],
  PROVIDER_MIN_SOURCED_WEIGHT: ['provider', 'composite'],
  PLACE_OF_CARE_MIN_CLINICIANS: ['travel'],
  LOCAL_CARE_CATEGORIES: ['travel'],
  COVERAGE: ['provider', 'travel', 'composite'],
  NETWORK_MAX_MILES: ['provider', 'hospital', 'travel'],
  TRAVEL_WEIGHTS: ['travel'],
  MOBILITY: ['travel'],
  SMALL_POPULATION: ['travel'],
  NEED_MEASURES: ['people'],
  PREVALENCE_NEED: ['people'],
  PREVALENCE_WEIGHT: ['people'],
  SCORE_TYPES: ['people', 'provider', 'travel'],
  // The TVI is not a score the diff compares.
  TVI_WEIGHTS: [],
  TVI_HEALTH_MEASURES: [],
  tvi_tiers: [],
};

/** The parts a stored constant moves; undefined for a name this code does not know (an old build's). */
export function partsOf(name: string): readonly ScorePart[] | undefined {
  return Object.hasOwn(CONSTANT_PARTS, name) ? CONSTANT_PARTS[name as ScoringConstant] : undefined;
}
