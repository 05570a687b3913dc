/**
 * The composite as docs/METHODOLOGY.md states it, written out independently of pipeline/score/composite.ts:
 * access = weighted mean of the components present (provider 0.35, hospital 0.30, travel 0.20),
 * healthscore = round half up of access x (0.55 + 0.45 x people / 100).
 */
export function documentedHealthscore(r: {
  people_score: number;
  provider_score: number | null;
  hospital_score: number;
  travel_score: number;
}): number {
  const parts: Array<[number, number]> = [
    [0.3, r.hospital_score],
    [0.2, r.travel_score],
  ];
  if (r.provider_score !== null) parts.push([0.35, r.provider_score]);
  const access = parts.reduce((sum, [w, c]) => sum + w * c, 0) / parts.reduce((sum, [w]) => sum + w, 0);
  // The epsilon absorbs float error at exact halves (the pipeline computes in integers).
  return Math.floor(access * (0.55 + (0.45 * r.people_score) / 100) + 0.5 + 1e-9);
}
