/**
 * CDC PLACES ZCTA estimates (GIS-friendly wide layout): model-based crude prevalences that move with age,
 * deprivation and urbanity the way the real ones do (older places: more arthritis, heart disease, cancer;
 * poorer places: more diabetes, smoking, COPD, obesity, lack of insurance).
 */
import { join } from 'node:path';
import type { Geography } from './geography.ts';
import type { Demographics } from './census-model.ts';
import { ISLAND_AREAS } from './states.ts';
import { PLACES_MEASURES as MEASURES } from '../../pipeline/layouts/places.ts';
import { Rng, clamp } from './prng.ts';
import { writeLines } from './writer.ts';

/** Measures written, in column order: the layout's measures, with ACCESS2 (uninsured) first as in the CDC file. */
export const PLACES_MEASURES = ['ACCESS2', ...MEASURES.filter((m) => m !== 'ACCESS2')] as const;
/** PLACES header. */
export const PLACES_HEADER = ['ZCTA5', 'TotalPopulation', ...PLACES_MEASURES.map((m) => `${m}_CrudePrev`)].join(',');

/** Writes places/places_zcta_2023.csv for ZCTAs of the 50 states and DC with people (about 97%). */
export async function writePlaces(outDir: string, geo: Geography, demo: readonly Demographics[], seed: number): Promise<number> {
  const rng = new Rng(seed, 'places');
  const lines: string[] = [];
  for (const z of geo.zctas) {
    const d = demo[z.index]!;
    // PLACES covers the 50 states and DC; a few small ZCTAs have no estimates.
    if (ISLAND_AREAS.has(z.state) || z.state === 'PR' || d.population === 0 || rng.chance(0.012)) continue;
    const age = d.pct65 - 17;
    const dep = d.deprivation;
    const u = z.urbanity;
    const noise = (sd: number) => sd * rng.normal();
    const smoking = clamp(14 + 3.5 * dep - 3 * (u - 0.4) + noise(1.5), 3, 40);
    const values = [
      clamp(d.uninsured * 1.3 + noise(1.2), 2, 50),
      clamp(26 + 0.5 * age + 2.5 * dep + noise(1.5), 10, 50),
      clamp(32 + 0.55 * age + 3.5 * dep + 0.05 * d.black + noise(1.5), 15, 60),
      clamp(7 + 0.25 * age - 0.4 * dep + noise(0.5), 2, 20),
      clamp(10 + 0.9 * dep + noise(0.5), 6, 17),
      clamp(6 + 0.22 * age + 1.1 * dep + noise(0.5), 1.5, 20),
      clamp(7 + 0.18 * age + 0.25 * (smoking - 14) + 1.2 * dep + noise(0.6), 2, 25),
      clamp(11 + 0.22 * age + 2.4 * dep + 0.03 * d.hispanic + noise(0.8), 4, 30),
      clamp(34 + 3.5 * dep - 4 * (u - 0.4) + noise(1.8), 15, 55),
      smoking,
      clamp(21 + 1.5 * dep - 2 * (u - 0.4) + noise(1.2), 10, 35),
    ];
    lines.push([z.code, d.population, ...values.map((v) => v.toFixed(1))].join(','));
  }
  return writeLines(join(outDir, 'places/places_zcta_2023.csv'), PLACES_HEADER, lines);
}
