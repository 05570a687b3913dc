/**
 * The workforce mix of the synthetic NPPES file: which taxonomy an individual or organization has, how
 * often, where such providers practise, the credentials they write, and the CMS specialty the Doctors and
 * Clinicians file shows for them. Shares are rough national proportions of NPPES individual records
 * (about a quarter primary care physicians, NPs and PAs; 15% specialists; then nurses, behavioral health,
 * pharmacists, dentists, therapists ...).
 */
import type { PlacementKind } from './placement.ts';

/** One kind of individual provider. */
export interface ProviderKind {
  taxonomy: string;
  /** Relative share of individual NPIs. */
  share: number;
  placement: PlacementKind;
  /** NPPES "Provider Credential Text" variants (free text in the real file). */
  credentials: readonly string[];
  /** CMS "Cred" code and specialty text for the Doctors and Clinicians file; absent = not in DAC. */
  dac?: { cred: string; spec: string };
  /** Taxonomies that plausibly appear as a provider's second or third code. */
  secondary: readonly string[];
  /** Share of women. */
  female: number;
}

const MD = ['MD', 'MD', 'MD', 'M.D.', 'M.D.', 'DO', 'D.O.', 'MD, PHD', ''];
const NP = ['NP', 'FNP', 'APRN', 'FNP-C', 'CRNP', 'DNP, APRN', 'MSN, FNP-BC'];
const PA = ['PA-C', 'PA-C', 'PA', 'P.A.-C', 'MPAS, PA-C'];
const PCP2 = ['207Q00000X', '207R00000X', '208M00000X'];
const NP2 = ['363L00000X', '363LF0000X', '363LA2200X'];

function physician(
  taxonomy: string,
  share: number,
  spec: string,
  placement: PlacementKind,
  female: number,
  secondary = PCP2,
): ProviderKind {
  return { taxonomy, share, placement, credentials: MD, dac: { cred: 'MD', spec }, secondary, female };
}
function other(
  taxonomy: string,
  share: number,
  credentials: string,
  placement: PlacementKind,
  female: number,
  secondary: readonly string[] = [],
): ProviderKind {
  return { taxonomy, share, placement, credentials: credentials.split('|'), secondary, female };
}

