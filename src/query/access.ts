import type Database from 'better-sqlite3';
import { bound } from './database.ts';

/** The travel facts of a ZIP (`zip_access`) with the name of its nearest general hospital. */
export interface ZipAccess {
  nearest_hospital_id: number | null;
  nearest_hospital_name: string | null;
  nearest_hospital_miles: number | null;
  hospitals_within_10_miles: number;
  /** Null when the build has no provider component (it could not count them). */
  primary_care_within_10_miles: number | null;
}

/** Per-ZIP access facts, for the widget. */
export class AccessQueries {
  private readonly one: Database.Statement;

  constructor(db: Database.Database) {
    this.one = db.prepare(`SELECT a.nearest_hospital_id, f.facility_name AS nearest_hospital_name, a.nearest_hospital_miles,
      a.hospitals_within_10_miles, a.primary_care_within_10_miles
      FROM zip_access a LEFT JOIN facilities f ON f.id = a.nearest_hospital_id WHERE a.zip_code = ${bound('TEXT')}`);
  }

  /** The access facts of one ZIP, or undefined when the build has none. */
  byZip(zipCode: string): ZipAccess | undefined {
    return this.one.get(zipCode) as ZipAccess | undefined;
  }
}
