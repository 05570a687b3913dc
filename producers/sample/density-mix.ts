/**
 * The workforce mix of the synthetic providers the default build uses over real geography: clinicians of
 * every scored taxonomy at the documented national density (pipeline/config/scoring.ts EXPECTED_DENSITY,
 * clinicians per 100,000 residents), split over NUCC codes so each category sums to its density; every
 * other kind of NPPES individual (nurses, pharmacists, therapists ...) in its usual proportion to them
 * (provider-mix.ts). Shares are in clinicians per 100,000 residents.
 */
import { PROVIDER_KINDS, type ProviderKind } from './provider-mix.ts';
import { categoriesOfTaxonomy } from '../../pipeline/config/specialties.ts';

const MD = ['MD', 'MD', 'MD', 'M.D.', 'DO', 'D.O.', 'MD, PHD', ''];
const NP = ['NP', 'FNP', 'APRN', 'CRNP', 'DNP, APRN'];

/** Scored NUCC codes and their density; a code in two categories (208000000X: primary care and paediatrics) counts in both. */
export const DENSITY_BY_TAXONOMY: Readonly<Record<string, number>> = {
  // Primary care 220: physicians, primary care NPs, PAs.
  '207Q00000X': 34,
  '207QA0505X': 0.5,
  '207R00000X': 35,
  '208D00000X': 2,
  '208000000X': 18,
  '363LF0000X': 62,
  '363LA2200X': 8,
  '363LP2300X': 4,
  '363LP0200X': 4,
  '363A00000X': 40,
  '363AM0700X': 12.5,
  // Geriatrics 2.5 (2084P0805X also psychiatry).
  '207QG0300X': 0.6,
  '207RG0300X': 1.1,
  '363LG0600X': 0.5,
  '2084P0805X': 0.3,
  // Psychiatry 18.
  '2084P0800X': 11.7,
  '363LP0808X': 6,
  // Paediatrics 24 (208000000X above; subspecialties below also count for their own category).
  '2080P0205X': 0.3,
  '2080P0214X': 0.4,
  '2080P0207X': 0.8,
  '2080N0001X': 1.8,
  '2080P0202X': 0.9,
  '2080P0204X': 0.8,
  '2080P0203X': 0.8,
  '2080A0000X': 0.2,
  '207RE0101X': 2.5, // endocrinology 2.8 with paediatric endocrinology
  '133V00000X': 22, // dietetics
  '2084N0400X': 4.4,
  '2084N0402X': 0.5,
  '2084B0040X': 0.1, // neurology 5
  '207RR0500X': 1.9, // rheumatology
  '207X00000X': 5.2,
  '207XS0114X': 0.3,
  '207XX0005X': 0.5, // orthopaedics 6
  '207RP1001X': 2.3,
  '207RC0200X': 1.8, // pulmonology 4.5 with paediatric pulmonology
  '207K00000X': 1.2,
  '207KA0200X': 0.2, // allergy 1.4
  '207RH0003X': 3.8,
  '207RX0202X': 0.8,
  '207RH0000X': 0.3,
  '2086X0206X': 0.3, // oncology 6 with paediatric haematology-oncology
  '2085R0001X': 1.6, // radiation oncology
  '2085R0202X': 8.3,
  '2085B0100X': 0.2, // radiology 8.5
  '207V00000X': 12.5,
  '207VX0000X': 0.3,
  '207VG0400X': 0.2,
  '363LW0102X': 3, // obstetrics and gynaecology 16
  '207RC0000X': 6.8,
  '207RI0011X': 1.2,
  '207RC0001X': 0.5, // cardiology 8.5
  '207RN0300X': 3.3, // nephrology
  '208800000X': 2.9,
  '2088P0231X': 0.1, // urology 3
  '208G00000X': 1.4, // thoracic surgery
};

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
  physician('2084P0805X', 'GERIATRIC PSYCHIATRY', 'specialist', 0.5),
  physician('2080P0205X', 'PEDIATRIC MEDICINE', 'specialist', 0.6),
  physician('2080P0214X', 'PEDIATRIC MEDICINE', 'specialist', 0.5),
  physician('2080P0207X', 'PEDIATRIC MEDICINE', 'specialist', 0.55),
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
  physician('207VG0400X', 'OBSTETRICS/GYNECOLOGY', 'specialist', 0.7),
  physician('207RC0001X', 'CLINICAL CARDIAC ELECTROPHYSIOLOGY', 'specialist', 0.1),
  physician('2088P0231X', 'UROLOGY', 'specialist', 0.2),
  physician('208G00000X', 'THORACIC SURGERY', 'hospital', 0.1),
];

/**
 * The mix with shares in clinicians per 100,000 residents: scored codes at their density, every other kind
 * scaled so that its ratio to the scored clinicians is the general mix's.
 */
export function densityMix(): ProviderKind[] {
  const kinds = [...PROVIDER_KINDS, ...EXTRA_KINDS];
  const scored = (k: ProviderKind) => categoriesOfTaxonomy(k.taxonomy).length > 0;
  for (const code of Object.keys(DENSITY_BY_TAXONOMY)) {
    if (!kinds.some((k) => k.taxonomy === code)) throw new Error(`density mix: no provider kind for ${code}`);
  }
  const unpriced = kinds.filter((k) => scored(k) && DENSITY_BY_TAXONOMY[k.taxonomy] === undefined);
  if (unpriced.length) throw new Error(`density mix: scored kinds without a density: ${unpriced.map((k) => k.taxonomy).join(', ')}`);
  const oldScoredShare = PROVIDER_KINDS.filter(scored).reduce((sum, k) => sum + k.share, 0);
  const scoredDensity = Object.values(DENSITY_BY_TAXONOMY).reduce((a, b) => a + b, 0);
  const scale = scoredDensity / oldScoredShare;
  return kinds.map((k) => ({ ...k, share: scored(k) ? DENSITY_BY_TAXONOMY[k.taxonomy]! : k.share * scale }));
}

/** Individual NPPES providers per 100,000 residents in the mix. */
export function mixDensity(kinds: readonly ProviderKind[]): number {
  return kinds.reduce((sum, k) => sum + k.share, 0);
}
