import type Database from 'better-sqlite3';
import { emitBlog } from '../../pipeline/emit/blog.ts';
import { parseBlogPost, readBlogPosts } from '../../pipeline/ingest/blog.ts';
import { tviTier } from '../../core/tvi-tiers.ts';
import { haversineMiles } from '../../core/distance.ts';
import { SMALL_POPULATION, TVI_WEIGHTS } from '../../pipeline/config/scoring.ts';
import { seeded } from './seeded.ts';

/**
 * The fixture's access, census, TVI, facility, provider and blog rows, seeded and deterministic, in the schema
 * of pipeline/store/schema.ts. Called by `writeFixture` with its ZIPs (already in `zips`); it draws from its
 * own seeded generator, so the score rows written before it do not change when this file does.
 */

/** Files whose content shapes these rows (the fixture is rebuilt when one changes). */
export const ACCESS_FIXTURE_SOURCES = [
  'test/helpers/fixture-access.ts',
  'pipeline/ingest/blog.ts',
  'pipeline/emit/blog.ts',
  'pipeline/score/tvi.ts',
  'core/tvi-tiers.ts',
  'core/distance.ts',
  'content/blog',
];

/** The census sources of the fixture, as a build's `meta.sources` lists them (manifest order). */
export const CENSUS_SOURCES = [
  {
    key: 'acs_population_income',
    layout: 'acs_zcta',
    path: '/build/machine/raw/census/acs_zcta_population_income.csv.gz',
    vintage: 'synthetic, ACS 2019-2023 5-year layout',
  },
  {
    key: 'acs_profile',
    layout: 'acs_zcta',
    path: '/build/machine/raw/census/acs5_profile_zcta.json',
    vintage: 'synthetic, ACS 2018-2022 Data Profile layout',
  },
  {
    key: 'acs_commuting',
    layout: 'acs_zcta',
    path: '/build/machine/raw/census/acs2018_zcta_commuting.csv.gz',
    vintage: 'synthetic, ACS 2014-2018 B08201/B08101 layout',
  },
  {
    key: 'acs_internet',
    layout: 'acs_zcta',
    path: '/build/machine/raw/census/acs2018_zcta_internet.csv.gz',
    vintage: 'synthetic, ACS 2014-2018 layout',
  },
];

/** Which source gives which measures; `acs_internet` covers Rhode Island only, so broadband is mostly null. */
const MEASURES_BY_SOURCE: Record<string, string[]> = {
  acs_population_income: ['median_household_income', 'per_capita_income'],
  acs_profile: [
    'population',
    'median_age',
    'age65_pct',
    'white_pct',
    'black_pct',
    'asian_pct',
    'hispanic_pct',
    'poverty_pct',
    'unemployment_pct',
    'uninsured_pct',
    'public_insurance_pct',
    'private_insurance_pct',
    'disability_pct',
    'housing_units',
    'owner_occupied_pct',
    'renter_occupied_pct',
    'median_home_value',
  ],
  acs_commuting: ['no_vehicle_pct', 'transit_commute_pct', 'walk_commute_pct'],
  acs_internet: ['broadband_pct'],
};

/** Metro areas of the fixture's ZIPs by state (Barrow, AK, lies in none). */
const METROS: Record<string, { code: string; title: string; type: string }> = {
  RI: { code: '39300', title: 'Providence-Warwick, RI-MA', type: 'Metro' },
  DE: { code: '20100', title: 'Dover, DE', type: 'Metro' },
  DC: { code: '47900', title: 'Washington-Arlington-Alexandria, DC-VA-MD-WV', type: 'Metro' },
  NY: { code: '35620', title: 'New York-Newark-Jersey City, NY-NJ', type: 'Metro' },
  CA: { code: '41860', title: 'San Francisco-Oakland-Fremont, CA', type: 'Metro' },
  AK: { code: '11260', title: 'Anchorage, AK', type: 'Metro' },
};

