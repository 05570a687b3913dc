import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import KDBush from 'kdbush';
import { createIndexes, createSchema } from '../../pipeline/store/schema.ts';
import { bandFor } from '../../pipeline/config/bands.ts';
import { composite } from '../../pipeline/score/composite.ts';
import { ESTIMATED_FROM, SCORE_TYPES, SMALL_POPULATION } from '../../pipeline/config/scoring.ts';
import { CATEGORY_NAMES } from '../../pipeline/config/specialties.ts';
import { ACCESS_FIXTURE_SOURCES, writeAccessFixture } from './fixture-access.ts';
import { DIRECTORY_FIXTURE_SOURCES, indexDirectory, writeDirectoryRows } from './fixture-directory.ts';
import { lastingTempDir } from './run-temp.ts';
import { seeded } from './seeded.ts';

/**
 * The test database: real ZIP codes and coordinates (npm `zipcodes`) with seeded synthetic scores, in the
 * schema of pipeline/store/schema.ts. Everything a test needs from the fixture goes through `fixtureDb()`,
 * so this can later become a pipeline build of the small sample without touching the tests.
 */

const require = createRequire(import.meta.url);
const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');

/** The PLACES measures the fixture build "has": score types with another measure say it is missing. */
const FIXTURE_MEASURES = ['DIABETES', 'COPD'];

/** Fixed identity of the fixture build; golden files show it. */
export const FIXTURE_BUILD_ID = createHash('sha256').update('hcas test fixture v1').digest('hex').slice(0, 16);
export const FIXTURE_BUILT_AT = '2024-01-02T03:04:05.000Z';

const STATE_NAMES: Record<string, string> = {
  AK: 'Alaska',
  CA: 'California',
  DC: 'District of Columbia',
  DE: 'Delaware',
  NY: 'New York',
  RI: 'Rhode Island',
};
const stateName = (code: string) => STATE_NAMES[code] ?? `State ${code}`;

export interface ZipCode {
  zip: string;
  latitude: number;
  longitude: number;
  city: string;
  state: string;
  country: string;
}

let built: Promise<string> | undefined;

/**
 * Path of the fixture database, built once and cached in the temp directory under a hash of the code that
 * makes it (so concurrent test workers and later runs share it, and any change to that code rebuilds it).
 */
export function fixtureDb(): Promise<string> {
  built ??= Promise.resolve().then(() => {
    const sources = [
      'test/helpers/fixture-db.ts',
      'pipeline/store/schema.ts',
      'pipeline/config/bands.ts',
      'pipeline/config/scoring.ts',
      'pipeline/score/composite.ts',
      ...ACCESS_FIXTURE_SOURCES,
      ...DIRECTORY_FIXTURE_SOURCES,
    ];
    const hash = createHash('sha256');
    for (const source of sources) {
      const full = path.join(root, source);
      const files = statSync(full).isDirectory()
        ? readdirSync(full)
            .sort()
            .map((name) => path.join(full, name))
        : [full];
      for (const file of files) hash.update(readFileSync(file));
    }
    const dir = path.join(lastingTempDir(), 'hcas-test-fixtures');
    const file = path.join(dir, `fixture-${hash.digest('hex').slice(0, 16)}.sqlite`);
    if (!existsSync(file)) {
      mkdirSync(dir, { recursive: true });
      const tmp = `${file}.${process.pid}.tmp`;
      rmSync(tmp, { force: true });
      writeFixture(tmp);
      renameSync(tmp, file);
    }
    return file;
  });
  return built;
}

/** Every US ZIP code of the npm `zipcodes` package, with its point. */
export function allZips(): ZipCode[] {
  return Object.values(require('zipcodes').codes as Record<string, ZipCode>).filter((c) => c.country === 'US');
}

/** The fixture's ZIP codes: all of RI and DE, DC below 20100, and a few from NY, CA and AK (Barrow stands alone). */
export function fixtureZips(): ZipCode[] {
  const codes = allZips();
  const chosen = codes.filter(
    (c) =>
      c.state === 'RI' ||
      c.state === 'DE' ||
      (c.state === 'DC' && c.zip < '20100') ||
      (c.zip >= '10001' && c.zip <= '10012') ||
      (c.zip >= '94102' && c.zip <= '94110') ||
      (c.zip >= '99501' && c.zip <= '99509') ||
      c.zip === '99723',
  );
  return chosen.sort((a, b) => (a.zip < b.zip ? -1 : 1));
}

