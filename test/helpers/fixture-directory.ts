import type Database from 'better-sqlite3';
import { emitDirectory } from '../../pipeline/emit/directory.ts';
import { specialtyOfTaxonomy } from '../../pipeline/layouts/providers.ts';
import { npiCheckDigit } from '../../core/npi.ts';
import { TAXONOMY_BY_CODE } from '../../producers/sample/nucc.ts';
import { seeded } from './seeded.ts';

/**
 * The fixture's provider directory: seeded providers and facilities with the variety the directory must
 * handle (names in several cases, accents, apostrophes, shared first and last names; NUCC codes with and
 * without a specialization, CMS-only specialties, unknown codes; hospitals of every kind with rating and
 * bed ties), then the directory index over every provider of the fixture, as `hcas build` makes it.
 *
 * `writeDirectoryRows` runs before fixture-access.ts writes its rows and keeps out of the states whose
 * exports that file's goldens show (facilities of RI, providers of AK); `indexDirectory` runs after it.
 */

/** Files whose content shapes these rows and the index (the fixture is rebuilt when one changes). */
export const DIRECTORY_FIXTURE_SOURCES = [
  'test/helpers/fixture-directory.ts',
  'pipeline/emit/directory.ts',
  'pipeline/emit/directory-read.ts',
  'pipeline/emit/facility-index.ts',
  'core/search-key.ts',
  'core/directory-format.ts',
  'core/npi.ts',
  'pipeline/emit/specialty-keys.ts',
  'pipeline/config/specialties.ts',
  'pipeline/layouts/providers.ts',
  'producers/sample/nucc.ts',
];

/** A provider every test can rely on: NPI 1679576722, Luhn-valid, a cardiologist in New York. */
export const KNOWN_NPI = '1679576722';
/** First facility id of these rows (fixture-access.ts numbers its facilities from 1 by ZIP position). */
export const FIRST_FACILITY_ID = 1001;

const FIRST_NAMES = [
  'John',
  'JOHN',
  'Johnny',
  'Jonathan',
  'Mary',
  'Mary Ann',
  'María',
  'José',
  'Joseph',
  'Smith',
  'Lee',
  'Anne',
  'Zoë',
  'Jean-Luc',
  'Ngozi',
  'Ahmed',
];
const LAST_NAMES = [
  'Smith',
  'SMITH',
  'Smithers',
  'Smyth',
  "O'Brien",
  'Obrien',
  'García',
  'Nguyễn',
  'Lee',
  'Leeds',
  'Johnson',
  'Van der Berg',
  'McDonald',
  'MacDonald',
  'Zhang',
  'St. John',
];
/** Primary taxonomy codes (all in the sample NUCC subset) with weights; null is a clinician known only from Doctors and Clinicians. */
const CODES: Array<[string | null, number]> = [
  ['207Q00000X', 6],
  ['207R00000X', 6],
  ['207RC0000X', 4],
  ['207RI0011X', 1],
  ['207RH0003X', 1],
  ['207RX0202X', 1],
  ['208000000X', 3],
  ['363LF0000X', 5],
  ['363LP0200X', 1],
  ['363L00000X', 2],
  ['2084P0800X', 2],
  ['2084N0400X', 1],
  ['207V00000X', 2],
  ['207RG0300X', 1],
  ['163W00000X', 4],
  ['183500000X', 2],
  ['225100000X', 2],
  [null, 4],
  ['999999999X', 1],
];
/** Specialty text of Doctors-and-Clinicians-only clinicians, as the layout shows it. */
const CMS_SPECIALTIES = [
  'Cardiovascular Disease (Cardiology)',
  'Internal Medicine',
  'Family Practice',
  'Nurse Practitioner',
  'Chiropractic',
  '',
];
const CREDENTIALS = ['MD', 'M.D.', 'DO', 'NP', 'FNP-C', 'PA-C', 'RN', 'PharmD', ''];
const SCHOOLS = ['Brown University', 'Howard University College Of Medicine', 'University of Delaware', null];
const FACILITY_TYPES: Array<[string, number]> = [
  ['Acute Care Hospital', 5],
  ['Critical Access Hospital', 2],
  ['Psychiatric Hospital', 1],
  ["Children's Hospital", 1],
  ['Acute Care - Veterans Administration', 1],
  ['Rehabilitation', 1],
  ['Health Center', 6],
];
const FACILITY_NAMES = [
  'Mercy',
  "St. Mary's",
  'Saint Luke',
  'Good Samaritan',
  'Providence',
  'Hôpital Sainte-Thérèse',
  'Memorial',
  'Sacred Heart',
  'Unity',
];
const FACILITY_SUFFIXES = ['Hospital', 'Medical Center', 'Regional Medical Center', 'Community Health Center', 'Family Health Center'];

