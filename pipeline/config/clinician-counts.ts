import { NP_PA_PRIMARY_CARE_WEIGHT } from './scoring.ts';
import { CATEGORY_NAMES, type Category } from './specialties.ts';

/**
 * What a clinician count file may count, by the name a manifest maps a column to (`columns`), and the
 * category and weight each counted clinician adds to: the totals public files publish (County Health Rankings,
 * the Area Health Resources File, the Dartmouth Atlas), and each scoring category by its own name for a file
 * that counts one (a state licensing board's cardiologists per county). `specialist_physicians` is a total of
 * every physician specialty: it adds to no category itself, and the specialist categories are estimated from
 * it where nothing counts them (config/scoring.ts ESTIMATED_FROM).
 */
export const COUNT_KINDS: Readonly<Record<string, { category: Category | null; weight: number; description: string }>> = {
  primary_care_physicians: {
    category: 'primary_care',
    weight: 1,
    description: 'physicians in family medicine, general practice, internal medicine and paediatrics',
  },
  primary_care_np_pa: {
    category: 'primary_care',
    weight: NP_PA_PRIMARY_CARE_WEIGHT,
    description: 'nurse practitioners and physician assistants in primary care',
  },
  mental_health_providers: { category: 'behavioral_health', weight: 1, description: 'mental health providers' },
  dentists: { category: 'dentistry', weight: 1, description: 'dentists' },
  specialist_physicians: { category: null, weight: 1, description: 'physicians of every specialty other than primary care' },
  ...Object.fromEntries(
    CATEGORY_NAMES.filter((c) => c !== 'primary_care' && c !== 'behavioral_health' && c !== 'dentistry').map((c) => [
      c,
      { category: c, weight: 1, description: c.replace(/_/g, ' ') },
    ]),
  ),
};

export type CountKind = string;
export const COUNT_KIND_NAMES: readonly string[] = Object.keys(COUNT_KINDS);

/**
 * Whose tracts a kind's county count follows within the county when no file counts that kind per tract or ZIP:
 * nurse practitioners, physician assistants, mental health providers and dentists practise in the towns where
 * primary care physicians do (clinics, health centres, the county seat), not spread over every farm, so the
 * Dartmouth Atlas's primary care physicians per tract say more of where they are than the residents do. A kind
 * not listed, or a county without that pattern, follows its residents.
 */
export const PLACED_LIKE: Readonly<Record<string, string>> = {
  primary_care_np_pa: 'primary_care_physicians',
  mental_health_providers: 'primary_care_physicians',
  dentists: 'primary_care_physicians',
};