/** Individual provider kinds (Entity Type Code 1). */
export const PROVIDER_KINDS: readonly ProviderKind[] = [
  // Primary care physicians (~12%)
  physician('207Q00000X', 4.5, 'FAMILY PRACTICE', 'primary', 0.45, ['207QA0505X', '207QG0300X', '208D00000X']),
  physician('207R00000X', 4.0, 'INTERNAL MEDICINE', 'primary', 0.42, ['207RG0300X', '208M00000X']),
  physician('208000000X', 2.0, 'PEDIATRIC MEDICINE', 'primary', 0.65, ['207Q00000X']),
  physician('208D00000X', 0.6, 'GENERAL PRACTICE', 'primary', 0.3, ['207Q00000X']),
  physician('207QA0505X', 0.2, 'FAMILY PRACTICE', 'primary', 0.45, ['207Q00000X']),
  physician('207QG0300X', 0.2, 'GERIATRIC MEDICINE', 'primary', 0.5, ['207Q00000X']),
  physician('207RG0300X', 0.3, 'GERIATRIC MEDICINE', 'primary', 0.5, ['207R00000X']),
  physician('208M00000X', 0.8, 'HOSPITALIST', 'hospital', 0.4, ['207R00000X']),
  // Nurse practitioners and physician assistants (~14%)
  {
    taxonomy: '363LF0000X',
    share: 5.0,
    placement: 'primary',
    credentials: NP,
    dac: { cred: 'NP', spec: 'NURSE PRACTITIONER' },
    secondary: NP2,
    female: 0.9,
  },
  {
    taxonomy: '363L00000X',
    share: 2.5,
    placement: 'primary',
    credentials: NP,
    dac: { cred: 'NP', spec: 'NURSE PRACTITIONER' },
    secondary: NP2,
    female: 0.9,
  },
  {
    taxonomy: '363LA2200X',
    share: 1.0,
    placement: 'primary',
    credentials: NP,
    dac: { cred: 'NP', spec: 'NURSE PRACTITIONER' },
    secondary: NP2,
    female: 0.88,
  },
  {
    taxonomy: '363LP0808X',
    share: 0.8,
    placement: 'community',
    credentials: NP,
    dac: { cred: 'NP', spec: 'NURSE PRACTITIONER' },
    secondary: NP2,
    female: 0.85,
  },
  {
    taxonomy: '363LP0200X',
    share: 0.5,
    placement: 'primary',
    credentials: NP,
    dac: { cred: 'NP', spec: 'NURSE PRACTITIONER' },
    secondary: NP2,
    female: 0.95,
  },
  {
    taxonomy: '363A00000X',
    share: 3.0,
    placement: 'primary',
    credentials: PA,
    dac: { cred: 'PA', spec: 'PHYSICIAN ASSISTANT' },
    secondary: ['363AM0700X'],
    female: 0.68,
  },
  {
    taxonomy: '363AM0700X',
    share: 1.0,
    placement: 'primary',
    credentials: PA,
    dac: { cred: 'PA', spec: 'PHYSICIAN ASSISTANT' },
    secondary: ['363A00000X'],
    female: 0.68,
  },
  // Specialists (~15%), concentrated in large urban catchments
  physician('207RC0000X', 1.3, 'CARDIOVASCULAR DISEASE (CARDIOLOGY)', 'specialist', 0.15, ['207R00000X', '207RI0011X']),
  physician('207RI0011X', 0.3, 'INTERVENTIONAL CARDIOLOGY', 'specialist', 0.1, ['207RC0000X']),
  physician('207RE0101X', 0.4, 'ENDOCRINOLOGY', 'specialist', 0.55, ['207R00000X']),
  physician('207RG0100X', 0.8, 'GASTROENTEROLOGY', 'specialist', 0.2, ['207R00000X']),
  physician('207RI0200X', 0.3, 'INFECTIOUS DISEASE', 'specialist', 0.45, ['207R00000X']),
  physician('207RN0300X', 0.5, 'NEPHROLOGY', 'specialist', 0.3, ['207R00000X']),
  physician('207RP1001X', 0.5, 'PULMONARY DISEASE', 'specialist', 0.25, ['207RC0200X', '207R00000X']),
  physician('207RR0500X', 0.3, 'RHEUMATOLOGY', 'specialist', 0.55, ['207R00000X']),
  physician('207RH0003X', 0.6, 'HEMATOLOGY/ONCOLOGY', 'specialist', 0.35, ['207RX0202X', '207R00000X']),
  physician('207RX0202X', 0.3, 'MEDICAL ONCOLOGY', 'specialist', 0.38, ['207RH0003X']),
  physician('207RC0200X', 0.3, 'CRITICAL CARE (INTENSIVISTS)', 'hospital', 0.3, ['207RP1001X']),
  physician('207K00000X', 0.3, 'ALLERGY/IMMUNOLOGY', 'specialist', 0.45, ['208000000X']),
  physician('207N00000X', 0.6, 'DERMATOLOGY', 'specialist', 0.55, ['207ND0900X']),
  physician('207ND0900X', 0.05, 'DERMATOLOGY', 'specialist', 0.45, ['207N00000X']),
  physician('207T00000X', 0.3, 'NEUROSURGERY', 'specialist', 0.1, []),
  physician('207V00000X', 1.2, 'OBSTETRICS/GYNECOLOGY', 'specialist', 0.62, ['207VX0000X']),
  physician('207VX0000X', 0.1, 'OBSTETRICS/GYNECOLOGY', 'specialist', 0.65, ['207V00000X']),
  physician('207W00000X', 0.9, 'OPHTHALMOLOGY', 'specialist', 0.3, []),
  physician('207X00000X', 1.2, 'ORTHOPEDIC SURGERY', 'specialist', 0.08, []),
  physician('207Y00000X', 0.5, 'OTOLARYNGOLOGY', 'specialist', 0.2, []),
  physician('2084N0400X', 0.7, 'NEUROLOGY', 'specialist', 0.35, []),
  physician('2084P0800X', 1.3, 'PSYCHIATRY', 'specialist', 0.45, ['2084P0804X']),
  physician('2084P0804X', 0.3, 'PSYCHIATRY', 'specialist', 0.5, ['2084P0800X']),
  physician('2085R0001X', 0.25, 'RADIATION ONCOLOGY', 'specialist', 0.3, []),
  physician('2086S0102X', 0.1, 'CRITICAL CARE (INTENSIVISTS)', 'hospital', 0.3, ['208600000X']),
  physician('2086X0206X', 0.1, 'SURGICAL ONCOLOGY', 'specialist', 0.3, ['208600000X']),
  physician('208600000X', 1.1, 'GENERAL SURGERY', 'specialist', 0.25, []),
  physician('208800000X', 0.6, 'UROLOGY', 'specialist', 0.1, []),
  physician('208100000X', 0.5, 'PHYSICAL MEDICINE AND REHABILITATION', 'specialist', 0.35, ['208VP0014X']),
  physician('208VP0014X', 0.2, 'INTERVENTIONAL PAIN MANAGEMENT', 'specialist', 0.2, ['207L00000X']),
  // Hospital-based physicians (~6%)
  physician('207P00000X', 2.0, 'EMERGENCY MEDICINE', 'hospital', 0.3, []),
  physician('207L00000X', 2.0, 'ANESTHESIOLOGY', 'hospital', 0.25, []),
  physician('2085R0202X', 1.3, 'DIAGNOSTIC RADIOLOGY', 'specialist', 0.25, []),
  physician('207ZP0102X', 0.6, 'PATHOLOGY', 'specialist', 0.4, []),
  // Nursing (~12%)
  other('163W00000X', 8.0, 'RN|RN|R.N.|BSN, RN|MSN, RN', 'hospital', 0.9),
  other('164W00000X', 2.0, 'LPN|L.P.N.', 'community', 0.9),
  other('367500000X', 1.5, 'CRNA|C.R.N.A.', 'hospital', 0.6),
  other('367A00000X', 0.3, 'CNM|CNM, APRN', 'primary', 0.99),
  // Dental, pharmacy, eye care
  other('1223G0001X', 3.0, 'DDS|DMD|D.D.S.|D.M.D.', 'community', 0.35, ['122300000X']),
  other('122300000X', 1.5, 'DDS|DMD|D.D.S.', 'community', 0.35, ['1223G0001X']),
  other('1223X0400X', 0.5, 'DDS, MS|DMD', 'specialist', 0.3, ['122300000X']),
  other('183500000X', 5.0, 'PHARMD|RPH|PHARM.D.|R.PH.', 'community', 0.6, ['1835P1200X']),
  other('1835P1200X', 0.5, 'PHARMD, BCPS|PHARM.D.', 'hospital', 0.6, ['183500000X']),
  other('152W00000X', 1.5, 'OD|O.D.', 'community', 0.5),
  // Behavioral health (~9%)
  other('103T00000X', 2.0, 'PHD|PSYD|PH.D.|PSY.D.', 'community', 0.65),
  other('1041C0700X', 3.0, 'LCSW|LICSW|LCSW-C', 'community', 0.85),
  other('101YP2500X', 2.0, 'LPC|LPC, NCC|LCPC', 'community', 0.75, ['101YM0800X']),
  other('101YM0800X', 1.5, 'LMHC|LPCC', 'community', 0.75, ['101YP2500X']),
  other('106H00000X', 0.8, 'LMFT|MFT', 'community', 0.75),
  // Therapy, rehabilitation and other professions
  other('225100000X', 4.0, 'PT|DPT|PT, DPT', 'community', 0.65),
  other('225X00000X', 1.5, 'OTR/L|OT|OTR', 'community', 0.88),
  other('235Z00000X', 1.5, 'CCC-SLP|MS, CCC-SLP|M.S., CCC-SLP', 'community', 0.95),
  other('111N00000X', 1.8, 'DC|D.C.', 'community', 0.3),
  other('213E00000X', 0.5, 'DPM|D.P.M.', 'specialist', 0.3),
  other('133V00000X', 1.0, 'RD|RDN|RDN, LD|MS, RD', 'community', 0.92),
  other('231H00000X', 0.3, 'AUD|AU.D.|CCC-A', 'specialist', 0.8),
  other('227800000X', 0.5, 'RRT|CRT', 'hospital', 0.6),
  other('146L00000X', 1.0, 'EMT-P|NRP|PARAMEDIC', 'primary', 0.3),
  other('225700000X', 1.0, 'LMT|LMT|', 'community', 0.8),
  other('390200000X', 1.0, '|MS|BS', 'hospital', 0.55),
];

