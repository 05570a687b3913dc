import path from 'node:path';
import type Database from 'better-sqlite3';
import type { Meta } from '../answers/reference.ts';

/** Columns this code reads that earlier builds lack: such a build must be rebuilt, and the error says so. */
const NEWER_COLUMNS: ReadonlyArray<[table: string, column: string]> = [['zips', 'point_source']];

/** Reads the `meta` table (values are JSON text); throws when the file is not an API database, or one too old to read. */
export function readBuildMeta(db: Database.Database): Meta {
  const rows = db.prepare('SELECT key, value FROM meta').all() as Array<{ key: string; value: string }>;
  const meta = new Map(rows.map((row) => [row.key, JSON.parse(row.value) as unknown]));
  const buildId = meta.get('build_id');
  if (typeof buildId !== 'string' || buildId === '') {
    throw new Error(`${db.name} has no build_id in its meta table; rebuild it with \`hcas build\``);
  }
  for (const [table, column] of NEWER_COLUMNS) {
    const columns = db.prepare(`SELECT name FROM pragma_table_info(?)`).pluck().all(table) as string[];
    if (!columns.includes(column))
      throw new Error(`${db.name} was built by an older hcas (its ${table} table has no ${column} column); rebuild it with \`hcas build\``);
  }
  return {
    build_id: buildId,
    built_at: String(meta.get('built_at') ?? ''),
    dataset: meta.get('dataset') ?? null,
    sources: asArray(meta.get('sources')).map(withoutLocalPath),
    reconciliation: asArray(meta.get('reconciliation')).map(withoutLocalPath),
    row_counts: meta.get('row_counts') ?? null,
    data_quality: asObject(meta.get('data_quality')),
    provider_coverage: asObject(meta.get('provider_coverage')),
    validation: asObject(meta.get('validation')),
  };
}

function asArray(value: unknown): Array<Record<string, unknown>> {
  return Array.isArray(value) ? value : [];
}

function asObject(value: unknown): Record<string, unknown> | null {
  return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : null;
}

/** Source entries carry the builder's file paths; the API shows only the file name, never a server path. */
function withoutLocalPath(entry: Record<string, unknown>): Record<string, unknown> {
  if (entry === null || typeof entry !== 'object') return entry;
  const copy: Record<string, unknown> = { ...entry };
  for (const key of ['path', 'file']) {
    if (typeof copy[key] === 'string') copy[key] = path.basename(copy[key] as string);
  }
  return copy;
}
