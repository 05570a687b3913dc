import { statSync } from 'node:fs';
import type Database from 'better-sqlite3';
import { BadBuildError, checkHeader } from './check.ts';
import { openReadOnly } from './database.ts';

/**
 * The tables, and their columns, without which a file is not a build `hcas diff` can compare: every hcas
 * build has had them. Anything else may differ between schema versions and is compared where both have it.
 */
const REQUIRED: Readonly<Record<string, readonly string[]>> = {
  meta: ['key', 'value'],
  zips: ['zip_code'],
  health_scores: ['zip_code', 'score_type_id', 'healthscore'],
};

/**
 * One build file opened read-only for a comparison: its tables with their columns, and every `meta` value
 * parsed. Nothing here assumes a schema version beyond the required tables: readers ask `has` and
 * `columns` and read what is there.
 */
export class BuildFile {
  readonly file: string;
  readonly db: Database.Database;
  /** Table name -> its column names, in table order. */
  readonly tables: ReadonlyMap<string, readonly string[]>;
  /** Every `meta` key with its JSON value parsed. */
  readonly meta: Readonly<Record<string, unknown>>;

  private constructor(file: string, db: Database.Database) {
    this.file = file;
    this.db = db;
    const names = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all() as string[];
    this.tables = new Map(names.map((name) => [name, (db.pragma(`table_info("${name}")`) as Array<{ name: string }>).map((c) => c.name)]));
    const missing = Object.keys(REQUIRED).filter((name) => !this.tables.has(name));
    if (missing.length) throw new BadBuildError(`it has no ${missing.join(', ')} table: it is not an hcas build`);
    const columns = Object.entries(REQUIRED).flatMap(([table, names]) =>
      names.filter((name) => !this.has(table, name)).map((name) => `${table}.${name}`),
    );
    if (columns.length)
      throw new BadBuildError(`it has no column ${columns.join(', ')}, which every hcas build has: its scores cannot be compared`);
    const meta: Record<string, unknown> = {};
    for (const [key, value] of db.prepare('SELECT key, value FROM meta').raw().all() as Array<[string, string]>) {
      try {
        meta[key] = JSON.parse(value);
      } catch {
        meta[key] = value;
      }
    }
    if (typeof meta.build_id !== 'string' || meta.build_id === '')
      throw new BadBuildError('its meta table has no build_id: it is not an hcas build');
    this.meta = meta;
  }

  /**
   * Opens `file` read-only; a missing, damaged or foreign file throws BadBuildError naming what is wrong.
   * Only the header is checked against the size (not SQLite's quick_check, which reads every page): a
   * damaged page met while reading is reported as it comes.
   */
  static open(file: string): BuildFile {
    try {
      statSync(file);
    } catch (error) {
      const { code, message } = error as NodeJS.ErrnoException;
      // A link in a loop, or a folder this user may not enter, is not "no such file".
      throw new BadBuildError(code === 'ENOENT' ? 'no such file' : `the file cannot be read: ${message}`);
    }
    checkHeader(file);
    let db: Database.Database;
    try {
      db = openReadOnly(file);
    } catch (error) {
      throw new BadBuildError(`the file cannot be opened: ${(error as Error).message}`);
    }
    try {
      return new BuildFile(file, db);
    } catch (error) {
      db.close();
      throw error instanceof BadBuildError ? error : new BadBuildError((error as Error).message);
    }
  }

  /** Whether the table exists (with, when named, every one of the columns). */
  has(table: string, ...columns: string[]): boolean {
    const present = this.tables.get(table);
    return present !== undefined && columns.every((column) => present.includes(column));
  }

  /** The columns of a table, empty when the table is absent. */
  columns(table: string): readonly string[] {
    return this.tables.get(table) ?? [];
  }

  /** Closes the file (again is harmless). */
  close(): void {
    if (this.db.open) this.db.close();
  }
}
