import Database from 'better-sqlite3';

/** Bytes of the file SQLite may memory-map; reads then skip a copy through its page cache. */
const MMAP_BYTES = 256 * 1024 * 1024;

/**
 * Opens the API database read-only. better-sqlite3 is built without URI filenames, so `immutable=1` is not
 * available; `query_only` guards against writes instead, and the build's rename-into-place contract
 * (docs/schema.md) keeps an open handle on the old file valid until we close it.
 */
export function openReadOnly(file: string): Database.Database {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  db.pragma('query_only = ON');
  db.pragma(`mmap_size = ${MMAP_BYTES}`);
  return db;
}
