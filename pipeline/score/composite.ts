import { COMPOSITE_WEIGHTS, PEOPLE_FLOOR } from '../config/scoring.ts';

/** The four component scores of one ZIP and score type, each an integer 0-100; provider is null when not measured. */
export interface Components {
  people: number;
  provider: number | null;
  hospital: number;
  travel: number;
}

// The people floor in hundredths (55), so the composite is exact integer arithmetic with no float rounding.
const FLOOR_PERCENT = Math.round(PEOPLE_FLOOR * 100);

/**
 * healthscore = round_half_up(access x (0.55 + 0.45 x people / 100)), where access is the weighted mean
 * (7 provider, 6 hospital, 4 travel) of the components present. In integers: with S = sum of weight x
 * component and W = sum of weights, healthscore = round(S x (5500 + 45 x people) / (10000 W)).
 */
export function composite(c: Components): number {
  let sum = COMPOSITE_WEIGHTS.hospital * c.hospital + COMPOSITE_WEIGHTS.travel * c.travel;
  let weights = COMPOSITE_WEIGHTS.hospital + COMPOSITE_WEIGHTS.travel;
  if (c.provider !== null) {
    sum += COMPOSITE_WEIGHTS.provider * c.provider;
    weights += COMPOSITE_WEIGHTS.provider;
  }
  const numerator = sum * (FLOOR_PERCENT * 100 + (100 - FLOOR_PERCENT) * c.people);
  const denominator = 10_000 * weights;
  // round half up of numerator / denominator, in integers.
  return Math.floor((2 * numerator + denominator) / (2 * denominator));
}
