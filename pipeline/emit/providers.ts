import type Database from 'better-sqlite3';
import type { TaxonomyRow } from '../layouts/providers.ts';
import { nameKey, type Facility } from '../facilities/merge.ts';
import { CATEGORY_NAMES, categoriesOfCmsSpecialty, categoriesOfTaxonomy, type Category } from '../score/specialties.ts';

/**
 * Turns the staging tables into the `providers` table: NPPES individuals joined on NPI with their Doctors
 * and Clinicians rows (school, graduation year, telehealth, facilities), plus clinicians known only from
 * Doctors and Clinicians. Specialty names come from the NUCC code set.
 */
export function emitProviders(db: Database.Database, taxonomy: Map<string, TaxonomyRow>): { providers: number; clinicianOnly: number } {
  db.exec('CREATE TEMP TABLE taxonomy (code TEXT PRIMARY KEY, specialty TEXT NOT NULL) WITHOUT ROWID');
  const insertTaxonomy = db.prepare('INSERT INTO taxonomy VALUES (?, ?)');
  db.transaction(() => {
    for (const row of taxonomy.values()) insertTaxonomy.run(row.code, row.specialization || row.classification);
  })();
  db.exec(`
    CREATE INDEX stage.stage_clinicians_npi ON stage_clinicians (npi);
    CREATE TEMP TABLE clinician AS
      SELECT npi, MIN(rowid) AS first_row, MAX(medical_school) AS medical_school, MAX(graduation_year) AS graduation_year,
             MAX(telehealth) AS telehealth, MAX(specialty) AS specialty,
             (SELECT json_group_array(DISTINCT f.value) FROM stage_clinicians s2, json_each(s2.facility_names) f WHERE s2.npi = s.npi) AS facility_names
      FROM stage_clinicians s GROUP BY npi;
    CREATE UNIQUE INDEX temp.clinician_npi ON clinician (npi);
    INSERT INTO providers
      SELECT p.npi, p.first_name, p.last_name, p.credential, p.gender, p.taxonomy,
             COALESCE(t.specialty, c.specialty, ''), COALESCE(c.telehealth, 0), p.address, p.city, p.state, p.zip_code, p.zcta, p.phone,
             c.medical_school, NULL, c.graduation_year, COALESCE(c.facility_names, '[]')
      FROM latest_provider l JOIN stage_providers p ON p.rowid = l.keep LEFT JOIN taxonomy t ON t.code = p.taxonomy LEFT JOIN clinician c ON c.npi = p.npi
      ORDER BY p.npi;
  `);
  const clinicianOnly = db.prepare(`
    INSERT INTO providers
      SELECT c.npi, s.first_name, s.last_name, s.credential, s.gender, NULL, c.specialty, c.telehealth, '', s.city, s.state, s.zip_code, s.zcta, '',
             c.medical_school, NULL, c.graduation_year, c.facility_names
      FROM clinician c JOIN stage_clinicians s ON s.rowid = c.first_row
      WHERE c.npi NOT IN (SELECT npi FROM latest_provider)
      ORDER BY c.npi`).run().changes;
  const providers = (db.prepare('SELECT COUNT(*) AS n FROM providers').get() as { n: number }).n;
  return { providers, clinicianOnly };
}

/** Clinicians per scoring category practising in each ZIP (by primary taxonomy, or CMS specialty without one). */
export function providerSupply(db: Database.Database, zipIndex: Map<string, number>): Record<Category, Float64Array> {
  const supply = Object.fromEntries(CATEGORY_NAMES.map((c) => [c, new Float64Array(zipIndex.size)])) as Record<Category, Float64Array>;
  const rows = db.prepare(`SELECT zcta, primary_taxonomy AS taxonomy, primary_specialty AS specialty, COUNT(*) AS n FROM providers WHERE zcta IS NOT NULL GROUP BY 1, 2, 3`).all() as Array<{ zcta: string; taxonomy: string | null; specialty: string; n: number }>;
  for (const row of rows) {
    const i = zipIndex.get(row.zcta);
    if (i === undefined) continue;
    const categories = row.taxonomy ? categoriesOfTaxonomy(row.taxonomy) : categoriesOfCmsSpecialty(row.specialty);
    for (const category of categories) supply[category][i] += row.n;
  }
  return supply;
}

/** Distinct clinicians affiliated with each facility (Doctors and Clinicians facility and hospital names, same state). */
export function facilityProviderCounts(db: Database.Database, facilities: Facility[]): Map<number, number> {
  const byKey = new Map<string, number>();
  for (const f of facilities) byKey.set(`${nameKey(f.name)}|${f.state}`, f.id);
  const counted = new Map<number, Set<string>>();
  for (const row of db.prepare('SELECT npi, state, facility_names FROM stage_clinicians').iterate() as Iterable<{ npi: string; state: string; facility_names: string }>) {
    for (const name of JSON.parse(row.facility_names) as string[]) {
      const id = byKey.get(`${nameKey(name)}|${row.state}`);
      if (id === undefined) continue;
      let set = counted.get(id);
      if (!set) counted.set(id, (set = new Set()));
      set.add(row.npi);
    }
  }
  return new Map([...counted].map(([id, set]) => [id, set.size]));
}
