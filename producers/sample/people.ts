/**
 * Synthetic practitioners and organizations: names, sex, credentials, practice and mailing addresses,
 * dates and licenses, shared by the NPPES and Doctors and Clinicians writers so both files describe the
 * same people at the same places.
 */
import type { Geography, Zcta } from './geography.ts';
import type { ProviderKind, OrganizationKind } from './provider-mix.ts';
import type { Rng } from './prng.ts';
import { FEMALE_NAMES, LAST_NAMES, MALE_NAMES, SUITES } from './names.ts';
import { phoneNumber, postalZip, streetAddress } from './facility-names.ts';

/** A practice (or mailing) location. */
export interface Location {
  address1: string;
  address2: string;
  city: string;
  state: string;
  /** Nine digits (ZIP+4 without dash) or five. */
  zip: string;
  /** Ten digits, no punctuation (NPPES style). */
  phone: string;
  fax: string;
  zcta: Zcta;
}

/** An individual provider. */
export interface Practitioner {
  npi: string;
  kind: ProviderKind;
  last: string;
  first: string;
  middle: string;
  prefix: string;
  suffix: string;
  credential: string;
  sex: 'M' | 'F';
  /** NUCC codes, the primary (the kind's) first, then 0-2 related ones. */
  taxonomies: string[];
  practice: Location;
  mailing: Location;
  enumerated: number;
  updated: number;
}

/** An organization provider. */
export interface Organization {
  npi: string;
  taxonomy: string;
  name: string;
  practice: Location;
  mailing: Location;
  enumerated: number;
  updated: number;
}

// Day numbers since 1970-01-01 (UTC) bounding the data: NPPES opened on 2005-05-23; the file is of Jan 2024.
const NPPES_START = Date.UTC(2005, 4, 23) / 86_400_000;
/** Last day covered by the sample files (2024-01-07). */
export const FILE_DATE = Date.UTC(2024, 0, 7) / 86_400_000;

/** A day number as MM/DD/YYYY, the NPPES date format. */
export function formatDate(day: number): string {
  const d = new Date(day * 86_400_000);
  return `${String(d.getUTCMonth() + 1).padStart(2, '0')}/${String(d.getUTCDate()).padStart(2, '0')}/${d.getUTCFullYear()}`;
}

/** Enumeration date: a burst on the opening day and in 2005-2007, then steady growth. */
export function enumerationDay(rng: Rng): number {
  if (rng.chance(0.08)) return NPPES_START;
  if (rng.chance(0.15)) return NPPES_START + rng.int(950);
  return NPPES_START + rng.int(FILE_DATE - NPPES_START);
}

/** A random day in [from, to]. */
export function dayBetween(rng: Rng, from: number, to: number): number {
  return from + rng.int(Math.max(1, to - from + 1));
}

const digitsOnly = (phone: string) => phone.replace(/\D/g, '');

/** A practice location in a ZCTA: postal city and state of the ZIP used (`zip5` where the caller fixes it), ZIP+4 most of the time. */
export function practiceLocation(rng: Rng, geo: Geography, z: Zcta, allowShortZip = true, zip5 = postalZip(rng, geo, z, 0.08)): Location {
  const postal = geo.postalByZip.get(zip5);
  const phone = digitsOnly(phoneNumber(rng, z));
  return {
    address1: streetAddress(rng, true),
    address2: rng.chance(0.35) ? rng.pick(SUITES) : '',
    city: (postal?.city ?? z.city).toUpperCase(),
    state: postal?.state ?? z.state,
    zip: allowShortZip && rng.chance(0.2) ? zip5 : zip5 + rng.digits(4),
    phone,
    fax: rng.chance(0.5) ? phone.slice(0, 6) + rng.digits(4) : '',
    zcta: z,
  };
}

/** The mailing address: usually the practice address, otherwise a PO box in the same town. */
export function mailingLocation(rng: Rng, practice: Location): Location {
  if (rng.chance(0.7)) return practice;
  return { ...practice, address1: `PO BOX ${rng.between(1, 9999)}`, address2: '', zip: practice.zip.slice(0, 5) + rng.digits(4) };
}

/** A new individual provider of a kind, practising in a ZCTA (at `zip5` where the caller fixes the ZIP). */
export function makePractitioner(rng: Rng, geo: Geography, npi: string, kind: ProviderKind, z: Zcta, zip5?: string): Practitioner {
  const sex = rng.chance(kind.female) ? 'F' : 'M';
  const names = sex === 'F' ? FEMALE_NAMES : MALE_NAMES;
  const m = rng.next();
  const middle = m < 0.55 ? String.fromCharCode(65 + rng.int(26)) : m < 0.8 ? rng.pick(names) : '';
  const physician = kind.dac?.cred === 'MD';
  const p = rng.next();
  const prefix = physician && p < 0.4 ? 'DR.' : p < 0.06 ? (sex === 'F' ? rng.pick(['MS.', 'MRS.']) : 'MR.') : '';
  const s = rng.next();
  const suffix = sex === 'M' && s < 0.035 ? rng.pick(['JR.', 'JR.', 'III', 'II', 'SR.']) : '';
  const taxonomies = [kind.taxonomy];
  const r = rng.next();
  const wanted = r < 0.7 ? 1 : r < 0.92 ? 2 : 3; // most providers list one taxonomy, some two or three
  for (const extra of kind.secondary) if (taxonomies.length < wanted && !taxonomies.includes(extra)) taxonomies.push(extra);
  const practice = practiceLocation(rng, geo, z, true, zip5);
  const enumerated = enumerationDay(rng);
  return {
    npi,
    kind,
    last: rng.pick(LAST_NAMES),
    first: rng.pick(names),
    middle,
    prefix,
    suffix,
    credential: rng.pick(kind.credentials),
    sex,
    taxonomies,
    practice,
    mailing: mailingLocation(rng, practice),
    enumerated,
    updated: dayBetween(rng, enumerated, FILE_DATE),
  };
}

/** A new organization of a kind (name from its patterns) practising in a ZCTA. */
export function makeOrganization(rng: Rng, geo: Geography, npi: string, kind: OrganizationKind, z: Zcta): Organization {
  const name = rng
    .pick(kind.names)
    .replace('{CITY}', z.city.toUpperCase())
    .replace('{LAST}', rng.pick(LAST_NAMES))
    .replace('{LAST2}', rng.pick(LAST_NAMES));
  const practice = practiceLocation(rng, geo, z);
  const enumerated = enumerationDay(rng);
  return {
    npi,
    taxonomy: kind.taxonomy,
    name,
    practice,
    mailing: mailingLocation(rng, practice),
    enumerated,
    updated: dayBetween(rng, enumerated, FILE_DATE),
  };
}

/** A state license number in one of the common shapes ("12637", "MD045123", "A123456"). */
export function licenseNumber(rng: Rng, prefix: string): string {
  const r = rng.next();
  if (r < 0.5) return rng.digits(rng.between(5, 7)).replace(/^0/, '1');
  if (r < 0.8) return prefix + rng.digits(6);
  return String.fromCharCode(65 + rng.int(26)) + rng.digits(rng.between(5, 6));
}
