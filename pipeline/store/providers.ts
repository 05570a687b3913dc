import type Database from 'better-sqlite3';
import { stopwatch } from '../base/stopwatch.ts';
import { logLeftOut, type Reconciler } from '../ingest/reconcile.ts';
import { specialtyOfTaxonomy, type TaxonomyRow } from '../layouts/providers.ts';
import type { ProviderStage } from './provider-stage.ts';

/** Kept NPPES providers per (ZCTA, primary taxonomy): ZCTA '' = not located, taxonomy '' = none. */
export type ProviderCounts = Array<{ zcta: string; taxonomy: string; count: number }>;

/**
 * Ends staging once ingest has read every file: the rows of an NPI that a later row replaced are deleted and
 * reported to the reconciliation as superseded (the ingest table counted them landed, so the log says so),
 * and the kept providers are counted per (ZCTA, primary taxonomy) for the supply.
 */
export function endStaging(stage: ProviderStage, reconciler: Reconciler, log: (line: string) => void): ProviderCounts {
  const superseded = stage.finish();
  for (const { source, line, npi } of superseded)
    reconciler.withdraw(source, line, `NPI ${npi} appears again later; the later row was kept`, 'superseded', 'npi_superseded');
  logLeftOut(
    log,
    'rows of an NPI repeated later, superseded after landing',
    superseded.map(({ source }) => source),
  );
  return stage.supplyCounts();
}

/**
 * Completes the `providers` table: the NPPES individuals staged into it (ProviderStage, the last row of each
 * NPI) get, in place, what their Doctors and Clinicians rows say (school, graduation year, telehealth,
 * facilities, and the CMS specialty when the NUCC code set does not name theirs); clinicians known only from
 * Doctors and Clinicians are appended. The unique NPI index is built afterwards in one sort (createIndexes).
 */
export function completeProviders(
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

/** Clinicians known only from Doctors and Clinicians, per ZCTA and CMS specialty (the supply adds them to NPPES's counts). */
export function clinicianOnlyCounts(db: Database.Database): Array<{ zcta: string; specialty: string; n: number }> {
  return db
    .prepare(`SELECT s.zcta AS zcta, c.specialty AS specialty, COUNT(*) AS n FROM clinician c JOIN stage_clinicians s ON s.rowid = c.first_row
    WHERE c.provider_row = 0 AND s.zcta IS NOT NULL GROUP BY 1, 2`)
    .all() as Array<{ zcta: string; specialty: string; n: number }>;
}

/**
 * Every (clinician, state, facility name) of the Doctors and Clinicians rows, in table order, for the
 * facilities' clinician counts (facilities/affiliations.ts): read as they come, not sorted, which is what
 * keeps that count fast.
 */
export function clinicianFacilityNames(db: Database.Database): Iterable<[npi: string, state: string, name: string]> {
  return db.prepare('SELECT s.npi, s.state, f.value FROM stage_clinicians s, json_each(s.facility_names) f').raw().iterate() as Iterable<
    [npi: string, state: string, name: string]
  >;
}
