import type { SourcedValue } from '../ingest/ingested.ts';
import type { ZipPlace } from '../geo/places.ts';
import { NEED_MEASURES, PREVALENCE_NEED, PREVALENCE_WEIGHT, SCORE_TYPES, type ScoreTypeSpec } from '../config/scoring.ts';
import { median } from '../../core/numbers.ts';

/** Social need per ZIP, and which PLACES measures this build has (a measure no ZIP has a value for is absent). */
export interface Need {
  /** Social need per ZIP, 0 (none) to 1 (full), before condition prevalence. */
  base: Float64Array;
  /** Census need measures a ZIP had no value for (they took the national median). */
  imputed: Array<string[]>;
  /** National median prevalence of each PLACES measure the build has; absent measures are not keys. */
  prevalenceMedian: Record<string, number>;
}

/** Social need from the census measures of `NEED_MEASURES`; a missing value takes the national median and is listed. */
export function socialNeed(
  places: ZipPlace[],
  census: Map<string, Map<string, SourcedValue>>,
  prevalence: Map<string, Record<string, number | null>>,
): Need {
  const medians = Object.fromEntries(
    NEED_MEASURES.map(({ measure }) => [
      measure,
      median(
        [...census.values()].map((m) => m.get(measure)?.value),
        0,
      ),
    ]),
  );
  const imputed: string[][] = [];
  const base = Float64Array.from(places, (place, i) => {
    const values = census.get(place.zip);
    let need = 0;
    imputed[i] = [];
    for (const { measure, noNeedAt, fullNeedAt, weight } of NEED_MEASURES) {
      const measured = values?.get(measure)?.value;
      if (measured == null) imputed[i].push(measure);
      const value = measured ?? medians[measure];
      need += weight * Math.min(1, Math.max(0, (value - noNeedAt) / (fullNeedAt - noNeedAt)));
    }
    return need;
  });
  return { base, imputed, prevalenceMedian: prevalenceMedians(prevalence) };
}

/** National median prevalence of each PLACES measure a score type uses and the build has (some row carries a value). */
export function prevalenceMedians(prevalence: Map<string, Record<string, number | null>>): Record<string, number> {
  const medians: Record<string, number> = {};
  for (const type of SCORE_TYPES) {
    if (!type.prevalence || type.prevalence in medians) continue;
    const typical = median(
      [...prevalence.values()].map((p) => p[type.prevalence!]),
      NaN,
    );
    if (Number.isFinite(typical) && typical > 0) medians[type.prevalence] = typical;
  }
  return medians;
}

/**
 * People component: 100 x (1 - need). A condition score blends in its PLACES prevalence relative to the
 * national median (none at half of it or less, full at twice or more) only where the build has that measure
 * and the ZIP has a value for it; otherwise the social need stands alone (`prevalenceUsed` false).
 */
export function peopleScore(
  type: ScoreTypeSpec,
  zip: string,
  i: number,
  need: Need,
  prevalence: Map<string, Record<string, number | null>>,
): { score: number; prevalenceUsed: boolean } {
  const typical = type.prevalence ? need.prevalenceMedian[type.prevalence] : undefined;
  const value = typical === undefined ? null : (prevalence.get(zip)?.[type.prevalence!] ?? null);
  if (value === null || typical === undefined) return { score: 100 * (1 - need.base[i]), prevalenceUsed: false };
  const ratio = value / typical;
  const prevalenceNeed = Math.min(
    1,
    Math.max(0, (ratio - PREVALENCE_NEED.noneAtRatio) / (PREVALENCE_NEED.fullAtRatio - PREVALENCE_NEED.noneAtRatio)),
  );
  return { score: 100 * (1 - ((1 - PREVALENCE_WEIGHT) * need.base[i] + PREVALENCE_WEIGHT * prevalenceNeed)), prevalenceUsed: true };
}
