import { RowReject } from '../base/errors.ts';
import { NPPES_TAXONOMY_SLOTS } from './nppes-columns.ts';
import type { FieldSpec, Layout } from './types.ts';
import { displayName, identifier, isMissing, optionalNumber, requiredNpi, stateCode, zip5 } from './values.ts';

/** An individual clinician at a practice location, from NPPES. */
export interface ProviderRow {
  npi: string;
  firstName: string;
  lastName: string;
  credential: string;
  gender: string;
  address: string;
  city: string;
  state: string;
  zip: string;
  phone: string;
  /**
   * Primary NUCC taxonomy code (the slot whose primary switch is Y, else the first code), null when the file
   * has none. The other codes are checked but not kept: nothing downstream reads them, and every value a
   * row carries crosses from the reader's thread to the main thread four million times a national build.
   */
  taxonomy: string | null;
}

const taxonomySlots: Record<string, FieldSpec> = {};
// Field names built once, not per row: parse runs for every row of a national file.
const TAXONOMY_FIELDS: Array<{ code: string; primarySwitch: string }> = [];
for (let n = 1; n <= NPPES_TAXONOMY_SLOTS; n++) {
  taxonomySlots[`taxonomy_${n}`] = { aliases: [`Healthcare Provider Taxonomy Code_${n}`] };
  taxonomySlots[`primary_switch_${n}`] = { aliases: [`Healthcare Provider Primary Taxonomy Switch_${n}`] };
  TAXONOMY_FIELDS.push({ code: `taxonomy_${n}`, primarySwitch: `primary_switch_${n}` });
}

const TAXONOMY_CODE = /^[0-9A-Z]{9}X$/;

export const nppes: Layout<ProviderRow> = {
  name: 'nppes',
  description: 'NPPES NPI dissemination file, official header (330 columns, or its first 41); entity type 1 only',
  fields: {
    npi: { aliases: ['NPI'], required: true },
    entity_type: { aliases: ['Entity Type Code'], required: true },
    last_name: { aliases: ['Provider Last Name (Legal Name)'], required: true },
    first_name: { aliases: ['Provider First Name'], required: true },
    credential: { aliases: ['Provider Credential Text'] },
    gender: { aliases: ['Provider Sex Code', 'Provider Gender Code'] },
    address: { aliases: ['Provider First Line Business Practice Location Address'], required: true },
    city: { aliases: ['Provider Business Practice Location Address City Name'], required: true },
    state: { aliases: ['Provider Business Practice Location Address State Name'], required: true },
    zip: { aliases: ['Provider Business Practice Location Address Postal Code'], required: true },
    country: { aliases: ['Provider Business Practice Location Address Country Code (If outside U.S.)'] },
    phone: { aliases: ['Provider Business Practice Location Address Telephone Number'] },
    deactivation_date: { aliases: ['NPI Deactivation Date'] },
    ...taxonomySlots,
  },
  parse(read) {
    const entity = identifier(read('entity_type'));
    if (entity === '' && !isMissing(read('deactivation_date')))
      throw new RowReject('deactivated NPI (no entity type, deactivation date set)', 'excluded');
    if (entity === '2') throw new RowReject('organization (Entity Type Code 2), not an individual clinician', 'excluded');
    if (entity !== '1') throw new RowReject(`Entity Type Code must be 1 or 2, got ${JSON.stringify(read('entity_type'))}`);
    let first: string | null = null;
    let primary: string | null = null;
    for (let n = 1; n <= NPPES_TAXONOMY_SLOTS; n++) {
      const field = TAXONOMY_FIELDS[n - 1];
      // Most of the fifteen slots are empty: those are skipped before any other work.
      const raw = read(field.code);
      if (raw === '') continue;
      const code = raw.toUpperCase();
      if (!TAXONOMY_CODE.test(code))
        throw new RowReject(`Healthcare Provider Taxonomy Code_${n} is not a taxonomy code: ${JSON.stringify(code)}`);
      first ??= code;
      if (read(field.primarySwitch).toUpperCase() === 'Y') primary ??= code;
    }
    return person(read, requiredNpi(read('npi'), 'NPI'), primary ?? first);
  },
};