const FIRST_NAMES = ['Ana', 'James', 'Mary', 'Wei', 'Fatima', 'John', 'Priya', 'Carlos', 'Linda', 'Kwame', "D'Arcy", 'Olga'];
const LAST_NAMES = ['Smith', 'Garcia', 'Nguyen', 'Okafor', 'Patel', 'Kowalski', "O'Brien", 'Johnson', 'Cohen', 'Silva', 'Müller', 'Lee'];
const TAXONOMIES: Array<[code: string, specialty: string, primaryCare: boolean]> = [
  ['207Q00000X', 'Family Medicine', true],
  ['207R00000X', 'Internal Medicine', true],
  ['208000000X', 'Pediatrics', true],
  ['363LF0000X', 'Family', true],
  ['2084P0800X', 'Psychiatry', false],
  ['207RC0000X', 'Cardiovascular Disease', false],
  ['207X00000X', 'Orthopaedic Surgery', false],
  ['225100000X', 'Physical Therapist', false],
];
const HOSPITAL_NAMES = ['General Hospital', 'Medical Center', 'Memorial Hospital', 'Community Hospital'];

/** A post that goes out in 2099 and a draft, beside the real posts of content/blog. */
const SYNTHETIC_POSTS = [
  parseBlogPost(
    'fixture-scheduled.md',
    '---\ntitle: Coming soon\nslug: coming-soon\nexcerpt: A post scheduled for 2099, hidden until then.\npublished_at: 2099-01-01T00:00:00Z\n---\nNot yet.\n',
  ),
  parseBlogPost(
    'fixture-draft.md',
    '---\ntitle: Draft\nslug: unfinished-draft\nexcerpt: Never published.\npublished_at: 2024-01-01T00:00:00Z\ndraft: true\n---\nDraft text.\n',
  ),
];

interface Zip {
  zip: string;
  latitude: number;
  longitude: number;
  city: string;
  state: string;
}

interface Hospital {
  id: number;
  name: string;
  latitude: number;
  longitude: number;
}

