/**
 * The workforce mix of the synthetic providers the default build uses over real geography. The clinicians the
 * scores count follow the real counts (clinician-plan.ts): each group below draws its NUCC codes in proportion
 * to their weights, as many as its count, estimate or roster gives each county times the sample fraction.
 * Every other kind of NPPES individual (nurses, pharmacists, therapists, the physician specialties the scores do
 * not count ...) and the scored codes no real file counts keep the national densities they had before the
 * counts, placed as before (NATIONAL_DENSITY). Densities are clinicians per 100,000 residents.
 */
import { PROVIDER_KINDS, type ProviderKind } from './provider-mix.ts';
import { COUNT_KINDS } from '../../pipeline/config/clinician-counts.ts';
import { EXPECTED_DENSITY } from '../../pipeline/config/scoring.ts';
import { categoriesOfTaxonomy, isPrimaryCareNpPa, type Category } from '../../pipeline/config/specialties.ts';

const MD = ['MD', 'MD', 'MD', 'M.D.', 'DO', 'D.O.', 'MD, PHD', ''];
const NP = ['NP', 'FNP', 'APRN', 'CRNP', 'DNP, APRN'];

/** What a group of synthetic clinicians follows: a county count of one kind, or a category's estimate (or its roster, where one is complete). */
export type Follows = { count: string } | { estimate: Category };

/** A group of synthetic clinicians: what it follows, and its codes with their weights within it. */
export interface ClinicianGroup {
  follows: Follows;
  codes: Readonly<Record<string, number>>;
}

/**
 * The groups, in the order they are drawn. Weights are the national densities the mix had before the counts
 * (AAMC, BLS), which now only split each group. Each code is drawn by one group, and two groups meet in two
 * places (clinician-plan.ts): the psychiatrists, as the specialists' estimate places them, are drawn among the
 * mental health providers, whose count holds all their codes; the general paediatricians among the primary
 * care physicians are also part of paediatrics, whose own codes make up the rest of its estimate. Codes of two
 * estimated categories at once (paediatric endocrinologists, geriatric psychiatrists) are not drawn: no county
 * could follow both estimates.
 */
export const CLINICIAN_GROUPS: readonly ClinicianGroup[] = [
  {
    follows: { count: 'primary_care_physicians' },
    codes: { '207Q00000X': 34, '207QA0505X': 0.5, '207R00000X': 35, '208D00000X': 2, '208000000X': 18 },
  },
  {
    follows: { count: 'primary_care_np_pa' },
    codes: { '363LF0000X': 62, '363L00000X': 23.6, '363LP2300X': 4, '363LP0200X': 4, '363A00000X': 40, '363AM0700X': 12.5 },
  },
  {
    follows: { count: 'mental_health_providers' },
    codes: { '1041C0700X': 28.3, '101YP2500X': 18.9, '101YM0800X': 14.2, '103T00000X': 18.9, '106H00000X': 7.6, '2084P0804X': 2.8 },
  },
  { follows: { estimate: 'psychiatry' }, codes: { '2084P0800X': 12, '363LP0808X': 6 } },
  { follows: { count: 'dentists' }, codes: { '1223G0001X': 28.3, '122300000X': 14.2, '1223X0400X': 4.7 } },
  {
    follows: { estimate: 'pediatrics' },
    codes: { '2080N0001X': 1.8, '2080P0202X': 0.9, '2080P0204X': 0.8, '2080P0203X': 0.8, '2080A0000X': 0.2 },
  },
  { follows: { estimate: 'geriatrics' }, codes: { '207QG0300X': 0.6, '207RG0300X': 1.1, '363LG0600X': 0.5 } },
  { follows: { estimate: 'endocrinology' }, codes: { '207RE0101X': 2.5 } },
  { follows: { estimate: 'neurology' }, codes: { '2084N0400X': 4.4, '2084N0402X': 0.5, '2084B0040X': 0.1 } },
  { follows: { estimate: 'rheumatology' }, codes: { '207RR0500X': 1.9 } },
  { follows: { estimate: 'orthopaedics' }, codes: { '207X00000X': 5.2, '207XS0114X': 0.3, '207XX0005X': 0.5 } },
  { follows: { estimate: 'pulmonology' }, codes: { '207RP1001X': 2.3, '207RC0200X': 1.8 } },
  { follows: { estimate: 'allergy' }, codes: { '207K00000X': 1.2, '207KA0200X': 0.2 } },
  { follows: { estimate: 'oncology' }, codes: { '207RH0003X': 3.8, '207RX0202X': 0.8, '207RH0000X': 0.3, '2086X0206X': 0.3 } },
  { follows: { estimate: 'radiation_oncology' }, codes: { '2085R0001X': 1.6 } },
  { follows: { estimate: 'radiology' }, codes: { '2085R0202X': 8.3, '2085B0100X': 0.2 } },
  { follows: { estimate: 'obgyn' }, codes: { '207V00000X': 12.5, '207VX0000X': 0.3 } },
  { follows: { estimate: 'cardiology' }, codes: { '207RC0000X': 6.8, '207RI0011X': 1.2, '207RC0001X': 0.5 } },
  { follows: { estimate: 'nephrology' }, codes: { '207RN0300X': 3.3 } },
  { follows: { estimate: 'urology' }, codes: { '208800000X': 2.9, '2088P0231X': 0.1 } },
  { follows: { estimate: 'thoracic_surgery' }, codes: { '208G00000X': 1.4 } },
];