function person(read: (field: string) => string, npi: string, taxonomy: string | null): ProviderRow {
  const country = read('country').toUpperCase();
  if (country !== '' && country !== 'US') throw new RowReject(`practice location outside the US (country ${country})`, 'excluded');
  const lastName = read('last_name');
  if (lastName === '') throw new RowReject('provider last name is missing');
  const gender = read('gender').toUpperCase();
  return {
    npi,
    firstName: displayName(read('first_name')),
    lastName: displayName(lastName),
    credential: read('credential'),
    gender: gender === 'M' || gender === 'F' ? gender : '',
    address: displayName(read('address')),
    city: displayName(read('city')),
    state: stateCode(read('state'), 'practice location state'),
    zip: zip5(read('zip'), 'practice location postal code'),
    phone: identifier(read('phone')),
    taxonomy,
  };
}

export const nppesFlat: Layout<ProviderRow> = {
  name: 'nppes_flat',
  description: 'Flattened NPPES weekly update (npi, entity I/O, names, prac_*, primary_taxonomy, all_taxonomies)',
  fields: {
    npi: { aliases: ['npi'], required: true },
    entity_type: { aliases: ['entity'], required: true },
    last_name: { aliases: ['last_name'], required: true },
    first_name: { aliases: ['first_name'], required: true },
    credential: { aliases: ['credential'] },
    gender: { aliases: ['gender'] },
    address: { aliases: ['prac_address'], required: true },
    city: { aliases: ['prac_city'], required: true },
    state: { aliases: ['prac_state'], required: true },
    zip: { aliases: ['prac_zip5', 'prac_zip'], required: true },
    country: { aliases: ['prac_country'] },
    phone: { aliases: ['prac_phone'] },
    taxonomy: { aliases: ['primary_taxonomy'] },
    taxonomies: { aliases: ['all_taxonomies'] },
    deactivation_date: { aliases: ['deact_date'] },
  },
  parse(read) {
    const entity = read('entity_type').toUpperCase();
    if (!isMissing(read('deactivation_date'))) throw new RowReject('deactivated NPI', 'excluded');
    if (entity === 'O') throw new RowReject('organization (entity O), not an individual clinician', 'excluded');
    if (entity !== 'I') throw new RowReject(`entity must be I or O, got ${JSON.stringify(read('entity_type'))}`);
    const primary = read('taxonomy').toUpperCase();
    if (TAXONOMY_CODE.test(primary)) return person(read, requiredNpi(read('npi'), 'npi'), primary);
    const listed = read('taxonomies')
      .split(';')
      .map((code) => code.trim().toUpperCase())
      .find((code) => TAXONOMY_CODE.test(code));
    return person(read, requiredNpi(read('npi'), 'npi'), listed ?? null);
  },
};

/** A row of the CMS Doctors and Clinicians file: profile details joined to NPPES on NPI. */
export interface ClinicianRow {
  npi: string;
  firstName: string;
  lastName: string;
  credential: string;
  gender: string;
  medicalSchool: string | null;
  graduationYear: number | null;
  specialty: string;
  telehealth: boolean;
  facilityNames: string[];
  city: string;
  state: string;
  zip: string;
}

const affiliations: Record<string, FieldSpec> = {};
for (let n = 1; n <= 5; n++) affiliations[`hospital_${n}`] = { aliases: [`hosp_afl_lbn_${n}`] };
/** The facility name field, then the five affiliation fields, named once rather than per row. */
const FACILITY_FIELDS = ['facility_name', ...Object.keys(affiliations)];

