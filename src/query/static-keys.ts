import type Database from 'better-sqlite3';

/** Keys read per query when walking a long key list (4 million NPIs), so memory stays flat. */
const BATCH = 10_000;

/**
 * The keys of the answers `hcas export-static` writes one file each: every ZIP code the API answers (scored,
 * or a PO-box ZIP answered by the ZIP it lies in), every facility id, every provider NPI, in key order.
 */
export class StaticKeyQueries {
  private readonly db: Database.Database;
  private readonly zipList: string;

  constructor(db: Database.Database) {
    this.db = db;
    const aliases = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'zip_aliases'").get();
    // A build made before zip_aliases existed answers its scored ZIP codes alone.
    this.zipList = aliases ? 'SELECT zip_code FROM zips UNION SELECT zip_code FROM zip_aliases' : 'SELECT zip_code FROM zips';
  }

  /** Every ZIP code a `{zip}` path may name with an answer: scored ones and their aliases, in order. */
  zipCodes(): string[] {
    return this.db.prepare(`${this.zipList} ORDER BY zip_code`).pluck().all() as string[];
  }

  /** Every facility id, in order. */
  facilityIds(): number[] {
    return this.db.prepare('SELECT id FROM facilities ORDER BY id').pluck().all() as number[];
  }

  /** How many providers the build has. */
  providerCount(): number {
    return this.db.prepare('SELECT count(*) FROM providers').pluck().get() as number;
  }

  /** Every provider NPI in order, read a batch at a time (the connection stays free between batches). */
  *providerNpis(): Generator<string> {
    const next = this.db.prepare('SELECT npi FROM providers WHERE npi > ? ORDER BY npi LIMIT ?').pluck();
    for (let after = ''; ; ) {
      const batch = next.all(after, BATCH) as string[];
      yield* batch;
      if (batch.length < BATCH) return;
      after = batch[batch.length - 1];
    }
  }
}
