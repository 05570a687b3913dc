/**
 * Where a clinician category's supply comes from in a ZIP (docs/METHODOLOGY.md, "Provider: clinicians within
 * reach"), and the letter `zips.clinician_basis` stores it as, one letter per category in the order
 * `meta.data_quality.clinicians.categories` lists them (docs/schema.md).
 */
export const CLINICIAN_BASIS_LETTERS = {
  /** A roster that covers the country (the national NPPES file). */
  roster: 'r',
  /** A declared uniform sample of such a roster, scaled up. */
  sample: 's',
  /** A count of the category's clinicians for the ZIP's county, tract or ZIP. */
  count: 'c',
  /** An estimate from a total that includes the category (the Dartmouth Atlas's specialists). */
  estimate: 'e',
  /** No source counts the category here: it is left out of the ZIP's scores. */
  none: '-',
} as const;

export type ClinicianBasis = keyof typeof CLINICIAN_BASIS_LETTERS;
export const CLINICIAN_BASES = Object.keys(CLINICIAN_BASIS_LETTERS) as ClinicianBasis[];
const BY_LETTER = new Map<string, ClinicianBasis>(
  Object.entries(CLINICIAN_BASIS_LETTERS).map(([basis, letter]) => [letter, basis as ClinicianBasis]),
);

/** The basis a stored letter stands for (null for a letter of no known basis). */
export function basisOfLetter(letter: string): ClinicianBasis | null {
  return BY_LETTER.get(letter) ?? null;
}
