import type { ScoredHospital } from '../facilities/hospitals.ts';
import type { ZipPlace } from '../geo/places.ts';
import { PointIndex } from '../geo/point-index.ts';
import { BEDS_BENCHMARK, CARE_MINUTES, HOSPITAL_WEIGHTS, RATING_RADIUS_MILES, SPECIALIST_MINUTES } from '../config/scoring.ts';
import type { Minutes } from './reach.ts';
import { linearScore, logScore } from './scale.ts';

/** The parts of the hospital component for one ZIP (0-100 each; quality null when no rated hospital is in reach). */
export interface HospitalParts {
  beds: number;
  emergency: number;
  major: number;
  quality: number | null;
}

/**
 * Hospital component parts per ZIP: staffed beds per 1,000 within reach (E2SFCA accessibility, passed in),
 * minutes to the nearest emergency department and to the nearest major hospital, and the mean CMS star
 * rating of rated hospitals within `RATING_RADIUS_MILES`.
 */
export function hospitalParts(
  places: ZipPlace[],
  hospitals: ScoredHospital[],
  bedAccess: Float64Array,
  emergency: Minutes,
  major: Minutes,
): HospitalParts[] {
  const rated = hospitals.filter((h) => h.rating !== null);
  const ratedIndex = new PointIndex(
    Float64Array.from(rated, (h) => h.longitude),
    Float64Array.from(rated, (h) => h.latitude),
  );
  return places.map((place, i) => {
    const ratings = ratedIndex.within(place.longitude, place.latitude, RATING_RADIUS_MILES).map((hit) => rated[hit.id].rating!);
    return {
      beds: logScore(bedAccess[i] * 1000, BEDS_BENCHMARK),
      emergency: linearScore(emergency.minutes[i], CARE_MINUTES.fullAt, CARE_MINUTES.zeroAt),
      major: linearScore(major.minutes[i], SPECIALIST_MINUTES.fullAt, SPECIALIST_MINUTES.zeroAt),
      quality: ratings.length ? ((ratings.reduce((a, b) => a + b, 0) / ratings.length - 1) / 4) * 100 : null,
    };
  });
}

/** The hospital component from its parts: the weighted mean of the parts present (quality may be absent). */
export function hospitalScore(parts: HospitalParts): number {
  let sum = HOSPITAL_WEIGHTS.beds * parts.beds + HOSPITAL_WEIGHTS.emergency * parts.emergency + HOSPITAL_WEIGHTS.major * parts.major;
  let weight = HOSPITAL_WEIGHTS.beds + HOSPITAL_WEIGHTS.emergency + HOSPITAL_WEIGHTS.major;
  if (parts.quality !== null) {
    sum += HOSPITAL_WEIGHTS.quality * parts.quality;
    weight += HOSPITAL_WEIGHTS.quality;
  }
  return sum / weight;
}
