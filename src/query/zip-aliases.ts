import type Database from 'better-sqlite3';

/** A ZIP code without an area of its own and the scored ZIP code (ZCTA) it lies in (`zip_aliases`). */
export interface ZipAlias {
  zip_code: string;
  zcta: string;
  city: string;
  state: string;
  /** The crosswalk's type, e.g. `Post Office or large volume customer`; null when the crosswalk has none. */
  zip_type: string | null;
}

/**
 * PO-box and single-address ZIP codes (10008, 20500, 00501), answered by the ZIP code they lie in. A build
 * made before the table existed has none: every lookup then finds nothing.
 */
export class ZipAliasQueries {
  private readonly lookup: Database.Statement | undefined;

  constructor(db: Database.Database) {
    const present = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'zip_aliases'").get();
    this.lookup = present ? db.prepare('SELECT zip_code, zcta, city, state, zip_type FROM zip_aliases WHERE zip_code = ?') : undefined;
  }

  /** The alias of a 5-digit ZIP code that is not scored itself, if the crosswalk has one. */
  of(zip: string): ZipAlias | undefined {
    return this.lookup?.get(zip) as ZipAlias | undefined;
  }
}