interface Zip {
  zip: string;
  city: string;
  state: string;
  latitude: number;
  longitude: number;
}

/** Writes the seeded providers and facilities (before fixture-access.ts adds its own). */
export function writeDirectoryRows(db: Database.Database, zips: readonly Zip[], stateName: (code: string) => string): void {
  const random = seeded(20240707);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
  const weighted = <T>(items: ReadonlyArray<[T, number]>): T => {
    let x = random() * items.reduce((sum, [, w]) => sum + w, 0);
    for (const [item, w] of items) if ((x -= w) < 0) return item;
    return items[items.length - 1][0];
  };
  const insertProvider =
    db.prepare(`INSERT INTO providers (npi, first_name, last_name, credential, gender, primary_taxonomy, primary_specialty, telehealth,
      address, city, state, zip_code, zcta, phone, medical_school, residency, graduation_year, facility_names)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?)`);
  const insertFacility =
    db.prepare(`INSERT INTO facilities (id, facility_name, facility_type, address, city_name, state_code, state_name, zip_code, zcta,
      latitude, longitude, location_precision, facility_rating, emergency_services, telehealth, phone_number, website, staffed_beds, provider_count, ccn, sources)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?, ?)`);

  const facilityNames: string[] = [];
  const facilityZips = zips.filter((z) => z.state !== 'RI');
  for (let i = 0; i < 160; i++) {
    const zip = facilityZips[(i * 7) % facilityZips.length];
    const type = weighted(FACILITY_TYPES);
    const hospital = type !== 'Health Center';
    const name = `${pick(FACILITY_NAMES)} ${hospital ? pick(FACILITY_SUFFIXES.slice(0, 3)) : pick(FACILITY_SUFFIXES.slice(3))}`;
    facilityNames.push(name);
    // Ratings and beds from small sets, so the hospital ranking meets ties on each key in turn.
    const rating = hospital && random() < 0.7 ? 3 + Math.floor(random() * 3) : null;
    insertFacility.run(
      FIRST_FACILITY_ID + i,
      name,
      type,
      `${10 + i} Health Way`,
      zip.city,
      zip.state,
      stateName(zip.state),
      zip.zip,
      zip.zip,
      zip.latitude,
      zip.longitude,
      'coordinates',
      rating,
      hospital && random() < 0.7 ? 1 : 0,
      `(302) 555-${String(2000 + i)}`,
      hospital ? `https://facility-${i}.example.org` : '',
      hospital ? pick([null, 25, 100, 100, 250]) : null,
      Math.floor(random() * 40),
      hospital ? String(80000 + i) : null,
      hospital ? 'cms,hifld' : 'hrsa',
    );
  }

  const providerZips = zips.filter((z) => z.state !== 'AK');
  for (let i = 0; i < 2400; i++) {
    const randomZip = providerZips[Math.floor(random() * providerZips.length)];
    const zip = i === 0 ? (providerZips.find((z) => z.zip === '10001') ?? randomZip) : randomZip;
    const code = weighted(CODES);
    const row = code ? TAXONOMY_BY_CODE.get(code) : undefined;
    // The name the build shows (pipeline/ingest): the code's display name, or the CMS text without a code.
    const specialty = row ? specialtyOfTaxonomy(row) : code ? '' : pick(CMS_SPECIALTIES);
    const npi = i === 0 ? KNOWN_NPI : npiOf(167_000_000 + i * 37);
    const [first, last] = i === 0 ? ['Jane', 'Doe'] : [pick(FIRST_NAMES), pick(LAST_NAMES)];
    const affiliations = i === 0 ? facilityNames.slice(0, 2) : random() < 0.4 ? [pick(facilityNames)] : [];
    insertProvider.run(
      npi,
      first,
      last,
      i === 0 ? 'MD' : pick(CREDENTIALS),
      i === 0 ? 'F' : pick(['M', 'F', '']),
      i === 0 ? '207RC0000X' : code,
      i === 0 ? specialtyOfTaxonomy(TAXONOMY_BY_CODE.get('207RC0000X')!) : specialty,
      random() < 0.25 ? 1 : 0,
      `${1 + Math.floor(random() * 900)} Main St`,
      random() < 0.2 ? zip.city.toUpperCase() : zip.city,
      zip.state,
      zip.zip,
      zip.zip,
      `30255${String(10000 + i)}`,
      i === 0 ? 'Brown University' : pick(SCHOOLS),
      random() < 0.6 ? 1970 + Math.floor(random() * 50) : null,
      JSON.stringify(affiliations),
    );
  }
}

/** Builds the directory index over every provider of the fixture (after fixture-access.ts has added its own). */
export function indexDirectory(db: Database.Database): void {
  emitDirectory(db, TAXONOMY_BY_CODE);
}

function npiOf(first9: number): string {
  const digits = String(first9);
  return digits + npiCheckDigit(digits);
}