/** Per 100,000 residents per share point of provider-mix.ts: the density every kind no file counts had before the counts. */
const DENSITY_PER_SHARE = 9.44;

/**
 * Scored codes no real file counts, at a national density of their own: dietitians at the documented density
 * (the whole of dietetics), women's health nurse practitioners (part of obstetrics and gynaecology) and adult
 * health nurse practitioners (outside County Health Rankings' eight primary care codes) as before the counts.
 */
const NATIONAL_DENSITY: Readonly<Record<string, number>> = {
  '133V00000X': EXPECTED_DENSITY.dietetics,
  '363LW0102X': 3,
  '363LA2200X': 8,
};

/** Whether a group's count counts a code: a count kind the codes of its category (primary care split into physicians and NPs and PAs), an estimate its category's codes. */
export function groupCounts(follows: Follows, code: string): boolean {
  if ('estimate' in follows) return categoriesOfTaxonomy(code).includes(follows.estimate);
  const { category } = COUNT_KINDS[follows.count];
  return (
    category !== null &&
    categoriesOfTaxonomy(code).includes(category) &&
    (follows.count === 'primary_care_np_pa') === isPrimaryCareNpPa(code)
  );
}

function physician(taxonomy: string, spec: string, placement: ProviderKind['placement'], female: number): ProviderKind {
  return { taxonomy, share: 0, placement, credentials: MD, dac: { cred: 'MD', spec }, secondary: [], female };
}

/** Scored codes that the general mix (provider-mix.ts) does not list. */
const EXTRA_KINDS: readonly ProviderKind[] = [
  {
    taxonomy: '363LP2300X',
    share: 0,
    placement: 'primary',
    credentials: NP,
    dac: { cred: 'NP', spec: 'NURSE PRACTITIONER' },
    secondary: ['363LF0000X'],
    female: 0.9,
  },
  {
    taxonomy: '363LG0600X',
    share: 0,
    placement: 'primary',
    credentials: NP,
    dac: { cred: 'NP', spec: 'NURSE PRACTITIONER' },
    secondary: ['363LA2200X'],
    female: 0.9,
  },
  {
    taxonomy: '363LW0102X',
    share: 0,
    placement: 'community',
    credentials: NP,
    dac: { cred: 'NP', spec: 'NURSE PRACTITIONER' },
    secondary: ['363LF0000X'],
    female: 0.98,
  },
  physician('2080N0001X', 'PEDIATRIC MEDICINE', 'hospital', 0.6),
  physician('2080P0202X', 'PEDIATRIC MEDICINE', 'specialist', 0.4),
  physician('2080P0204X', 'PEDIATRIC MEDICINE', 'hospital', 0.55),
  physician('2080P0203X', 'PEDIATRIC MEDICINE', 'hospital', 0.5),
  physician('2080A0000X', 'PEDIATRIC MEDICINE', 'primary', 0.7),
  physician('2084N0402X', 'NEUROLOGY', 'specialist', 0.55),
  physician('2084B0040X', 'NEUROLOGY', 'specialist', 0.4),
  physician('207XS0114X', 'ORTHOPEDIC SURGERY', 'specialist', 0.05),
  physician('207XX0005X', 'ORTHOPEDIC SURGERY', 'specialist', 0.15),
  physician('207KA0200X', 'ALLERGY/IMMUNOLOGY', 'specialist', 0.45),
  physician('207RH0000X', 'HEMATOLOGY', 'specialist', 0.4),
  physician('2085B0100X', 'DIAGNOSTIC RADIOLOGY', 'specialist', 0.3),
  physician('207RC0001X', 'CLINICAL CARDIAC ELECTROPHYSIOLOGY', 'specialist', 0.1),
  physician('2088P0231X', 'UROLOGY', 'specialist', 0.2),
  physician('208G00000X', 'THORACIC SURGERY', 'hospital', 0.1),
];

/** The mix: every kind of individual provider, with `share` its national density where it keeps one (0 for the codes the groups draw). */
export function densityMix(): ProviderKind[] {
  const kinds = [...PROVIDER_KINDS, ...EXTRA_KINDS];
  const grouped = new Set(CLINICIAN_GROUPS.flatMap((g) => Object.keys(g.codes)));
  for (const code of [...grouped, ...Object.keys(NATIONAL_DENSITY)])
    if (!kinds.some((k) => k.taxonomy === code)) throw new Error(`density mix: no provider kind for ${code}`);
  return kinds.map((k) => ({
    ...k,
    share: grouped.has(k.taxonomy)
      ? 0
      : (NATIONAL_DENSITY[k.taxonomy] ?? (categoriesOfTaxonomy(k.taxonomy).length ? 0 : k.share * DENSITY_PER_SHARE)),
  }));
}

/** Individual NPPES providers per 100,000 residents at the national densities of the mix (the kinds no file counts). */
export function mixDensity(kinds: readonly ProviderKind[]): number {
  return kinds.reduce((sum, k) => sum + k.share, 0);
}
