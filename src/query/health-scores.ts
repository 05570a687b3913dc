import type Database from 'better-sqlite3';
import { bound } from './database.ts';
import { QUALITY_COLUMNS, type DataQualityCatalog, type QualityColumns } from './data-quality.ts';
import type { SortOrder } from './list-order.ts';
import { roundMiles } from './nearby.ts';
import { ScoreListIndex, type ScoreFilter } from './score-lists.ts';
import type { HealthScoreRecord, ScoreSummary } from '../answers/health-scores.ts';
import { COMPONENT_COLUMNS } from '../../core/components.ts';

/** A ZIP's point and overall score, for GeoJSON. */
export type ScorePoint = Pick<HealthScoreRecord, 'zip_code' | 'latitude' | 'longitude' | 'healthscore' | 'label' | 'color'>;

export type { ScoreFilter } from './score-lists.ts';
export { SCORE_SORT_KEYS } from './score-lists.ts';

const RECORD_COLUMNS = `h.id, h.zip_code, z.state, z.state_name, z.city, z.latitude, z.longitude, z.population, h.healthscore,
  ${COMPONENT_COLUMNS.map((c) => `h.${c}`).join(', ')}, h.label, h.grade, h.color, t.name AS score_type, ${QUALITY_COLUMNS}`;

type RecordRow = Omit<HealthScoreRecord, 'data_quality' | 'distance_miles'> & QualityColumns;
const RECORD_FROM = `health_scores h JOIN zips z ON z.zip_code = h.zip_code JOIN score_types t ON t.id = h.score_type_id`;

/**
 * The SQL of the health-score endpoints. Fixed statements are prepared in the constructor; filtered ones are
 * prepared on first use of each combination of filters (at most 4) and reused after that. Counts and pages of
 * the list come from the list index (score-lists.ts), so a deep page, a rare filter or any sort costs what a
 * first page does; the page's records are then read by their ZIP codes (lookups in the unique index).
 */
export class HealthScoreQueries {
  private readonly one: Database.Statement;
  private readonly summaries: Database.Statement;
  private readonly records: Database.Statement;
  private readonly filtered = new Map<string, Database.Statement>();
  private readonly lists: ScoreListIndex;

  private readonly db: Database.Database;
  private readonly quality: DataQualityCatalog;

  constructor(db: Database.Database, quality: DataQualityCatalog) {
    this.db = db;
    this.quality = quality;
    this.one = db.prepare(
      `SELECT ${RECORD_COLUMNS} FROM ${RECORD_FROM} WHERE h.score_type_id = ${bound('INTEGER')} AND h.zip_code = ${bound('TEXT')}`,
    );
    this.summaries = db.prepare(`SELECT h.zip_code, h.healthscore, h.label, h.grade, t.name AS score_type
      FROM health_scores h JOIN score_types t ON t.id = h.score_type_id WHERE h.zip_code = ${bound('TEXT')} ORDER BY h.score_type_id`);
    this.records = db.prepare(
      `SELECT ${RECORD_COLUMNS} FROM ${RECORD_FROM} WHERE h.score_type_id = ${bound('INTEGER')} AND h.zip_code IN (SELECT value FROM json_each(${bound('TEXT')}))`,
    );
    this.lists = new ScoreListIndex(db);
  }

  /** The record of one ZIP and score type, or undefined when the ZIP has no score. */
  byZip(zipCode: string, scoreTypeId: number): HealthScoreRecord | undefined {
    const row = this.one.get(scoreTypeId, zipCode) as RecordRow | undefined;
    return row && this.quality.publish(row);
  }

  /** Every score type's summary for one ZIP, in score type id order (empty when the ZIP has no score). */
  allScores(zipCode: string): ScoreSummary[] {
    return this.summaries.all(zipCode) as ScoreSummary[];
  }

  /**
   * How many records match the filter, and the records of one window in the order of `sort` (ties by ZIP
   * code); under `near`, each with its `distance_miles` (2 decimals).
   */
  list(filter: ScoreFilter, sort: SortOrder, offset: number, limit: number): { count: number; results: HealthScoreRecord[] } {
    const { count, zips, miles } = this.lists.select(filter, sort, offset, limit);
    if (zips.length === 0) return { count, results: [] };
    const byZip = new Map((this.records.all(filter.scoreTypeId, JSON.stringify(zips)) as RecordRow[]).map((row) => [row.zip_code, row]));
    const results = zips.map((zip, i) => {
      const record = this.quality.publish(byZip.get(zip)!);
      return miles ? { ...record, distance_miles: roundMiles(miles[i]) } : record;
    });
    return { count, results };
  }

  /**
   * Every matching ZIP's point and score, ordered by ZIP code, in slices of `slice` rows (a keyset walk on
   * the ZIP code, which the index returns in order), so a caller can give the event loop back between slices.
   */
  *pointSlices(filter: ScoreFilter, slice: number): Generator<ScorePoint[]> {
    const { sql, args } = whereClause(filter);
    const statement = this.statement(
      `points ${sql}`,
      () =>
        `SELECT h.zip_code, z.latitude, z.longitude, h.healthscore, h.label, h.color
       FROM health_scores h JOIN zips z ON z.zip_code = h.zip_code WHERE ${sql} AND h.zip_code > @after ORDER BY h.zip_code LIMIT @limit`,
    );
    let after = '';
    for (;;) {
      const rows = statement.all({ ...args, after, limit: slice }) as ScorePoint[];
      if (rows.length > 0) yield rows;
      if (rows.length < slice) return;
      after = rows[rows.length - 1].zip_code;
    }
  }

  private statement(key: string, sql: () => string): Database.Statement {
    let statement = this.filtered.get(key);
    if (!statement) {
      statement = this.db.prepare(sql());
      this.filtered.set(key, statement);
    }
    return statement;
  }
}

/** The WHERE clause of a filter without a city (GeoJSON), with named arguments; the SQL text depends only on which filters are set. */
function whereClause(filter: ScoreFilter): { sql: string; args: Record<string, string | number> } {
  const clauses = ['h.score_type_id = @scoreTypeId'];
  const args: Record<string, string | number> = { scoreTypeId: filter.scoreTypeId };
  if (filter.state !== undefined) {
    clauses.push('h.state = @state');
    args.state = filter.state;
  }
  if (filter.minScore !== undefined) {
    clauses.push('h.healthscore >= @minScore');
    args.minScore = filter.minScore;
  }
  if (filter.maxScore !== undefined) {
    clauses.push('h.healthscore <= @maxScore');
    args.maxScore = filter.maxScore;
  }
  return { sql: clauses.join(' AND '), args };
}
