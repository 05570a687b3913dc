import { NP_PA_PRIMARY_CARE_WEIGHT } from '../config/scoring.ts';
import { CATEGORY_NAMES, categoriesOfCmsSpecialty, categoriesOfTaxonomy, isPrimaryCareNpPa, type Category } from '../config/specialties.ts';

/**
 * Clinicians per scoring category practising in each ZIP by the rosters: NPPES providers by primary taxonomy
 * (counted while staging), clinicians known only from Doctors and Clinicians by their CMS specialty. A primary
 * care NP or PA counts NP_PA_PRIMARY_CARE_WEIGHT of a clinician in primary care (and one in any other category).
 */
export function rosterSupply(
  counts: ReadonlyArray<{ zcta: string; taxonomy: string; count: number }>,
  clinicianOnly: ReadonlyArray<{ zcta: string; specialty: string; n: number }>,
  zipIndex: ReadonlyMap<string, number>,
): Record<Category, Float64Array> {
  const supply = Object.fromEntries(CATEGORY_NAMES.map((c) => [c, new Float64Array(zipIndex.size)])) as Record<Category, Float64Array>;
  const add = (zcta: string, categories: Category[], count: number, npPa: boolean) => {
    const i = zipIndex.get(zcta);
    if (i === undefined) return;
    for (const category of categories)
      supply[category][i] += category === 'primary_care' && npPa ? count * NP_PA_PRIMARY_CARE_WEIGHT : count;
  };
  for (const row of counts) add(row.zcta, categoriesOfTaxonomy(row.taxonomy || null), row.count, isPrimaryCareNpPa(row.taxonomy || null));
  for (const row of clinicianOnly) add(row.zcta, categoriesOfCmsSpecialty(row.specialty), row.n, isPrimaryCareNpPa(null, row.specialty));
  return supply;
}
