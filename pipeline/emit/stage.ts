import type Database from 'better-sqlite3';
import type { ClinicianRow, ProviderRow } from '../layouts/providers.ts';

/**
 * Streams providers and clinician rows into append-only staging tables (in an attached scratch database)
 * as they are read, so 4 million NPPES rows never sit in memory and each insert is an append, not a
 * B-tree update. Repeated NPIs are resolved afterwards in one pass (`finish`): the last row wins.
 */
export class ProviderStage {
  private readonly insertProvider: Database.Statement;
  private readonly insertClinician: Database.Statement;
  private pending = 0;

  constructor(private readonly db: Database.Database) {
    db.exec(`
      CREATE TABLE stage.stage_providers (
        npi TEXT NOT NULL, source TEXT, line INTEGER, first_name TEXT, last_name TEXT, credential TEXT, gender TEXT,
        address TEXT, city TEXT, state TEXT, zip_code TEXT, zcta TEXT, phone TEXT, taxonomy TEXT, taxonomies TEXT
      );
      CREATE TABLE stage.stage_clinicians (
        npi TEXT, line INTEGER, first_name TEXT, last_name TEXT, credential TEXT, gender TEXT, medical_school TEXT,
        graduation_year INTEGER, specialty TEXT, telehealth INTEGER, facility_names TEXT, city TEXT, state TEXT, zip_code TEXT, zcta TEXT
      );`);
    this.insertProvider = db.prepare(`INSERT INTO stage_providers VALUES (${Array(15).fill('?').join(',')})`);
    this.insertClinician = db.prepare(`INSERT INTO stage_clinicians VALUES (${Array(15).fill('?').join(',')})`);
    db.exec('BEGIN');
  }

  addProvider(row: ProviderRow, line: number, sourceKey: string, zcta: string | null): void {
    this.insertProvider.run(row.npi, sourceKey, line, row.firstName, row.lastName, row.credential, row.gender, row.address, row.city, row.state, row.zip, zcta, row.phone, row.taxonomy, row.taxonomies.join(';'));
    this.tick();
  }

  addClinician(row: ClinicianRow, line: number, zcta: string | null): void {
    this.insertClinician.run(row.npi, line, row.firstName, row.lastName, row.credential, row.gender, row.medicalSchool, row.graduationYear, row.specialty, row.telehealth ? 1 : 0, JSON.stringify(row.facilityNames), row.city, row.state, row.zip, zcta);
    this.tick();
  }

  /** Commits in batches: one transaction per 100,000 rows keeps inserts fast without a huge journal. */
  private tick(): void {
    if (++this.pending >= 100_000) {
      this.db.exec('COMMIT; BEGIN');
      this.pending = 0;
    }
  }

  /**
   * Ends staging and returns the rows a later row with the same NPI replaced (later source, or later line of
   * the same source), so the caller can report them as superseded.
   */
  finish(): Array<{ source: string; line: number; npi: string }> {
    this.db.exec('COMMIT');
    this.db.exec(`CREATE TABLE stage.latest_provider AS SELECT npi, MAX(rowid) AS keep FROM stage_providers GROUP BY npi`);
    return this.db.prepare(`
      SELECT s.source, s.line, s.npi FROM stage_providers s JOIN latest_provider l ON l.npi = s.npi
      WHERE s.rowid <> l.keep AND l.npi IN (SELECT npi FROM stage_providers GROUP BY npi HAVING COUNT(*) > 1)`).all() as Array<{ source: string; line: number; npi: string }>;
  }
}
