import type Database from 'better-sqlite3';

/** One census value of a ZIP as the build stored it: NULL when the source suppressed it. */
export interface CensusValue {
  measure: string;
  value: number | null;
  /** The manifest key of the source it came from; its vintage is in `meta.sources`. */
  source: string;
}

/** The census rows of a ZIP, and whether the build knows the ZIP at all. */
export class CensusQueries {
  private readonly values: Database.Statement;
  private readonly zip: Database.Statement;

  constructor(db: Database.Database) {
    this.values = db.prepare('SELECT measure, value, source FROM census WHERE zip_code = ?');
    this.zip = db.prepare('SELECT city, state FROM zips WHERE zip_code = ?');
  }

  /** Every stored census value of a ZIP (measures no source gives have no row). */
  byZip(zipCode: string): CensusValue[] {
    return this.values.all(zipCode) as CensusValue[];
  }

  /** The ZIP's city and state, or undefined when the build does not score it. */
  place(zipCode: string): { city: string; state: string } | undefined {
    return this.zip.get(zipCode) as { city: string; state: string } | undefined;
  }
}
