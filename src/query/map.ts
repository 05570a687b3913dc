import type Database from 'better-sqlite3';
import { COMPONENT_COLUMNS, type Component, type NullableComponent } from '../../core/components.ts';

/** One ZIP code as the map draws it: where its residents live, its place and its residents. */
export interface MapZipRow {
  zip_code: string;
  state: string;
  state_name: string;
  city: string;
  county_fips: string | null;
  latitude: number;
  longitude: number;
  residents: number;
}

/** One ZIP code's score of one type and its four components (provider null where the build has none). */
export type MapScoreRow = { zip_code: string; healthscore: number } & {
  [C in Component as `${C}_score`]: C extends NullableComponent ? number | null : number;
};

/** One row of the band table: the lowest score of a grade, its label and colour (pipeline/config/bands.ts, as the build stored it). */
export interface MapBandRow {
  min: number;
  label: string;
  grade: string;
  color: string;
}

/** What the map reads of a build: every ZIP code's point, its scores by type, the band table. Whole-table reads, made once per build by src/map. */
export class MapQueries {
  private readonly db: Database.Database;

  constructor(db: Database.Database) {
    this.db = db;
  }

  /** Every ZIP code of the build in ZIP order; residents 0 where the ACS has none. */
  zips(): MapZipRow[] {
    return this.db
      .prepare(
        `SELECT zip_code, state, state_name, city, county_fips, latitude, longitude, COALESCE(population, 0) AS residents
         FROM zips ORDER BY zip_code`,
      )
      .all() as MapZipRow[];
  }

  /** The scores of one score type, in ZIP order (a ZIP code without a score of this type has no row). */
  scores(scoreTypeId: number): MapScoreRow[] {
    return this.db
      .prepare(
        `SELECT zip_code, healthscore, ${COMPONENT_COLUMNS.join(', ')}
         FROM health_scores WHERE score_type_id = ? ORDER BY zip_code`,
      )
      .all(scoreTypeId) as MapScoreRow[];
  }

  /**
   * The band table the build scored with (meta.scoring.bands), highest first. A build that did not store it
   * gives the table its answers show: each grade's label, colour and lowest score.
   */
  bands(): MapBandRow[] {
    const stored = this.db.prepare("SELECT json_extract(value, '$.bands') FROM meta WHERE key = 'scoring'").pluck().get() as string | null;
    const bands = stored ? (JSON.parse(stored) as MapBandRow[]) : [];
    if (bands.length > 0) return [...bands].sort((a, b) => b.min - a.min);
    return this.db
      .prepare('SELECT MIN(healthscore) AS min, label, grade, color FROM health_scores GROUP BY grade, label, color ORDER BY min DESC')
      .all() as MapBandRow[];
  }
}
