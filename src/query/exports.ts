import type Database from 'better-sqlite3';
import type { DataQualityCatalog } from './data-quality.ts';
import { COMPONENT_COLUMNS, COMPONENTS, componentColumn, isNullable } from '../../core/components.ts';

/** How a column's SQL value is published: booleans are stored 0/1, `json` columns hold JSON text. */
export type ExportKind = 'text' | 'integer' | 'number' | 'boolean' | 'json';

export interface ExportColumn {
  name: string;
  kind: ExportKind;
  nullable: boolean;
}

/** The resources that can be exported, by the path segment of `exports/{name}/`. */
export type ExportName = 'health-scores' | 'providers' | 'facilities';

/** Filters of an export; absent fields do not filter. */
export interface ExportFilter {
  scoreTypeId?: number;
  state?: string;
}

interface ExportTable {
  columns: readonly ExportColumn[];
  /** SELECT list in column order. */
  select: string;
  from: string;
  /** The unique column the keyset walks in order, and the value that comes before every key. */
  key: string;
  start: string | number;
  /** SQL of each filter that may be set. */
  filters: Partial<Record<keyof ExportFilter, string>>;
  /**
   * With a filter set, how far past `after` one batch may look (`key <= until`), so a filter that matches few
   * rows costs each batch a window of the table, not the rest of it: the key after which the window ends.
   * Absent: an index bounds the batch already.
   */
  windowEnd?: (after: string | number) => string | number;
  /** The last key a window can reach (past it, the export is done). */
  lastKey?: string | number;
}

const column = (name: string, kind: ExportKind, nullable = false): ExportColumn => ({ name, kind, nullable });

/** Rows of storage order a filtered provider batch looks at: about 4 ms of SQLite, whatever the filter matches. */
export const ROWID_WINDOW = 20_000;
/** ZIP numbers a filtered health-score batch looks at. */
export const ZIP_WINDOW = 3_000;

/**
 * The health-score export: the records with their data quality as JSON (without the prose note, which the
 * single-record endpoints carry), built in SQL so rows stream without per-row work in JavaScript.
 */
function healthScoresTable(quality: DataQualityCatalog | null): ExportTable {
  const clinicianSql = quality?.sql() ?? { provider: `'measured'`, clinicians: 'json_array()' };
  const withMeasure = quality?.typesWithPrevalence ?? [];
  const dataQuality = `json_object(
      'components', json_object('people', CASE WHEN z.imputed IS NULL THEN 'measured' ELSE 'estimated' END, 'provider', ${clinicianSql.provider}, 'hospital', 'measured', 'travel', 'measured'),
      'small_population', json(CASE WHEN z.small_population = 1 THEN 'true' ELSE 'false' END),
      'travel_times', CASE WHEN z.road_times = 1 THEN 'road' ELSE 'straight_line' END,
      'location', CASE WHEN z.point_source = 'hud_residential' THEN 'residents' ELSE 'area' END,
      'prevalence', CASE WHEN h.prevalence_used = 1 THEN 'used' WHEN h.score_type_id IN (${withMeasure.join(',') || 'NULL'}) THEN 'missing' ELSE 'none' END,
      'imputed', json(CASE WHEN z.imputed IS NULL THEN '[]' ELSE '["' || replace(z.imputed, ',', '","') || '"]' END),
      'clinicians', ${clinicianSql.clinicians})`;
  return {
    columns: [
      column('id', 'integer'),
      column('zip_code', 'text'),
      column('state', 'text'),
      column('state_name', 'text'),
      column('city', 'text'),
      column('latitude', 'number'),
      column('longitude', 'number'),
      column('healthscore', 'integer'),
      ...COMPONENTS.map((c) => column(componentColumn(c), 'integer', isNullable(c))),
      column('label', 'text'),
      column('grade', 'text'),
      column('color', 'text'),
      column('score_type', 'text'),
      column('data_quality', 'json'),
    ],
    select: `h.id, h.zip_code, z.state, z.state_name, z.city, z.latitude, z.longitude, h.healthscore,
      ${COMPONENT_COLUMNS.map((c) => `h.${c}`).join(', ')}, h.label, h.grade, h.color, t.name, ${dataQuality}`,
    from: 'health_scores h JOIN zips z ON z.zip_code = h.zip_code JOIN score_types t ON t.id = h.score_type_id',
    key: 'h.zip_code',
    start: '',
    filters: { scoreTypeId: 'h.score_type_id = @scoreTypeId', state: 'h.state = @state' },
    // A state's ZIPs are walked in ZIP order through the type's index: 3,000 ZIP numbers at a time (about
    // 1,000 ZIPs of a national build), not every ZIP after the last one sent.
    windowEnd: (after) => String(Math.min(99_999, (after === '' ? 0 : Number(after)) + ZIP_WINDOW)).padStart(5, '0'),
    lastKey: '99999',
  };
}

