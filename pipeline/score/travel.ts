import { CARE_MINUTES, SPECIALIST_MINUTES, TRAVEL_WEIGHTS } from '../config/scoring.ts';
import { mobilityScore } from './mobility.ts';
import { linearScore } from './scale.ts';

/**
 * Travel component: how soon a resident reaches care and whether they can travel at all. Care is half the
 * minutes to the nearest place of primary care, half the minutes to specialist care (the nearest clinician
 * of the score type's specialties when the provider files are measured, else the nearest major hospital).
 * Mobility is the share of households with neither a vehicle nor transit (see mobility.ts).
 */
export function travelScore(primaryCareMinutes: number, specialistMinutes: number, mobilityGapPct: number): number {
  const primary = linearScore(primaryCareMinutes, CARE_MINUTES.fullAt, CARE_MINUTES.zeroAt);
  const specialist = linearScore(specialistMinutes, SPECIALIST_MINUTES.fullAt, SPECIALIST_MINUTES.zeroAt);
  return (TRAVEL_WEIGHTS.care * (primary + specialist)) / 2 + TRAVEL_WEIGHTS.mobility * mobilityScore(mobilityGapPct);
}