/** Writes the rows; returns the `meta.sources` entries and row counts to add to the fixture's meta. */
export function writeAccessFixture(
  db: Database.Database,
  zips: readonly Zip[],
  stateName: (code: string) => string,
): { sources: unknown[]; rowCounts: Record<string, number> } {
  const random = seeded(20240611);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
  const populationOf = new Map(
    (db.prepare('SELECT zip_code, population FROM zips').all() as Array<{ zip_code: string; population: number | null }>).map((r) => [
      r.zip_code,
      r.population,
    ]),
  );

  // Facilities: a hospital at every 12th ZIP (one with a comma and quotes in its name, for CSV quoting), and health centres.
  const hospitals: Hospital[] = [];
  const insertFacility = db.prepare(`INSERT INTO facilities VALUES (${Array(21).fill('?').join(',')})`);
  zips.forEach((zip, i) => {
    if (i % 12 !== 3 && i % 40 !== 7) return;
    const id = i + 1;
    const hospital = i % 12 === 3;
    const name = hospital
      ? id === 4
        ? `Saint Joseph's "Mercy" Hospital, ${zip.city}`
        : `${zip.city} ${pick(HOSPITAL_NAMES)}`
      : `${zip.city} Community Health Center`;
    const latitude = Math.round((zip.latitude + (random() - 0.5) * 0.01) * 1e6) / 1e6;
    const longitude = Math.round((zip.longitude + (random() - 0.5) * 0.01) * 1e6) / 1e6;
    const type = hospital ? (random() < 0.8 ? 'Acute Care Hospital' : 'Critical Access Hospital') : 'Health Center';
    const rating = hospital && random() < 0.7 ? 1 + Math.floor(random() * 5) : null;
    insertFacility.run(
      id,
      name,
      type,
      `${100 + i} Hospital Way`,
      zip.city,
      zip.state,
      stateName(zip.state),
      zip.zip,
      zip.zip,
      latitude,
      longitude,
      'coordinates',
      rating,
      hospital && random() < 0.8 ? 1 : 0,
      0,
      `(401) 555-${String(1000 + i).slice(-4)}`,
      hospital ? `https://hospital-${id}.example.org` : '',
      hospital ? 25 + Math.floor(random() * 400) : null,
      Math.floor(random() * 60),
      hospital ? String(410000 + id) : null,
      hospital ? 'cms,hifld' : 'hrsa',
    );
    if (hospital) hospitals.push({ id, name, latitude, longitude });
  });

  // Providers: a few per ZIP, practising at the ZIP's point.
  const insertProvider = db.prepare(`INSERT INTO providers VALUES (${Array(18).fill('?').join(',')})`);
  const primaryCareAt: Zip[] = [];
  let npiBase = 100000000;
  for (const zip of zips) {
    const count = Math.floor(random() * 5);
    for (let k = 0; k < count; k++) {
      const [taxonomy, specialty, primaryCare] = pick(TAXONOMIES);
      if (primaryCare) primaryCareAt.push(zip);
      const npi = npiWithCheckDigit(String(npiBase++ + Math.floor(random() * 7)));
      const affiliated = hospitals
        .filter((h) => haversineMiles(zip.longitude, zip.latitude, h.longitude, h.latitude) <= 15)
        .slice(0, Math.floor(random() * 3));
      insertProvider.run(
        npi,
        pick(FIRST_NAMES),
        pick(LAST_NAMES),
        pick(['MD', 'DO', 'NP', 'PA-C', '']),
        pick(['M', 'F', '']),
        taxonomy,
        specialty,
        random() < 0.3 ? 1 : 0,
        `${1 + Math.floor(random() * 9000)} Main St`,
        zip.city,
        zip.state,
        zip.zip,
        zip.zip,
        `40155${String(10000 + Math.floor(random() * 89999))}`,
        random() < 0.6 ? pick(['Brown University', 'Johns Hopkins University', 'University of California, San Francisco']) : null,
        null,
        random() < 0.6 ? 1960 + Math.floor(random() * 60) : null,
        JSON.stringify(affiliated.map((h) => h.name)),
      );
      npiBase += 7;
    }
  }

  // Travel facts, from the points above.
  const insertAccess = db.prepare('INSERT INTO zip_access VALUES (?,?,?,?,?,?,?,?,?,?,?,?)');
  const access = new Map<string, { nearestHospitalMiles: number | null }>();
  for (const zip of zips) {
    const distances = hospitals
      .map((h) => ({ h, miles: haversineMiles(zip.longitude, zip.latitude, h.longitude, h.latitude) }))
      .sort((a, b) => a.miles - b.miles);
    const nearest = distances[0];
    const primary = primaryCareAt.map((p) => haversineMiles(zip.longitude, zip.latitude, p.longitude, p.latitude));
    const nearestHospitalMiles = nearest ? Math.round(nearest.miles * 10) / 10 : null;
    const minutes = (miles: number | null) => (miles === null ? null : tenth(2 * miles));
    insertAccess.run(
      zip.zip,
      nearestHospitalMiles,
      nearest?.h.id ?? null,
      primary.length ? Math.round(Math.min(...primary) * 10) / 10 : null,
      distances.filter((d) => d.miles <= 10).length,
      primary.filter((miles) => miles <= 10).length,
      minutes(nearestHospitalMiles),
      minutes(nearestHospitalMiles),
      minutes(nearestHospitalMiles),
      null,
      null,
      null,
    );
    access.set(zip.zip, { nearestHospitalMiles });
  }

  // Census: each source's measures, about 4% suppressed (NULL), and every 40th ZIP without any ACS row.
  const insertCensus = db.prepare('INSERT INTO census VALUES (?,?,?,?)');
  const noVehicle = new Map<string, number | null>();
  let censusRows = 0;
  zips.forEach((zip, i) => {
    if (i % 40 === 39) return;
    for (const [source, measures] of Object.entries(MEASURES_BY_SOURCE)) {
      if (source === 'acs_internet' && zip.state !== 'RI') continue;
      for (const measure of measures) {
        const value = random() < 0.04 ? null : measureValue(measure, random, populationOf.get(zip.zip) ?? null);
        if (measure === 'population' && value === null) continue; // no population row, as when no source has one
        insertCensus.run(zip.zip, measure, value, source);
        censusRows++;
        if (measure === 'no_vehicle_pct') noVehicle.set(zip.zip, value);
      }
    }
  });

  // TVI: seeded sub-scores weighted as the build weighs them; metros are population-weighted means.
  const insertTvi = db.prepare('INSERT INTO tvi VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)');
  const setCbsa = db.prepare('UPDATE zips SET cbsa_code = ? WHERE zip_code = ?');
  const metros = new Map<string, { zips: number; population: number; weighted: number }>();
  for (const zip of zips) {
    const sub = {
      vehicle: tenth(random() * 100),
      transit: tenth(random() * 100),
      facility_distance: tenth(random() * 100),
      population_vulnerability: tenth(random() * 100),
      health_outcome: tenth(random() * 100),
    };
    const score = Math.round(Object.entries(TVI_WEIGHTS).reduce((sum, [key, weight]) => sum + weight * sub[key as keyof typeof sub], 0));
    const population = populationOf.get(zip.zip) ?? null;
    insertTvi.run(
      zip.zip,
      zip.state,
      score,
      tviTier(score),
      sub.vehicle,
      sub.transit,
      sub.facility_distance,
      sub.population_vulnerability,
      sub.health_outcome,
      random() < 0.8 ? 'places' : 'disability_fallback',
      noVehicle.get(zip.zip) ?? null,
      access.get(zip.zip)?.nearestHospitalMiles ?? null,
      population,
      (population ?? 0) >= SMALL_POPULATION ? 1 : 0,
    );
    const metro = zip.zip === '99723' ? undefined : METROS[zip.state];
    if (!metro) continue;
    setCbsa.run(metro.code, zip.zip);
    const m = metros.get(metro.code) ?? { zips: 0, population: 0, weighted: 0 };
    m.zips++;
    m.population += population ?? 0;
    m.weighted += (population ?? 0) * score;
    metros.set(metro.code, m);
  }
  const insertMetro = db.prepare('INSERT INTO tvi_metros VALUES (?,?,?,?,?,?,?)');
  for (const metro of Object.values(METROS)) {
    const m = metros.get(metro.code);
    if (!m) continue;
    const score = tenth(m.weighted / m.population);
    insertMetro.run(metro.code, metro.title, metro.type, m.zips, m.population, score, tviTier(Math.round(score)));
  }

  const posts = emitBlog(db, [...readBlogPosts(), ...SYNTHETIC_POSTS]);
  const count = (table: string) => (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
  return {
    sources: CENSUS_SOURCES.map((s) => ({
      ...s,
      sha256: 'e'.repeat(64),
      bytes: 4096,
      rows_read: zips.length,
      rows_landed: zips.length,
      rows_rejected: 0,
    })),
    rowCounts: {
      zip_access: zips.length,
      census: censusRows,
      tvi: zips.length,
      tvi_metros: metros.size,
      facilities: count('facilities'),
      providers: count('providers'),
      blog_posts: posts,
    },
  };
}

/** A plausible value of a census measure (the fixture is synthetic: only its shape matters). */
function measureValue(measure: string, random: () => number, population: number | null): number {
  const pct = (max: number) => tenth(random() * max);
  switch (measure) {
    case 'population':
      return population ?? Math.round(random() * 60000);
    case 'median_age':
      return tenth(25 + random() * 30);
    case 'median_household_income':
      return Math.round(25000 + random() * 150000);
    case 'per_capita_income':
      return Math.round(12000 + random() * 80000);
    case 'median_home_value':
      return Math.round(90000 + random() * 900000);
    case 'housing_units':
      return Math.round(random() * 25000);
    case 'private_insurance_pct':
      return pct(90);
    case 'owner_occupied_pct':
      return pct(95);
    case 'white_pct':
      return pct(100);
    case 'broadband_pct':
      return tenth(50 + random() * 50);
    default:
      return pct(40);
  }
}

function tenth(value: number): number {
  return Math.round(value * 10) / 10;
}

/** An NPI from 9 digits: the Luhn check digit over the `80840` prefix, as CMS defines it. */
function npiWithCheckDigit(nine: string): string {
  const digits = `80840${nine.slice(0, 9)}`;
  let sum = 0;
  for (let i = digits.length - 1, double = true; i >= 0; i--, double = !double) {
    let d = Number(digits[i]);
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return `${nine.slice(0, 9)}${(10 - (sum % 10)) % 10}`;
}
