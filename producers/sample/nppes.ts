/**
 * Rows of the NPPES dissemination file: the official 330-column header, every field double-quoted and ""
 * when empty, as the monthly npidata_pfile is written. Only about 60 columns are ever filled, so a row is
 * assembled from precomputed runs of empty fields instead of joining 330 values (this matters at 4+
 * million rows).
 */
import { NPPES_COLUMNS } from '../../pipeline/layouts/nppes-columns.ts';
import type { Organization, Practitioner, Location } from './people.ts';
import { formatDate, FILE_DATE, dayBetween, licenseNumber } from './people.ts';
import { TAXONOMY_BY_CODE } from './nucc.ts';
import type { Rng } from './prng.ts';
import { MALE_NAMES, FEMALE_NAMES, LAST_NAMES } from './names.ts';

/** The quoted NPPES header line. */
export const NPPES_HEADER = NPPES_COLUMNS.map((c) => `"${c}"`).join(',');

/** Builds lines of a wide, all-quoted CSV where only some columns are ever set. */
class SparseRow {
  private readonly slots = new Map<string, number>();
  private readonly gaps: string[] = [];
  private readonly tail: string;
  readonly values: string[];

  constructor(columns: readonly string[], used: readonly string[]) {
    const indices = used.map((name) => {
      const i = columns.indexOf(name);
      if (i < 0) throw new Error(`unknown NPPES column ${name}`);
      return i;
    });
    indices.sort((a, b) => a - b);
    if (indices[0] !== 0) throw new Error('the first column must be used');
    indices.forEach((col, k) => {
      this.slots.set(columns[col]!, k);
      if (k > 0) this.gaps.push('"' + ',""'.repeat(col - indices[k - 1]! - 1) + ',"');
    });
    this.tail = '"' + ',""'.repeat(columns.length - 1 - indices[indices.length - 1]!);
    this.values = new Array<string>(indices.length).fill('');
  }

  /** Slot of a column in {@link values}. */
  slot(name: string): number {
    const s = this.slots.get(name);
    if (s === undefined) throw new Error(`column ${name} not declared`);
    return s;
  }

  /** Empties all values. */
  clear(): void {
    this.values.fill('');
  }

  /** The CSV line of the current values (quotes inside values doubled). */
  format(): string {
    const v = this.values;
    let line = '"' + escape(v[0]!);
    for (let k = 1; k < v.length; k++) line += this.gaps[k - 1]! + escape(v[k]!);
    return line + this.tail;
  }
}