export const doctorsClinicians: Layout<ClinicianRow> = {
  name: 'doctors_clinicians',
  description: 'CMS Doctors and Clinicians national file, current (Provider Last Name ...) or older (lst_nm ...) header',
  fields: {
    npi: { aliases: ['NPI'], required: true },
    last_name: { aliases: ['Provider Last Name', 'lst_nm'], required: true },
    first_name: { aliases: ['Provider First Name', 'frst_nm'], required: true },
    credential: { aliases: ['Cred'] },
    gender: { aliases: ['gndr'] },
    medical_school: { aliases: ['Med_sch'] },
    graduation_year: { aliases: ['Grd_yr'] },
    specialty: { aliases: ['pri_spec'] },
    telehealth: { aliases: ['Telehlth'] },
    facility_name: { aliases: ['Facility Name', 'org_nm'] },
    city: { aliases: ['City/Town', 'cty'], required: true },
    state: { aliases: ['State', 'st'], required: true },
    zip: { aliases: ['ZIP Code', 'zip'], required: true },
    ...affiliations,
  },
  parse(read) {
    const school = read('medical_school');
    const year = optionalNumber(read('graduation_year'), 'Grd_yr');
    if (year !== null && (!Number.isInteger(year) || year < 1900 || year > 2100))
      throw new RowReject(`Grd_yr is not a year: ${JSON.stringify(read('graduation_year'))}`);
    const facilityNames = FACILITY_FIELDS.map(read)
      .filter((name) => name !== '')
      .map(displayName);
    const gender = read('gender').toUpperCase();
    const credential = read('credential');
    return {
      npi: requiredNpi(read('npi'), 'NPI'),
      firstName: displayName(read('first_name')),
      lastName: displayName(read('last_name')),
      // Republished extracts write a missing credential as NA.
      credential: isMissing(credential) ? '' : credential,
      gender: gender === 'M' || gender === 'F' ? gender : '',
      medicalSchool: school === '' || school.toUpperCase() === 'OTHER' ? null : displayName(school),
      graduationYear: year,
      specialty: displayName(read('specialty')),
      telehealth: read('telehealth').toUpperCase() === 'Y',
      facilityNames: [...new Set(facilityNames)],
      city: displayName(read('city')),
      state: stateCode(read('state'), 'State'),
      zip: zip5(read('zip'), 'ZIP Code'),
    };
  },
};

/** One code of the NUCC Health Care Provider Taxonomy code set. */
export interface TaxonomyRow {
  code: string;
  grouping: string;
  classification: string;
  specialization: string;
  displayName: string;
}

export const nuccTaxonomy: Layout<TaxonomyRow> = {
  name: 'nucc_taxonomy',
  description: 'NUCC Health Care Provider Taxonomy code set (Code, Grouping, Classification, Specialization)',
  fields: {
    code: { aliases: ['Code'], required: true },
    grouping: { aliases: ['Grouping'], required: true },
    classification: { aliases: ['Classification'], required: true },
    specialization: { aliases: ['Specialization'] },
    display_name: { aliases: ['Display Name'] },
  },
  parse(read) {
    const code = read('code').toUpperCase();
    if (!TAXONOMY_CODE.test(code)) throw new RowReject(`Code is not a taxonomy code: ${JSON.stringify(code)}`);
    const classification = read('classification');
    if (classification === '') throw new RowReject('Classification is missing');
    return { code, grouping: read('grouping'), classification, specialization: read('specialization'), displayName: read('display_name') };
  },
};

/**
 * The specialty a provider's primary NUCC code names: the code set's Display Name, its one name for the code
 * ("Family Nurse Practitioner", "Family Medicine Physician"). A specialization alone is not a specialty's name:
 * "Family" is the family specialization of nurse practitioners and of psychologists alike, and "Pediatrics"
 * both a nurse practitioner's specialization and a physician's classification. A code set without display
 * names (before 2019) gets the specialization with its classification, "Family (Nurse Practitioner)".
 */
export function specialtyOfTaxonomy(row: Pick<TaxonomyRow, 'classification' | 'specialization' | 'displayName'>): string {
  if (row.displayName) return row.displayName;
  return row.specialization ? `${row.specialization} (${row.classification})` : row.classification;
}
