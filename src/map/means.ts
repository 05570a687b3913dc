/** The score of an area (a county, a state): the residents-weighted mean of its ZIP codes' scores. */
export interface AreaMean {
  /** Rounded to an integer as the API's scores are; null when no ZIP code of the area has both a score and residents. */
  score: number | null;
  /** ZIP codes in the area, and those with a score. */
  zips: number;
  scored: number;
  /** Residents of the area's ZIP codes, and of those with a score. */
  residents: number;
  scoredResidents: number;
}

/**
 * Residents-weighted means by area: each area's score is the sum of its ZIP codes' scores times their
 * residents over the residents of its scored ZIP codes. ZIP codes without a score are left out (and counted
 * apart); ZIP codes without residents weigh nothing; `areaOf` returns -1 for a ZIP code in no area.
 */
export function areaMeans<Z extends { residents: number }>(
  zips: readonly Z[],
  scores: ReadonlyArray<number | null>,
  areaOf: (zip: Z) => number,
  areaCount: number,
): AreaMean[] {
  const weighted = new Float64Array(areaCount);
  const means: AreaMean[] = Array.from({ length: areaCount }, () => ({
    score: null,
    zips: 0,
    scored: 0,
    residents: 0,
    scoredResidents: 0,
  }));
  zips.forEach((zip, i) => {
    const area = areaOf(zip);
    if (area < 0) return;
    const mean = means[area];
    mean.zips++;
    mean.residents += zip.residents;
    const score = scores[i];
    if (score === null) return;
    mean.scored++;
    mean.scoredResidents += zip.residents;
    weighted[area] += score * zip.residents;
  });
  means.forEach((mean, area) => {
    if (mean.scoredResidents > 0) mean.score = Math.round(weighted[area] / mean.scoredResidents);
  });
  return means;
}
