/**
 * The nurse practitioners and physician assistants in primary care, by the NUCC codes of County Health
 * Rankings measure v131 (NPPES) and the CMS specialty the Doctors and Clinicians file gives them. They count in
 * primary care at a weight below a physician's (config/scoring.ts NP_PA_PRIMARY_CARE_WEIGHT).
 */
export const PRIMARY_CARE_NP_PA = {
  codes: ['363L00000X', '363LC1500X', '363LF0000X', '363LX0001X', '363LP0200X', '363LP2300X', '363A00000X', '363AM0700X'],
  cms: ['NURSE PRACTITIONER', 'PHYSICIAN ASSISTANT'],
} as const;

/**
 * Clinician categories the scores count, defined by NUCC taxonomy codes (a trailing `*` matches a prefix)
 * and, for clinicians known only from the Doctors and Clinicians file, by its CMS specialty text.
 */
export const CATEGORIES = {
  // Physicians in family medicine, general practice, internal medicine and paediatrics (the Area Health Resources
  // File's primary care physicians), and the nurse practitioners and physician assistants County Health Rankings
  // counts in primary care (measure v131's eight codes, PRIMARY_CARE_NP_PA), who count at NP_PA_PRIMARY_CARE_WEIGHT.
  primary_care: {
    codes: ['207Q00000X', '207QA0505X', '207R00000X', '208D00000X', '208000000X', ...PRIMARY_CARE_NP_PA.codes],
    cms: [
      'FAMILY PRACTICE',
      'FAMILY MEDICINE',
      'INTERNAL MEDICINE',
      'GENERAL PRACTICE',
      'PEDIATRIC MEDICINE',
      'PEDIATRICS',
      ...PRIMARY_CARE_NP_PA.cms,
    ],
  },
  // Mental health providers as County Health Rankings counts them (measure v062's 27 NPPES codes): psychiatrists,
  // psychologists, clinical social workers, counsellors, marriage and family therapists, psychiatric NPs and CNSs.
  behavioral_health: {
    codes: [
      '2084P0800X',
      '2084P0804X',
      '2084P0805X',
      '2084A0401X',
      '2084P0802X',
      '103T00000X',
      '103TC2200X',
      '103TB0200X',
      '103TC1900X',
      '103TF0000X',
      '103TS0200X',
      '103TC0700X',
      '103TA0400X',
      '1041C0700X',
      '363LP0808X',
      '364SP0807X',
      '364SP0808X',
      '364SP0809X',
      '364SP0810X',
      '364SP0811X',
      '364SP0812X',
      '364SP0813X',
      '101Y00000X',
      '101YA0400X',
      '101YM0800X',
      '101YP2500X',
      '106H00000X',
    ],
    cms: [
      'PSYCHIATRY',
      'GERIATRIC PSYCHIATRY',
      'CLINICAL PSYCHOLOGIST',
      'PSYCHOLOGIST, CLINICAL',
      'LICENSED CLINICAL SOCIAL WORKER',
      'CLINICAL SOCIAL WORKER',
      'MARRIAGE AND FAMILY THERAPIST',
      'MENTAL HEALTH COUNSELOR',
    ],
  },
  // Dentists of every specialty (NUCC 1223*), as the Area Health Resources File counts dentists with an NPI.
  dentistry: { codes: ['1223*'], cms: ['ORAL SURGERY (DENTIST ONLY)', 'DENTIST'] },
  endocrinology: { codes: ['207RE0101X', '2080P0205X'], cms: ['ENDOCRINOLOGY'] },
  dietetics: { codes: ['133V*'], cms: ['REGISTERED DIETITIAN/NUTRITION PROFESSIONAL'] },
  neurology: { codes: ['2084N0400X', '2084N0402X', '2084B0040X'], cms: ['NEUROLOGY'] },
  geriatrics: { codes: ['207QG0300X', '207RG0300X', '363LG0600X', '2084P0805X'], cms: ['GERIATRIC MEDICINE', 'GERIATRIC PSYCHIATRY'] },
  psychiatry: { codes: ['2084P0800X', '2084P0805X', '363LP0808X'], cms: ['PSYCHIATRY'] },
  rheumatology: { codes: ['207RR0500X'], cms: ['RHEUMATOLOGY'] },
  orthopaedics: { codes: ['207X*'], cms: ['ORTHOPEDIC SURGERY'] },
  pulmonology: { codes: ['207RP1001X', '2080P0214X', '207RC0200X'], cms: ['PULMONARY DISEASE', 'CRITICAL CARE (INTENSIVISTS)'] },
  allergy: { codes: ['207K*'], cms: ['ALLERGY/IMMUNOLOGY'] },
  pediatrics: { codes: ['2080*'], cms: ['PEDIATRIC MEDICINE', 'PEDIATRICS'] },
  oncology: {
    codes: ['207RH0003X', '207RX0202X', '207RH0000X', '2086X0206X', '2080P0207X'],
    cms: ['HEMATOLOGY/ONCOLOGY', 'MEDICAL ONCOLOGY', 'SURGICAL ONCOLOGY', 'HEMATOLOGY'],
  },
  radiation_oncology: { codes: ['2085R0001X'], cms: ['RADIATION ONCOLOGY'] },
  radiology: { codes: ['2085R0202X', '2085B0100X'], cms: ['DIAGNOSTIC RADIOLOGY'] },
  obgyn: { codes: ['207V*', '363LW0102X'], cms: ['OBSTETRICS/GYNECOLOGY', 'GYNECOLOGICAL ONCOLOGY'] },
  cardiology: {
    codes: ['207RC0000X', '207RI0011X', '207RC0001X'],
    cms: ['CARDIOLOGY', 'CARDIOVASCULAR DISEASE (CARDIOLOGY)', 'INTERVENTIONAL CARDIOLOGY'],
  },
  nephrology: { codes: ['207RN0300X'], cms: ['NEPHROLOGY'] },
  urology: { codes: ['2088*'], cms: ['UROLOGY'] },
  thoracic_surgery: { codes: ['208G00000X'], cms: ['THORACIC SURGERY'] },
} as const satisfies Record<string, { codes: readonly string[]; cms: readonly string[] }>;

