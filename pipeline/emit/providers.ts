import type Database from 'better-sqlite3';
import type { TaxonomyRow } from '../layouts/providers.ts';
import { nameKey } from '../facilities/names.ts';
import type { Facility } from '../facilities/roster.ts';
import { stopwatch } from '../base/stopwatch.ts';
import { CATEGORY_NAMES, categoriesOfCmsSpecialty, categoriesOfTaxonomy, type Category } from '../config/specialties.ts';

/**
 * Completes the `providers` table: the NPPES individuals staged into it (ProviderStage, the last row of each
 * NPI) get, in place, what their Doctors and Clinicians rows say (school, graduation year, telehealth,
 * facilities, and the CMS specialty when the NUCC code set does not name theirs); clinicians known only from
 * Doctors and Clinicians are appended. The unique NPI index is built afterwards in one sort (createIndexes).
 */
export function emitProviders(
  db: Database.Database,
  taxonomy: Map<string, TaxonomyRow>,
): { providers: number; clinicianOnly: number; seconds: { clinicians: number; completed: number; clinicianOnly: number } } {
  const watch = stopwatch();
  db.exec('CREATE TABLE stage.taxonomy (code TEXT PRIMARY KEY, specialty TEXT NOT NULL) WITHOUT ROWID');
  const insertTaxonomy = db.prepare('INSERT INTO taxonomy VALUES (?, ?)');
  db.transaction(() => {
    for (const row of taxonomy.values()) insertTaxonomy.run(row.code, specialtyOfTaxonomy(row));
  })();
  // No index on NPI: GROUP BY sorts as fast as it walks an index (5.8 s either way nationally), and every later
  // join reaches rows by row id (first_row, provider_row); the two indexes cost 2.4 s.
  db.exec(`
    CREATE TABLE stage.clinician AS
      SELECT s.npi AS npi, MIN(s.rowid) AS first_row, MAX(s.provider_row) AS provider_row, MAX(s.medical_school) AS medical_school,
             MAX(s.graduation_year) AS graduation_year, MAX(s.telehealth) AS telehealth, MAX(s.specialty) AS specialty,
             json_group_array(DISTINCT f.value) FILTER (WHERE f.value IS NOT NULL) AS facility_names
      FROM stage_clinicians s LEFT JOIN json_each(s.facility_names) f GROUP BY s.npi;`);
  const clinicians = watch();
  db.exec(`
    UPDATE providers SET
        primary_specialty = CASE WHEN EXISTS (SELECT 1 FROM taxonomy t WHERE t.code = providers.primary_taxonomy)
          THEN primary_specialty ELSE COALESCE(c.specialty, '') END,
        telehealth = COALESCE(c.telehealth, 0), medical_school = c.medical_school, graduation_year = c.graduation_year,
        facility_names = COALESCE(c.facility_names, '[]')
      FROM clinician c WHERE c.provider_row > 0 AND providers.rowid = c.provider_row;
  `);
  const completed = watch();
  const clinicianOnly = db
    .prepare(`
    INSERT INTO providers
      SELECT c.npi, s.first_name, s.last_name, s.credential, s.gender, NULL, c.specialty, c.telehealth, '', s.city, s.state, s.zip_code, s.zcta, '',
             c.medical_school, NULL, c.graduation_year, c.facility_names
      FROM clinician c JOIN stage_clinicians s ON s.rowid = c.first_row
      WHERE c.provider_row = 0`)
    .run().changes;
  const providers = (db.prepare('SELECT COUNT(*) AS n FROM providers').get() as { n: number }).n;
  return { providers, clinicianOnly, seconds: { clinicians, completed, clinicianOnly: watch() } };
}

/** The specialty a provider's primary NUCC code names: its specialization, or its classification when it has none. */
export function specialtyOfTaxonomy(row: Pick<TaxonomyRow, 'classification' | 'specialization'>): string {
  return row.specialization || row.classification;
}

/**
 * Clinicians per scoring category practising in each ZIP: NPPES providers by primary taxonomy (counted
 * while staging), clinicians known only from Doctors and Clinicians by their CMS specialty.
 */
export function providerSupply(
  db: Database.Database,
  counts: Array<{ zcta: string; taxonomy: string; count: number }>,
  zipIndex: Map<string, number>,
): Record<Category, Float64Array> {
  const supply = Object.fromEntries(CATEGORY_NAMES.map((c) => [c, new Float64Array(zipIndex.size)])) as Record<Category, Float64Array>;
  const add = (zcta: string, categories: Category[], count: number) => {
    const i = zipIndex.get(zcta);
    if (i === undefined) return;
    for (const category of categories) supply[category][i] += count;
  };
  for (const row of counts) add(row.zcta, categoriesOfTaxonomy(row.taxonomy || null), row.count);
  const clinicianOnly = db
    .prepare(`SELECT s.zcta AS zcta, c.specialty AS specialty, COUNT(*) AS n FROM clinician c JOIN stage_clinicians s ON s.rowid = c.first_row
    WHERE c.provider_row = 0 AND s.zcta IS NOT NULL GROUP BY 1, 2`)
    .all() as Array<{ zcta: string; specialty: string; n: number }>;
  for (const row of clinicianOnly) add(row.zcta, categoriesOfCmsSpecialty(row.specialty), row.n);
  return supply;
}

/**
 * Distinct clinicians affiliated with each facility (Doctors and Clinicians facility and hospital names, same state).
 * The (clinician, state, name) rows are read in table order and each facility keeps the set of NPIs it has
 * counted: a DISTINCT ... ORDER BY npi over the national file took 7-10 s (a sort, and a seek per row through
 * the NPI index); this reads its million rows in under 2 s, and the sets hold one entry per distinct pair.
 */
export function facilityProviderCounts(db: Database.Database, facilities: Facility[]): Map<number, number> {
  const byKey = new Map<string, number>();
  for (const f of facilities) byKey.set(`${nameKey(f.name)}|${f.state}`, f.id);
  const keyOf = new Map<string, number | null>();
  const clinicians = new Map<number, Set<string>>();
  const rows = db
    .prepare('SELECT s.npi, s.state, f.value FROM stage_clinicians s, json_each(s.facility_names) f')
    .raw()
    .iterate() as Iterable<[npi: string, state: string, name: string]>;
  for (const [npi, state, name] of rows) {
    const lookup = `${name}|${state}`;
    let id = keyOf.get(lookup);
    if (id === undefined) {
      id = byKey.get(`${nameKey(name)}|${state}`) ?? null;
      keyOf.set(lookup, id);
    }
    if (id === null) continue;
    let npis = clinicians.get(id);
    if (npis === undefined) clinicians.set(id, (npis = new Set()));
    npis.add(npi);
  }
  return new Map([...clinicians].map(([id, npis]) => [id, npis.size]));
}
