import { tviTier, type TviTier } from '../../core/tvi-tiers.ts';
import type { ZipPlace } from '../geo/places.ts';
import type { SourcedValue } from '../ingest/ingested.ts';
import { TVI_HEALTH_MEASURES, TVI_WEIGHTS } from '../config/scoring.ts';
import type { ZipScores } from './index.ts';

export interface TviRecord {
  tvi_score: number;
  tvi_tier: TviTier;
  vehicle_score: number;
  transit_score: number;
  facility_distance_score: number;
  population_vulnerability_score: number;
  health_outcome_score: number;
  health_outcome_basis: 'places' | 'disability_fallback';
  zero_vehicle_pct: number | null;
  nearest_hospital_miles: number | null;
  population: number | null;
  /** False for ZIPs below the small-population threshold: kept out of top-vulnerable lists and metro averages. */
  ranked: boolean;
}

/**
 * Percentile ranks in the manner of the CDC/ATSDR SVI (Excel PERCENTRANK.INC): the share of the reference
 * ZIPs with a strictly lower value, 0-100 with higher = more vulnerable. The reference is every ZIP with a
 * value where `inReference` is true (the ranked ZIPs); others are placed on the same scale. Missing values get null.
 */
export function percentileRanks(values: Array<number | null>, inReference: (i: number) => boolean = () => true): Array<number | null> {
  const present = values.filter((v, i): v is number => v !== null && Number.isFinite(v) && inReference(i)).sort((a, b) => a - b);
  const below = (value: number) => {
    let lo = 0;
    let hi = present.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (present[mid] < value) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  return values.map((v) =>
    v === null || !Number.isFinite(v) ? null : present.length > 1 ? Math.min(100, (100 * below(v)) / (present.length - 1)) : 0,
  );
}

const round1 = (x: number) => Math.round(x * 10) / 10;
/** Mean of the non-null values, null when there are none. */
const mean = (values: Array<number | null>) => {
  const present = values.filter((v): v is number => v !== null);
  return present.length ? present.reduce((a, b) => a + b, 0) / present.length : null;
};

/**
 * The Transportation Vulnerability Index per ZIP: five sub-scores (percentile ranks of the underlying
 * measures, or of the mean of several ranks, as SVI builds its themes), weighted into `tvi_score`.
 * Vehicle: households with neither a vehicle nor transit (mobility.ts), so dense transit cities are not
 * ranked vulnerable for going without cars. Transit: the lack of it; a ZIP with no transit measure counts as
 * having none, the worst measured value. Facility distance: minutes to the nearest emergency department and
 * to the nearest place of care (road-network tables where supplied). Ranks are taken over the ZIPs of at
 * least `SMALL_POPULATION` residents; a sub-score whose every measure is missing is 50, the median.
 */
export function computeTvi(
  places: ZipPlace[],
  census: Map<string, Map<string, SourcedValue>>,
  prevalence: Map<string, Record<string, number | null>>,
  scores: ZipScores[],
): TviRecord[] {
  const ranked = (i: number) => !scores[i].smallPopulation;
  const ranks = (values: Array<number | null>) => percentileRanks(values, ranked);
  const measure = (name: string) => places.map((p) => census.get(p.zip)?.get(name)?.value ?? null);
  const vehicleRank = ranks(scores.map((s) => s.mobilityGapPct));
  const transitRank = ranks(measure('transit_commute_pct').map((v) => 100 - (v ?? 0)));
  const emergencyRank = ranks(scores.map((s) => s.access.emergencyMinutes));
  const careRank = ranks(scores.map((s) => s.access.careMinutes));
  const distanceRank = ranks(places.map((_, i) => mean([emergencyRank[i], careRank[i]])));
  const [age, disability, poverty] = ['age65_pct', 'disability_pct', 'poverty_pct'].map((m) => ranks(measure(m)));
  const populationRank = ranks(places.map((_, i) => mean([age[i], disability[i], poverty[i]])));
  const healthRanks = TVI_HEALTH_MEASURES.map((m) => ranks(places.map((p) => prevalence.get(p.zip)?.[m] ?? null)));
  const healthRank = ranks(places.map((_, i) => mean(healthRanks.map((r) => r[i]))));
  const noVehicle = measure('no_vehicle_pct');
  return places.map((place, i) => {
    const usePlaces = healthRank[i] !== null;
    const sub = {
      vehicle: vehicleRank[i] ?? 50,
      transit: transitRank[i] ?? 50,
      facility_distance: distanceRank[i] ?? 50,
      population_vulnerability: populationRank[i] ?? 50,
      health_outcome: (usePlaces ? healthRank[i] : disability[i]) ?? 50,
    };
    const score = Math.round(Object.entries(TVI_WEIGHTS).reduce((sum, [key, weight]) => sum + weight * sub[key as keyof typeof sub], 0));
    return {
      tvi_score: score,
      tvi_tier: tviTier(score),
      vehicle_score: round1(sub.vehicle),
      transit_score: round1(sub.transit),
      facility_distance_score: round1(sub.facility_distance),
      population_vulnerability_score: round1(sub.population_vulnerability),
      health_outcome_score: round1(sub.health_outcome),
      health_outcome_basis: usePlaces ? 'places' : 'disability_fallback',
      zero_vehicle_pct: noVehicle[i],
      nearest_hospital_miles: scores[i].access.nearestHospitalMiles,
      population: place.population,
      ranked: ranked(i),
    };
  });
}
