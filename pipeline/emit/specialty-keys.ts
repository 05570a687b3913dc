import { specialtyOfTaxonomy, type TaxonomyRow } from '../layouts/providers.ts';
import { CATEGORIES, CATEGORY_NAMES, categoriesOfTaxonomy, type Category } from '../config/specialties.ts';
import { specialtyKey } from '../../core/search-key.ts';

/**
 * Everyday words for groups of specialties that the NUCC code set names differently ("Cardiology" is NUCC's
 * "Cardiovascular Disease", "Interventional Cardiology", ...). Each alias means the clinicians one scoring
 * category counts (pipeline/config/specialties.ts), so `specialty=cardiology` lists the clinicians the
 * cardiology part of the scores counts. docs/api.md has this table.
 */
export const SPECIALTY_ALIASES: Readonly<Record<string, Category>> = {
  'primary care': 'primary_care',
  cardiology: 'cardiology',
  oncology: 'oncology',
  'radiation oncology': 'radiation_oncology',
  endocrinology: 'endocrinology',
  dietetics: 'dietetics',
  neurology: 'neurology',
  geriatrics: 'geriatrics',
  psychiatry: 'psychiatry',
  rheumatology: 'rheumatology',
  orthopaedics: 'orthopaedics',
  orthopedics: 'orthopaedics',
  pulmonology: 'pulmonology',
  allergy: 'allergy',
  pediatrics: 'pediatrics',
  radiology: 'radiology',
  obgyn: 'obgyn',
  'ob gyn': 'obgyn',
  nephrology: 'nephrology',
  urology: 'urology',
  'thoracic surgery': 'thoracic_surgery',
};

/** Where a specialty key comes from, for the `provider_specialties` table. */
export type SpecialtySource = 'nucc_display_name' | 'nucc_classification' | 'nucc_specialization' | 'cms_specialty' | 'alias';

/** One value `specialty=` accepts: its key, the name it was first seen with, and where it comes from. */
export interface SpecialtyName {
  key: string;
  name: string;
  source: SpecialtySource;
}

const ALIASES_OF_CATEGORY = new Map<Category, string[]>();
for (const [alias, category] of Object.entries(SPECIALTY_ALIASES)) {
  ALIASES_OF_CATEGORY.set(category, [...(ALIASES_OF_CATEGORY.get(category) ?? []), alias]);
}

/** The CMS specialty texts of each category, as keys ("CARDIOVASCULAR DISEASE (CARDIOLOGY)" -> `cardiovascular disease cardiology`). */
const CMS_KEYS = new Map(CATEGORY_NAMES.map((c) => [c, new Set((CATEGORIES[c].cms as readonly string[]).map(specialtyKey))]));

/**
 * The specialty names one provider answers to: the name its record shows (the NUCC display name of its primary
 * taxonomy code, specialtyOfTaxonomy), the code's classification and specialization, or, without a known
 * code, its CMS specialty text; plus the aliases of the categories that code or text falls in.
 *
 * NUCC reuses some alias words as a specialization of other professions (Neurology of chiropractors and
 * physical therapists, Oncology of nurses and pharmacists, Pediatrics of nurses, pharmacists and therapists):
 * such a specialization answers to the word only when its code is in the alias's category, so the word means
 * the alias's clinicians, and `specialty=neurology` lists no chiropractor. Its display name still matches.
 */
export function specialtyNames(
  taxonomyCode: string | null,
  specialtyText: string,
  taxonomy: ReadonlyMap<string, Pick<TaxonomyRow, 'classification' | 'specialization' | 'displayName'>>,
): SpecialtyName[] {
  const names: SpecialtyName[] = [];
  const add = (name: string, source: SpecialtySource) => {
    const key = specialtyKey(name);
    if (key !== '' && !names.some((n) => n.key === key)) names.push({ key, name, source });
  };
  const row = taxonomyCode ? taxonomy.get(taxonomyCode) : undefined;
  let categories: Category[];
  if (row) {
    categories = categoriesOfTaxonomy(taxonomyCode);
    add(specialtyOfTaxonomy(row), 'nucc_display_name');
    add(row.classification, 'nucc_classification');
    const key = specialtyKey(row.specialization);
    const aliasOfSpecialization = Object.hasOwn(SPECIALTY_ALIASES, key) ? SPECIALTY_ALIASES[key] : undefined;
    if (row.specialization && (aliasOfSpecialization === undefined || categories.includes(aliasOfSpecialization)))
      add(row.specialization, 'nucc_specialization');
  } else {
    add(specialtyText, 'cms_specialty');
    const key = specialtyKey(specialtyText);
    categories = taxonomyCode ? categoriesOfTaxonomy(taxonomyCode) : CATEGORY_NAMES.filter((c) => CMS_KEYS.get(c)!.has(key));
  }
  for (const category of categories) for (const alias of ALIASES_OF_CATEGORY.get(category) ?? []) add(alias, 'alias');
  return names;
}