const escape = (s: string) => (s.includes('"') ? s.replace(/"/g, '""') : s);

const P = 'Provider Business Practice Location Address';
const M = 'Provider Business Mailing Address';
const TAXONOMY_SLOTS = 3;
const USED = [
  'NPI',
  'Entity Type Code',
  'Employer Identification Number (EIN)',
  'Provider Organization Name (Legal Business Name)',
  'Provider Last Name (Legal Name)',
  'Provider First Name',
  'Provider Middle Name',
  'Provider Name Prefix Text',
  'Provider Name Suffix Text',
  'Provider Credential Text',
  'Provider Other Organization Name',
  'Provider Other Organization Name Type Code',
  'Provider First Line Business Mailing Address',
  'Provider Second Line Business Mailing Address',
  `${M} City Name`,
  `${M} State Name`,
  `${M} Postal Code`,
  `${M} Country Code (If outside U.S.)`,
  `${M} Telephone Number`,
  `${M} Fax Number`,
  'Provider First Line Business Practice Location Address',
  'Provider Second Line Business Practice Location Address',
  `${P} City Name`,
  `${P} State Name`,
  `${P} Postal Code`,
  `${P} Country Code (If outside U.S.)`,
  `${P} Telephone Number`,
  `${P} Fax Number`,
  'Provider Enumeration Date',
  'Last Update Date',
  'NPI Deactivation Date',
  'Provider Sex Code',
  'Authorized Official Last Name',
  'Authorized Official First Name',
  'Authorized Official Middle Name',
  'Authorized Official Title or Position',
  'Authorized Official Telephone Number',
  ...Array.from({ length: TAXONOMY_SLOTS }, (_, i) => [
    `Healthcare Provider Taxonomy Code_${i + 1}`,
    `Provider License Number_${i + 1}`,
    `Provider License Number State Code_${i + 1}`,
    `Healthcare Provider Primary Taxonomy Switch_${i + 1}`,
  ]).flat(),
  'Is Sole Proprietor',
  'Is Organization Subpart',
  'Parent Organization LBN',
  'Parent Organization TIN',
  'Authorized Official Name Prefix Text',
  'Healthcare Provider Taxonomy Group_1',
  'Certification Date',
];

const row = new SparseRow(NPPES_COLUMNS, USED);
const S = Object.fromEntries(USED.map((name) => [name, row.slot(name)])) as Record<string, number>;
const TAX = Array.from({ length: TAXONOMY_SLOTS }, (_, i) => ({
  code: S[`Healthcare Provider Taxonomy Code_${i + 1}`]!,
  license: S[`Provider License Number_${i + 1}`]!,
  state: S[`Provider License Number State Code_${i + 1}`]!,
  primary: S[`Healthcare Provider Primary Taxonomy Switch_${i + 1}`]!,
}));

function setLocations(v: string[], practice: Location, mailing: Location): void {
  v[S['Provider First Line Business Mailing Address']!] = mailing.address1;
  v[S['Provider Second Line Business Mailing Address']!] = mailing.address2;
  v[S[`${M} City Name`]!] = mailing.city;
  v[S[`${M} State Name`]!] = mailing.state;
  v[S[`${M} Postal Code`]!] = mailing.zip;
  v[S[`${M} Country Code (If outside U.S.)`]!] = 'US';
  v[S[`${M} Telephone Number`]!] = mailing.phone;
  v[S[`${M} Fax Number`]!] = mailing.fax;
  v[S['Provider First Line Business Practice Location Address']!] = practice.address1;
  v[S['Provider Second Line Business Practice Location Address']!] = practice.address2;
  v[S[`${P} City Name`]!] = practice.city;
  v[S[`${P} State Name`]!] = practice.state;
  v[S[`${P} Postal Code`]!] = practice.zip;
  v[S[`${P} Country Code (If outside U.S.)`]!] = 'US';
  v[S[`${P} Telephone Number`]!] = practice.phone;
  v[S[`${P} Fax Number`]!] = practice.fax;
}

/** Puts the taxonomies in slots 1..n; exactly one slot gets the primary switch "Y", the others "N". */
function setTaxonomies(v: string[], rng: Rng, codes: readonly string[], state: string): void {
  // The primary taxonomy is usually listed first, but not always (consumers must read the switch).
  const primaryAt = codes.length > 1 && rng.chance(0.15) ? 1 : 0;
  const order = [...codes];
  if (primaryAt === 1) [order[0], order[1]] = [order[1]!, order[0]!];
  order.forEach((code, i) => {
    const slot = TAX[i]!;
    v[slot.code] = code;
    v[slot.license] = rng.chance(0.85) ? licenseNumber(rng, state) : '';
    v[slot.state] = v[slot.license] ? state : '';
    v[slot.primary] = i === primaryAt ? 'Y' : 'N';
  });
}

function setCommon(v: string[], rng: Rng, npi: string, entity: string, enumerated: number, updated: number): void {
  v[S['NPI']!] = npi;
  v[S['Entity Type Code']!] = entity;
  v[S['Provider Enumeration Date']!] = formatDate(enumerated);
  v[S['Last Update Date']!] = formatDate(updated);
  if (rng.chance(0.25)) v[S['Certification Date']!] = formatDate(dayBetween(rng, Math.max(updated, FILE_DATE - 1500), FILE_DATE));
}

/** The NPPES line of an individual provider with its 1-3 taxonomies. */
export function individualLine(rng: Rng, p: Practitioner): string {
  row.clear();
  const v = row.values;
  setCommon(v, rng, p.npi, '1', p.enumerated, p.updated);
  v[S['Provider Last Name (Legal Name)']!] = p.last;
  v[S['Provider First Name']!] = p.first;
  v[S['Provider Middle Name']!] = p.middle;
  v[S['Provider Name Prefix Text']!] = p.prefix;
  v[S['Provider Name Suffix Text']!] = p.suffix;
  v[S['Provider Credential Text']!] = p.credential;
  v[S['Provider Sex Code']!] = p.sex;
  setLocations(v, p.practice, p.mailing);
  setTaxonomies(v, rng, p.taxonomies, p.practice.state);
  const s = rng.next();
  v[S['Is Sole Proprietor']!] = s < 0.6 ? 'N' : s < 0.75 ? 'Y' : 'X';
  return row.format();
}

const OFFICIAL_TITLES = [
  'PRESIDENT',
  'CEO',
  'DIRECTOR',
  'CREDENTIALING MANAGER',
  'OFFICE MANAGER',
  'OWNER',
  'ADMINISTRATOR',
  'CFO',
  'MEDICAL DIRECTOR',
];

/** The NPPES line of an organization (EIN masked as "<UNAVAIL>" like the public file). */
export function organizationLine(rng: Rng, o: Organization, parent?: string): string {
  row.clear();
  const v = row.values;
  setCommon(v, rng, o.npi, '2', o.enumerated, o.updated);
  v[S['Employer Identification Number (EIN)']!] = '<UNAVAIL>';
  v[S['Provider Organization Name (Legal Business Name)']!] = o.name;
  setLocations(v, o.practice, o.mailing);
  const female = rng.chance(0.5);
  v[S['Authorized Official Last Name']!] = rng.pick(LAST_NAMES);
  v[S['Authorized Official First Name']!] = rng.pick(female ? FEMALE_NAMES : MALE_NAMES);
  v[S['Authorized Official Middle Name']!] = rng.chance(0.5) ? String.fromCharCode(65 + rng.int(26)) : '';
  v[S['Authorized Official Title or Position']!] = rng.pick(OFFICIAL_TITLES);
  v[S['Authorized Official Telephone Number']!] = o.practice.phone.slice(0, 6) + rng.digits(4);
  if (rng.chance(0.1)) v[S['Authorized Official Name Prefix Text']!] = female ? 'MS.' : 'MR.';
  setTaxonomies(v, rng, [o.taxonomy], o.practice.state);
  const subpart = parent !== undefined && rng.chance(0.3);
  v[S['Is Organization Subpart']!] = subpart ? 'Y' : 'N';
  if (subpart) {
    v[S['Parent Organization LBN']!] = parent;
    v[S['Parent Organization TIN']!] = rng.between(1, 9) + rng.digits(8);
  }
  const group = TAXONOMY_BY_CODE.get(o.taxonomy);
  if (group?.grouping === 'Group') {
    // The real file writes the group code and its upper-cased classification, with a double space in one case.
    v[S['Healthcare Provider Taxonomy Group_1']!] =
      o.taxonomy === '193400000X' ? '193400000X SINGLE SPECIALTY  GROUP' : '193200000X MULTI-SPECIALTY GROUP';
  }
  return row.format();
}

/** The line of a deactivated NPI: only the NPI and the deactivation date, as the public file shows them. */
export function deactivatedLine(npi: string, day: number): string {
  row.clear();
  row.values[S['NPI']!] = npi;
  row.values[S['NPI Deactivation Date']!] = formatDate(day);
  return row.format();
}
