import type Database from 'better-sqlite3';
import { RowReject } from '../errors.ts';
import type { ClinicianRow, ProviderRow } from '../layouts/providers.ts';

/**
 * Streams providers and clinician rows into staging tables of the output database as they are read,
 * so 4 million NPPES rows never sit in memory. A repeated NPI keeps its last row (weekly NPPES files
 * repeat updated NPIs); the earlier row is reported as superseded.
 */
export class ProviderStage {
  private readonly insert: Database.Statement;
  private readonly lineOf: Database.Statement;
  private readonly replace: Database.Statement;
  private readonly insertClinician: Database.Statement;
  private pending = 0;
  /** Calls that report the superseded earlier line; set by the ingest step. */
  onSuperseded: (sourceKey: string, line: number, npi: string) => void = () => {};

  constructor(private readonly db: Database.Database) {
    db.exec(`
      CREATE TABLE stage.stage_providers (
        npi TEXT PRIMARY KEY, source TEXT, line INTEGER, first_name TEXT, last_name TEXT, credential TEXT, gender TEXT,
        address TEXT, city TEXT, state TEXT, zip_code TEXT, zcta TEXT, phone TEXT, taxonomy TEXT, taxonomies TEXT
      ) WITHOUT ROWID;
      CREATE TABLE stage.stage_clinicians (
        npi TEXT, line INTEGER, first_name TEXT, last_name TEXT, credential TEXT, gender TEXT, medical_school TEXT,
        graduation_year INTEGER, specialty TEXT, telehealth INTEGER, facility_names TEXT, city TEXT, state TEXT, zip_code TEXT, zcta TEXT
      );`);
    const columns = 'npi, source, line, first_name, last_name, credential, gender, address, city, state, zip_code, zcta, phone, taxonomy, taxonomies';
    this.insert = db.prepare(`INSERT OR IGNORE INTO stage_providers (${columns}) VALUES (${columns.split(',').map(() => '?').join(',')})`);
    this.lineOf = db.prepare('SELECT source, line FROM stage_providers WHERE npi = ?');
    this.replace = db.prepare(`REPLACE INTO stage_providers (${columns}) VALUES (${columns.split(',').map(() => '?').join(',')})`);
    this.insertClinician = db.prepare(`INSERT INTO stage_clinicians VALUES (${Array(15).fill('?').join(',')})`);
    db.exec('BEGIN');
  }

  addProvider(row: ProviderRow, line: number, sourceKey: string, zcta: string | null): void {
    const values = [row.npi, sourceKey, line, row.firstName, row.lastName, row.credential, row.gender, row.address, row.city, row.state, row.zip, zcta, row.phone, row.taxonomy, row.taxonomies.join(';')];
    if (this.insert.run(values).changes === 0) {
      const earlier = this.lineOf.get(row.npi) as { source: string; line: number };
      this.replace.run(values);
      this.onSuperseded(earlier.source, earlier.line, row.npi);
    }
    this.tick();
  }

  addClinician(row: ClinicianRow, line: number, zcta: string | null): void {
    this.insertClinician.run(row.npi, line, row.firstName, row.lastName, row.credential, row.gender, row.medicalSchool, row.graduationYear, row.specialty, row.telehealth ? 1 : 0, JSON.stringify(row.facilityNames), row.city, row.state, row.zip, zcta);
    this.tick();
  }

  /** Commits in batches: one transaction per 50,000 rows keeps inserts fast without a huge journal. */
  private tick(): void {
    if (++this.pending >= 50_000) {
      this.db.exec('COMMIT; BEGIN');
      this.pending = 0;
    }
  }

  finish(): void {
    this.db.exec('COMMIT');
  }
}

/** Reject used for an earlier row replaced by a later one with the same key. */
export function superseded(npi: string): RowReject {
  return new RowReject(`NPI ${npi} appears again later; the later row was kept`, 'superseded');
}
