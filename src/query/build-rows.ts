import type { BuildFile } from './build-file.ts';
import { COMPONENT_COLUMNS, COMPONENTS, perComponent, type Component } from '../../core/components.ts';

/** Columns of one table read whole: each named column's values in row order. */
export type ColumnValues = Map<string, unknown[]>;

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * The rows of a table, each as an array of the named columns (in the order `columns` lists those the file
 * has), ordered by `orderBy`. Only columns the file has are asked for (the caller picks them from
 * `BuildFile.columns`), so a build of another schema version is read on what it has.
 */
export function tableRows(
  build: BuildFile,
  table: string,
  columns: readonly string[],
  orderBy: string,
): { columns: string[]; rows: Iterable<unknown[]> } {
  const present = build.columns(table);
  const wanted = columns.filter((column) => present.includes(column));
  if (!present.length || !wanted.length) return { columns: wanted, rows: [] };
  const order = present.includes(orderBy) ? ` ORDER BY ${quote(orderBy)}` : '';
  const statement = build.db.prepare(`SELECT ${wanted.map(quote).join(', ')} FROM ${quote(table)}${order}`).raw();
  return { columns: wanted, rows: { [Symbol.iterator]: () => statement.iterate() as IterableIterator<unknown[]> } };
}

/** The named columns of a table, every row: each column's values in row order. */
export function readColumns(build: BuildFile, table: string, columns: readonly string[], orderBy: string): ColumnValues {
  const { columns: wanted, rows } = tableRows(build, table, columns, orderBy);
  const lists = wanted.map(() => [] as unknown[]);
  for (const row of rows) for (let c = 0; c < row.length; c++) lists[c].push(row[c]);
  return new Map(wanted.map((column, c) => [column, lists[c]]));
}

/**
 * One build's scores: per score type (in `types` order), one value per ZIP of `zipIndex`; NaN where absent or
 * null. Float32 holds the integer scores exactly in half the memory (11 types x 5 fields x 33,791 ZIPs).
 */
export type ScoreRows = { [C in Component | 'healthscore']: Float32Array[] } & {
  types: Array<{ id: number; slug: string; name: string }>;
  /** Band label per type and ZIP, as an index into `labels` (0, the empty string, where the ZIP has no row of that type). */
  label: Uint8Array[];
  labels: string[];
};

const SCORE_FIELDS = ['healthscore', ...COMPONENT_COLUMNS] as const;

/** Every `health_scores` row, laid out by score type and by the ZIP positions of `zipIndex`. */
export function readScores(build: BuildFile, zipIndex: ReadonlyMap<string, number>): ScoreRows {
  const types = build.has('score_types')
    ? (build.db.prepare('SELECT id, slug, name FROM score_types ORDER BY id').all() as ScoreRows['types'])
    : (build.db.prepare('SELECT DISTINCT score_type_id AS id FROM health_scores ORDER BY 1').all() as Array<{ id: number }>).map(
        ({ id }) => ({ id, slug: String(id), name: `score type ${id}` }),
      );
  const typeIndex = new Map(types.map((t, i) => [t.id, i]));
  const size = zipIndex.size;
  const fill = () => types.map(() => new Float32Array(size).fill(Number.NaN));
  const rows: ScoreRows = {
    types,
    healthscore: fill(),
    ...perComponent(fill),
    label: types.map(() => new Uint8Array(size)),
    labels: [''],
  };
  const fields = [rows.healthscore, ...COMPONENTS.map((c) => rows[c])];
  const columns = SCORE_FIELDS.map((column) => (build.has('health_scores', column) ? quote(column) : 'NULL'));
  const label = build.has('health_scores', 'label') ? 'label' : "''";
  const statement = build.db
    .prepare(`SELECT zip_code, score_type_id, ${columns.join(', ')}, ${label} FROM health_scores`)
    .raw() as unknown as { iterate(): IterableIterator<[string, number, ...Array<number | null>]> };
  for (const row of statement.iterate()) {
    const zip = zipIndex.get(row[0]);
    const t = typeIndex.get(row[1]);
    if (zip === undefined || t === undefined) continue;
    for (let f = 0; f < fields.length; f++) {
      const value = row[2 + f];
      if (value !== null) fields[f][t][zip] = value as number;
    }
    const label = String(row[7] ?? '');
    let at = rows.labels.indexOf(label);
    if (at < 0 && rows.labels.length < 256) at = rows.labels.push(label) - 1;
    rows.label[t][zip] = Math.max(0, at);
  }
  return rows;
}

/** One census measure of a build, by ZIP position: its value (NaN where null or absent) and the source key that gave it. */
export interface CensusColumn {
  value: Float64Array;
  /** Index into `sources`; 0 (the empty string) where the ZIP has no row. */
  source: Uint8Array;
  sources: string[];
}

/** The named census measures, laid out by the ZIP positions of `zipIndex` (typed arrays: a national build has 33,791 ZIPs per measure). */
export function readCensus(
  build: BuildFile,
  measures: readonly string[],
  zipIndex: ReadonlyMap<string, number>,
): Map<string, CensusColumn> {
  const sources = [''];
  const out = new Map(
    measures.map((m) => [m, { value: new Float64Array(zipIndex.size).fill(Number.NaN), source: new Uint8Array(zipIndex.size), sources }]),
  );
  if (!build.has('census', 'zip_code', 'measure', 'value') || !measures.length) return out;
  const source = build.has('census', 'source') ? 'source' : "''";
  const statement = build.db
    .prepare(`SELECT zip_code, measure, value, ${source} FROM census WHERE measure IN (${measures.map(() => '?').join(', ')})`)
    .raw() as unknown as { iterate(...args: unknown[]): IterableIterator<[string, string, number | null, string]> };
  for (const [zip, measure, value, from] of statement.iterate(...measures)) {
    const at = zipIndex.get(zip);
    if (at === undefined) continue;
    const column = out.get(measure)!;
    if (value !== null) column.value[at] = value;
    let s = sources.indexOf(from);
    if (s < 0 && sources.length < 256) s = sources.push(from) - 1;
    column.source[at] = Math.max(0, s);
  }
  return out;
}

/** Clinicians per value of one directory posting kind (`state`, `zip`, `specialty`), from the counts alone. */
export function readPostingCounts(build: BuildFile, kind: string): Map<string, number> | null {
  if (!build.has('provider_postings', 'kind', 'key', 'count')) return null;
  const rows = build.db.prepare('SELECT key, count FROM provider_postings WHERE kind = ?').raw().all(kind) as Array<[string, number]>;
  return new Map(rows);
}
