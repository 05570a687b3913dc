import type Database from 'better-sqlite3';
import type { ClinicianRow, ProviderRow } from '../layouts/providers.ts';
import { NpiIndex } from './npi-index.ts';

/** A staged provider row replaced by a later row with the same NPI (the later one is kept). */
export interface SupersededRow {
  source: string;
  line: number;
  npi: string;
}

/**
 * Streams providers and clinician rows into append-only staging tables (in an attached scratch database)
 * as they are read, so 4 million NPPES rows never sit in memory and each insert is an append, not a
 * B-tree update. Repeated NPIs are caught as they arrive with a compact NPI index (the last row wins), and
 * clinicians per (ZCTA, taxonomy) are counted on the way in, so no pass over the staged rows is needed later.
 */
export class ProviderStage {
  private readonly insertProvider: Database.Statement;
  private readonly insertClinician: Database.Statement;
  private readonly insertSuperseded: Database.Statement;
  private readonly npis = new NpiIndex();
  /** Interned (ZCTA, taxonomy) of every staged row, by row id - 1: small integers, not 4 million objects. */
  private readonly stagedKey: number[] = [];
  /** Key ids by ZCTA, then taxonomy: two lookups of strings that exist anyway, instead of building a key string per row. */
  private readonly keyIds = new Map<string, Map<string, number>>();
  /** Each key's ZCTA and taxonomy, in the order first seen. */
  private readonly keyNames: Array<[string, string]> = [];
  private readonly keyCounts: number[] = [];
  private providerRows = 0;
  private pending = 0;

  private readonly db: Database.Database;

  constructor(db: Database.Database) {
    this.db = db;
    db.exec(`
      CREATE TABLE stage.stage_providers (
        npi TEXT NOT NULL, source TEXT, line INTEGER, first_name TEXT, last_name TEXT, credential TEXT, gender TEXT,
        address TEXT, city TEXT, state TEXT, zip_code TEXT, zcta TEXT, phone TEXT, taxonomy TEXT, taxonomies TEXT
      );
      CREATE TABLE stage.stage_clinicians (
        npi TEXT, line INTEGER, first_name TEXT, last_name TEXT, credential TEXT, gender TEXT, medical_school TEXT,
        graduation_year INTEGER, specialty TEXT, telehealth INTEGER, facility_names TEXT, city TEXT, state TEXT, zip_code TEXT,
        zcta TEXT, in_nppes INTEGER
      );
      CREATE TABLE stage.superseded (row INTEGER PRIMARY KEY);`);
    this.insertProvider = db.prepare(`INSERT INTO stage_providers VALUES (${Array(15).fill('?').join(',')})`);
    this.insertClinician = db.prepare(`INSERT INTO stage_clinicians VALUES (${Array(16).fill('?').join(',')})`);
    this.insertSuperseded = db.prepare('INSERT INTO superseded VALUES (?)');
    db.exec('BEGIN');
  }

  addProvider(row: ProviderRow, line: number, sourceKey: string, zcta: string | null): void {
    this.insertProvider.run(
      row.npi,
      sourceKey,
      line,
      row.firstName,
      row.lastName,
      row.credential,
      row.gender,
      row.address,
      row.city,
      row.state,
      row.zip,
      zcta,
      row.phone,
      row.taxonomy,
      row.taxonomies.join(';'),
    );
    const rowid = ++this.providerRows;
    const earlier = this.npis.set(row.npi, rowid);
    if (earlier !== undefined) {
      this.insertSuperseded.run(earlier);
      this.keyCounts[this.stagedKey[earlier - 1]]--;
    }
    const zctaKey = zcta ?? '';
    const taxonomyKey = row.taxonomy ?? '';
    let byTaxonomy = this.keyIds.get(zctaKey);
    if (byTaxonomy === undefined) this.keyIds.set(zctaKey, (byTaxonomy = new Map()));
    let key = byTaxonomy.get(taxonomyKey);
    if (key === undefined) {
      key = this.keyCounts.length;
      byTaxonomy.set(taxonomyKey, key);
      this.keyNames.push([zctaKey, taxonomyKey]);
      this.keyCounts.push(0);
    }
    this.stagedKey.push(key);
    this.keyCounts[key]++;
    this.tick();
  }

  addClinician(row: ClinicianRow, line: number, zcta: string | null): void {
    this.insertClinician.run(
      row.npi,
      line,
      row.firstName,
      row.lastName,
      row.credential,
      row.gender,
      row.medicalSchool,
      row.graduationYear,
      row.specialty,
      row.telehealth ? 1 : 0,
      JSON.stringify(row.facilityNames),
      row.city,
      row.state,
      row.zip,
      zcta,
      this.npis.has(row.npi) ? 1 : 0,
    );
    this.tick();
  }

  /** Kept NPPES providers per (ZCTA, primary taxonomy); ZCTA '' = not located, taxonomy '' = none. */
  supplyCounts(): Array<{ zcta: string; taxonomy: string; count: number }> {
    return this.keyNames.map(([zcta, taxonomy], key) => ({ zcta, taxonomy, count: this.keyCounts[key] }));
  }

  /** Commits in batches: one transaction per 100,000 rows keeps inserts fast without a huge journal. */
  private tick(): void {
    if (++this.pending >= 100_000) {
      this.db.exec('COMMIT; BEGIN');
      this.pending = 0;
    }
  }

  /** Ends staging and returns the rows that a later row with the same NPI replaced, to report as superseded. */
  finish(): SupersededRow[] {
    this.db.exec('COMMIT');
    this.stagedKey.length = 0;
    return this.db
      .prepare('SELECT s.source, s.line, s.npi FROM superseded x JOIN stage_providers s ON s.rowid = x.row ORDER BY x.row')
      .all() as SupersededRow[];
  }
}