const TABLES: Record<ExportName, ExportTable> = {
  'health-scores': healthScoresTable(null),
  providers: {
    columns: [
      column('npi', 'text'),
      column('first_name', 'text'),
      column('last_name', 'text'),
      column('credential', 'text'),
      column('gender', 'text'),
      column('primary_taxonomy', 'text', true),
      column('primary_specialty', 'text'),
      column('telehealth', 'boolean'),
      column('address', 'text'),
      column('city', 'text'),
      column('state', 'text'),
      column('zip_code', 'text'),
      column('phone', 'text'),
      column('medical_school', 'text', true),
      column('residency', 'text', true),
      column('graduation_year', 'integer', true),
      column('facility_names', 'json'),
    ],
    select: `npi, first_name, last_name, credential, gender, primary_taxonomy, primary_specialty, telehealth, address, city, state,
      zip_code, phone, medical_school, residency, graduation_year, facility_names`,
    from: 'providers',
    // Storage order: a sequential scan, twice as fast at 4 million rows as walking the NPI index.
    key: 'rowid',
    start: 0,
    // `+state`: no index for the filter, so each batch continues the rowid scan (the state index would make
    // SQLite sort the whole state again for every batch), a window of rowids at a time.
    filters: { state: '+state = @state' },
    windowEnd: (after) => Number(after) + ROWID_WINDOW,
  },
  facilities: {
    columns: [
      column('id', 'integer'),
      column('facility_name', 'text'),
      column('facility_type', 'text'),
      column('address', 'text'),
      column('city_name', 'text'),
      column('state_code', 'text'),
      column('state_name', 'text'),
      column('zip_code', 'text', true),
      column('latitude', 'number', true),
      column('longitude', 'number', true),
      column('location_precision', 'text'),
      column('facility_rating', 'integer', true),
      column('emergency_services', 'boolean'),
      column('telehealth', 'boolean'),
      column('phone_number', 'text'),
      column('website', 'text'),
      column('staffed_beds', 'integer', true),
      column('provider_count', 'integer'),
      column('ccn', 'text', true),
    ],
    select: `id, facility_name, facility_type, address, city_name, state_code, state_name, zip_code, latitude, longitude, location_precision,
      facility_rating, emergency_services, telehealth, phone_number, website, staffed_beds, provider_count, ccn`,
    from: 'facilities',
    key: 'id',
    start: -1,
    filters: { state: 'state_code = @state' },
  },
};

/** The columns of an export, in order. */
export function exportColumns(name: ExportName): readonly ExportColumn[] {
  return TABLES[name].columns;
}

/**
 * The SQL of the bulk exports. Rows are read in keyset batches (`key > @after ORDER BY key LIMIT n`): each
 * batch is iterated to its end within one call, so no statement stays open while the response waits for a
 * slow client, concurrent exports share the prepared statements, and memory is one batch whatever the size.
 * Statements are prepared on first use of each filter combination and reused after that.
 */
export class ExportQueries {
  private readonly statements = new Map<string, Database.Statement>();
  private readonly tables: Record<ExportName, ExportTable>;
  /** The providers table's largest rowid, once a filtered export has read it. */
  private maxRowid: number | undefined;

  private readonly db: Database.Database;

  constructor(db: Database.Database, quality: DataQualityCatalog) {
    this.db = db;
    this.tables = { ...TABLES, 'health-scores': healthScoresTable(quality) };
  }

  /** The key before the first row of an export. */
  start(name: ExportName): string | number {
    return this.tables[name].start;
  }

  /**
   * Calls `each` with the values (in column order) of up to `limit` rows after key `after`, and says how many
   * there were and the key to continue after (undefined when the export is done). With a filter, a batch looks
   * at one window of the table (`windowEnd`), so it may find no row and still not be the last.
   */
  batch(
    name: ExportName,
    filter: ExportFilter,
    after: string | number,
    limit: number,
    each: (values: unknown[]) => void,
  ): { rows: number; next: string | number | undefined } {
    const table = this.tables[name];
    const set = (Object.keys(table.filters) as Array<keyof ExportFilter>).filter((f) => filter[f] !== undefined);
    const windowed = table.windowEnd !== undefined && set.length > 0;
    const cacheKey = `${name} ${set.join()}`;
    let statement = this.statements.get(cacheKey);
    if (!statement) {
      const where = [...set.map((f) => table.filters[f]!), `${table.key} > @after`, ...(windowed ? [`${table.key} <= @until`] : [])].join(
        ' AND ',
      );
      // The key is selected last, after the published columns.
      statement = this.db
        .prepare(`SELECT ${table.select}, ${table.key} FROM ${table.from} WHERE ${where} ORDER BY ${table.key} LIMIT @limit`)
        .raw(true);
      this.statements.set(cacheKey, statement);
    }
    const until = windowed ? table.windowEnd!(after) : undefined;
    const args: Record<string, unknown> = { after, limit, ...(windowed && { until }) };
    for (const f of set) args[f] = filter[f];
    let last: string | number | undefined;
    let rows = 0;
    const keyAt = table.columns.length;
    for (const values of statement.iterate(args) as IterableIterator<unknown[]>) {
      last = values[keyAt] as string | number;
      rows++;
      each(values);
    }
    if (rows === limit) return { rows, next: last };
    if (until === undefined || until >= this.lastKey(name)) return { rows, next: undefined };
    return { rows, next: until };
  }

  /** The last key of a windowed table (its largest rowid, read once). */
  private lastKey(name: ExportName): string | number {
    const table = this.tables[name];
    if (table.lastKey === undefined) {
      this.maxRowid ??= (this.db.prepare(`SELECT max(rowid) FROM ${table.from}`).pluck().get() as number | null) ?? 0;
      return this.maxRowid;
    }
    return table.lastKey;
  }
}