/** One kind of organization (Entity Type Code 2). */
export interface OrganizationKind {
  taxonomy: string;
  share: number;
  placement: PlacementKind;
  /** Name patterns: {CITY}, {LAST}; chosen at random. */
  names: readonly string[];
}

/** Organization kinds; hospitals come from the facility list instead of these patterns. */
export const ORGANIZATION_KINDS: readonly OrganizationKind[] = [
  {
    taxonomy: '193200000X',
    share: 10,
    placement: 'primary',
    names: ['{CITY} MULTISPECIALTY GROUP', '{LAST} MEDICAL ASSOCIATES, PC', '{CITY} MEDICAL GROUP LLC'],
  },
  {
    taxonomy: '193400000X',
    share: 12,
    placement: 'specialist',
    names: ['{LAST} CARDIOLOGY ASSOCIATES', '{CITY} ORTHOPAEDIC SPECIALISTS PA', '{LAST} & {LAST2} PSYCHIATRY LLC'],
  },
  {
    taxonomy: '261QP2300X',
    share: 10,
    placement: 'primary',
    names: ['{CITY} FAMILY MEDICINE PLLC', '{LAST} FAMILY PRACTICE', '{CITY} PRIMARY CARE CENTER'],
  },
  {
    taxonomy: '261QF0400X',
    share: 3,
    placement: 'primary',
    names: ['{CITY} COMMUNITY HEALTH CENTER, INC.', '{CITY} FAMILY HEALTH CENTER'],
  },
  { taxonomy: '261QR1300X', share: 2, placement: 'primary', names: ['{CITY} RURAL HEALTH CLINIC', '{CITY} MEDICAL CLINIC'] },
  {
    taxonomy: '261QM0801X',
    share: 4,
    placement: 'community',
    names: ['{CITY} COUNSELING CENTER', '{CITY} BEHAVIORAL HEALTH SERVICES INC'],
  },
  { taxonomy: '261QU0200X', share: 3, placement: 'community', names: ['{CITY} URGENT CARE LLC', 'URGENT CARE OF {CITY}'] },
  {
    taxonomy: '3336C0003X',
    share: 14,
    placement: 'community',
    names: ['{CITY} PHARMACY', 'WALGREEN CO', 'CVS PHARMACY INC', '{LAST} DRUG STORE'],
  },
  { taxonomy: '332B00000X', share: 8, placement: 'community', names: ['{CITY} MEDICAL SUPPLY LLC', '{LAST} HOME MEDICAL EQUIPMENT'] },
  { taxonomy: '291U00000X', share: 4, placement: 'community', names: ['{CITY} CLINICAL LABORATORY', '{LAST} DIAGNOSTICS LLC'] },
  { taxonomy: '251E00000X', share: 6, placement: 'community', names: ['{CITY} HOME HEALTH CARE INC', '{LAST} HOME HEALTH SERVICES'] },
  { taxonomy: '251G00000X', share: 3, placement: 'community', names: ['{CITY} HOSPICE', 'HOSPICE OF {CITY}'] },
  {
    taxonomy: '314000000X',
    share: 6,
    placement: 'community',
    names: ['{CITY} NURSING AND REHABILITATION CENTER', '{LAST} HEALTH CARE CENTER'],
  },
  { taxonomy: '261QR0200X', share: 2, placement: 'specialist', names: ['{CITY} IMAGING CENTER', '{LAST} RADIOLOGY LLC'] },
  { taxonomy: '261QA1903X', share: 2, placement: 'specialist', names: ['{CITY} SURGERY CENTER LLC', '{CITY} ENDOSCOPY CENTER'] },
  { taxonomy: '341600000X', share: 3, placement: 'primary', names: ['{CITY} AMBULANCE SERVICE', '{CITY} EMERGENCY MEDICAL SERVICES'] },
];