/** Where each clinician category comes from in the fixture's ZIPs, as in the real-data build (core/clinician-basis.ts letters). */
const FIXTURE_BASIS = CATEGORY_NAMES.map((c) =>
  ['primary_care', 'behavioral_health', 'dentistry'].includes(c) ? 'c' : c === 'obgyn' ? 'r' : ESTIMATED_FROM[c] ? 'e' : '-',
).join('');
const uncounted = (i: number) => i % 50 === 49;

/** Writes a fixture database of `zips` (the fixture's own by default; all US ZIPs make a national-size file for benchmarks). */
export function writeFixture(file: string, zips: ZipCode[] = fixtureZips()): void {
  const random = seeded(20240102);
  const db = new Database(file);
  createSchema(db);
  const insertZip = db.prepare('INSERT INTO zips VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)');
  const insertScore = db.prepare('INSERT INTO health_scores VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)');
  const insertType = db.prepare('INSERT INTO score_types VALUES (?,?,?,?)');
  const states = new Map<string, { sum: number; count: number; population: number }>();
  db.transaction(() => {
    for (const type of SCORE_TYPES) insertType.run(type.id, type.name, type.slug, type.description);
    zips.forEach((zip, i) => {
      const landSqMi = Math.round(random() * 5000) / 100;
      const population = Math.round(random() * 60000);
      // Every 40th ZIP has no census row (fixture-access.ts), so its need measures are imputed; odd ZIPs have road times.
      const imputed = i % 40 === 39 ? 'uninsured_pct,poverty_pct,age65_pct,disability_pct' : null;
      insertZip.run(
        zip.zip,
        zip.state,
        stateName(zip.state),
        zip.city,
        null,
        null,
        null,
        zip.latitude,
        zip.longitude,
        landSqMi,
        population,
        i,
        population < SMALL_POPULATION ? 1 : 0,
        i % 2,
        imputed,
        // Every 25th ZIP has no residents' point: it is placed at the middle of its area.
        i % 25 === 24 ? 'gazetteer_internal' : 'hud_residential',
        i % 25 === 24 ? zip.latitude : zip.latitude + 0.01,
        zip.longitude,
        // As the real-data build: counted categories, estimated specialists, the OB/GYN roster; every 50th ZIP
        // has no source at all (as Puerto Rico): its score has no provider component.
        uncounted(i) ? '-'.repeat(CATEGORY_NAMES.length) : FIXTURE_BASIS,
      );
      // A base per ZIP and component noise spread composites over every band, as real scores are.
      const base = random() * 100;
      for (const type of SCORE_TYPES) {
        const component = () => Math.max(0, Math.min(100, Math.round(base + (random() - 0.5) * 40)));
        const [people, counted, hospital, travel] = [component(), component(), component(), component()];
        const provider = uncounted(i) ? null : counted;
        const healthscore = composite({ people, provider, hospital, travel });
        const band = bandFor(healthscore);
        // The fixture's PLACES file has DIABETES and COPD only (fixtureQuality), present for all but the census-less ZIPs.
        const prevalenceUsed = FIXTURE_MEASURES.includes(type.prevalence ?? '') && i % 40 !== 39 ? 1 : 0;
        insertScore.run(
          i * SCORE_TYPES.length + type.id,
          zip.zip,
          type.id,
          zip.state,
          healthscore,
          people,
          provider,
          hospital,
          travel,
          band.label,
          band.grade,
          band.color,
          prevalenceUsed,
        );
        if (type.id === 1) {
          const state = states.get(zip.state) ?? { sum: 0, count: 0, population: 0 };
          state.sum += healthscore;
          state.count++;
          state.population += population;
          states.set(zip.state, state);
        }
      }
    });
    const insertState = db.prepare('INSERT INTO states VALUES (?,?,?,?,?,?,?,?,?)');
    for (const [code, { sum, count, population }] of states) {
      const exact = sum / count;
      const band = bandFor(Math.floor(exact + 0.5));
      insertState.run(code, stateName(code), count, Math.floor(exact + 0.5), exact, band.label, band.grade, band.color, population);
    }
    const index = new KDBush(zips.length);
    for (const zip of zips) index.add(zip.longitude, zip.latitude);
    index.finish();
    db.prepare('INSERT INTO kdtree VALUES (?, ?)').run('zips', Buffer.from(index.data as ArrayBuffer));
    // A PO-box ZIP code of the real crosswalk (the White House's), answered by the ZIP code it lies in.
    if (zips.some((z) => z.zip === '20006') && !zips.some((z) => z.zip === '20500'))
      db.prepare('INSERT INTO zip_aliases VALUES (?,?,?,?,?)').run(
        '20500',
        '20006',
        'Washington',
        'DC',
        'Post Office or large volume customer',
      );
    writeDirectoryRows(db, zips, stateName);
    const access = writeAccessFixture(db, zips, stateName);
    indexDirectory(db);
    const meta: Record<string, unknown> = {
      build_id: FIXTURE_BUILD_ID,
      built_at: FIXTURE_BUILT_AT,
      dataset: { name: 'hcas test fixture', synthetic: true, notice: 'Synthetic scores over real ZIP code locations, for tests only.' },
      // An absolute path, as real builds record, to prove the API publishes only the file name.
      sources: [
        {
          key: 'zipcodes',
          layout: 'zipcodes-npm',
          path: '/build/machine/raw/zipcodes.json',
          vintage: '2023',
          sha256: 'f'.repeat(64),
          bytes: 123456,
          rows_read: zips.length,
          rows_landed: zips.length,
          rows_rejected: 0,
        },
        ...access.sources,
      ],
      reconciliation: [
        { key: 'zipcodes', file: '/build/machine/raw/zipcodes.json', read: zips.length, landed: zips.length, rejected: 0, reasons: {} },
      ],
      row_counts: {
        zips: zips.length,
        health_scores: zips.length * SCORE_TYPES.length,
        score_types: SCORE_TYPES.length,
        states: states.size,
        kdtree: 1,
        ...access.rowCounts,
      },
      scoring: { note: 'internal; not published by meta/' },
      // A report with one failing check, so `hcas validate` shows both outcomes and exits 3 on the fixture.
      validation: {
        checks: [
          {
            name: 'every band holds residents, none most of them',
            value: 'smallest Healthcare Paradise 1.2%, largest Limited Access 41%',
            target: 'each band 0.5% to 60% of residents',
            pass: true,
          },
          {
            name: 'academic medical centre ZIPs are in the top two bands',
            value: '0 of 1',
            target: 'all',
            pass: false,
            note: 'below 70: 10001 19 (people 12)',
          },
        ],
        bands: [{ label: 'Limited Access', zips: 10, residents: 1000, share: 0.41 }],
        urbanRural: [{ code: 1, zips: 10, residents: 1000, healthscore: 55.5, people: 60, hospital: 70, travel: 80 }],
        ruca: [{ code: 1, zips: 10, residents: 1000, healthscore: 55.5 }],
        correlations: { hospital_vs_reference_drive_minutes: { rho: -0.7, n: 10 } },
        academicMedicalCentres: [
          {
            zip: '10001',
            name: 'Chelsea, New York (fixture)',
            city: 'New York',
            healthscore: 19,
            label: 'Healthcare Desert',
            people: 12,
            ranked: true,
          },
        ],
        frontier: { zips: 0, inBottomTwo: 0, exceptions: [] },
      },
      data_quality: {
        provider: { status: 'measured', note: 'Clinicians come from provider files that cover the country.', sample_fraction: 1 },
        prevalence_measures: SCORE_TYPES.map((t) => ({
          score_type_id: t.id,
          measure: t.prevalence,
          available: FIXTURE_MEASURES.includes(t.prevalence ?? ''),
        })),
        small_population_threshold: SMALL_POPULATION,
        road_times_zips: Math.ceil(zips.length / 2),
        clinicians: {
          categories: CATEGORY_NAMES,
          score_types: Object.fromEntries(SCORE_TYPES.map((type) => [type.id, type.providers])),
          sources: {},
        },
      },
    };
    const insertMeta = db.prepare('INSERT INTO meta VALUES (?, ?)');
    for (const [key, value] of Object.entries(meta)) insertMeta.run(key, JSON.stringify(value));
  })();
  createIndexes(db);
  db.close();
}