export type Category = keyof typeof CATEGORIES;
export const CATEGORY_NAMES = Object.keys(CATEGORIES) as Category[];

/** Categories of one NUCC taxonomy code (memoised: a national file has a few hundred distinct codes). */
export function categoriesOfTaxonomy(code: string | null, cache = taxonomyCache): Category[] {
  if (!code) return [];
  let hit = cache.get(code);
  if (!hit) {
    hit = CATEGORY_NAMES.filter((name) =>
      CATEGORIES[name].codes.some((rule) => (rule.endsWith('*') ? code.startsWith(rule.slice(0, -1)) : code === rule)),
    );
    cache.set(code, hit);
  }
  return hit;
}
const taxonomyCache = new Map<string, Category[]>();

/** Categories of a CMS specialty text ("INTERNAL MEDICINE"), ignoring punctuation: the current Doctors and
 * Clinicians file writes "CARDIOVASCULAR DISEASE CARDIOLOGY" where the older one wrote "(CARDIOLOGY)". */
export function categoriesOfCmsSpecialty(text: string): Category[] {
  const key = cmsKey(text);
  return CATEGORY_NAMES.filter((name) => (CATEGORIES[name].cms as readonly string[]).some((cms) => cmsKey(cms) === key));
}

function cmsKey(text: string): string {
  return text
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, ' ')
    .trim();
}

/** Whether a NUCC code (or, for a clinician known only from Doctors and Clinicians, a CMS specialty) is a primary care NP or PA. */
export function isPrimaryCareNpPa(code: string | null, cmsSpecialty?: string): boolean {
  if (code) return (PRIMARY_CARE_NP_PA.codes as readonly string[]).includes(code);
  const key = cmsSpecialty === undefined ? '' : cmsKey(cmsSpecialty);
  return PRIMARY_CARE_NP_PA.cms.some((cms) => cmsKey(cms) === key);
}
