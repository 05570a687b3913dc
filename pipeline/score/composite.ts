import { COMPOSITE_WEIGHTS } from './config.ts';

/** The four component scores of one ZIP and score type, each an integer 0-100. */
export interface Components {
  people: number;
  provider: number;
  hospital: number;
  travel: number;
}

// The weights in twentieths (4, 7, 5, 4), so the composite is exact integer arithmetic with no float rounding.
const TWENTIETHS = {
  people: Math.round(COMPOSITE_WEIGHTS.people * 20),
  provider: Math.round(COMPOSITE_WEIGHTS.provider * 20),
  hospital: Math.round(COMPOSITE_WEIGHTS.hospital * 20),
  travel: Math.round(COMPOSITE_WEIGHTS.travel * 20),
};

/** healthscore = 0.20 people + 0.35 provider + 0.25 hospital + 0.20 travel, rounded half up. */
export function composite(c: Components): number {
  const sum = TWENTIETHS.people * c.people + TWENTIETHS.provider * c.provider + TWENTIETHS.hospital * c.hospital + TWENTIETHS.travel * c.travel;
  return Math.floor((sum + 10) / 20);
}
