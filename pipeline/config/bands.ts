/**
 * The one band table (decisions.md, "Scores"): label, grade and colour for any 0-100 score, used for every
 * score type and for state averages. Cut points follow Walk Score. Colours are one per grade on the
 * colour-blind-safe ColorBrewer "RdYlBu" diverging ramp read from low (red) to high (blue), which keeps
 * adjacent grades distinguishable under deuteranopia and protanopia.
 */
export interface Band {
  min: number;
  label: string;
  grade: string;
  color: string;
}

/** Ordered from the highest band down; the first band whose `min` the score reaches applies. */
export const BANDS: readonly Band[] = [
  { min: 95, label: 'Healthcare Paradise', grade: 'A+', color: '#313695' },
  { min: 90, label: 'Healthcare Paradise', grade: 'A', color: '#4575b4' },
  { min: 80, label: 'Excellent Access', grade: 'B+', color: '#74add1' },
  { min: 70, label: 'Excellent Access', grade: 'B', color: '#abd9e9' },
  { min: 60, label: 'Moderate Access', grade: 'C+', color: '#fee090' },
  { min: 50, label: 'Moderate Access', grade: 'C', color: '#fdae61' },
  { min: 37, label: 'Limited Access', grade: 'D+', color: '#f46d43' },
  { min: 25, label: 'Limited Access', grade: 'D', color: '#d73027' },
  { min: 0, label: 'Healthcare Desert', grade: 'F', color: '#a50026' },
];

/** The band of an integer score 0-100; throws on anything else so a scoring bug cannot hide. */
export function bandFor(score: number): Band {
  if (!Number.isInteger(score) || score < 0 || score > 100) {
    throw new RangeError(`score must be an integer from 0 to 100, got ${score}`);
  }
  return BANDS.find((band) => score >= band.min)!;
}
