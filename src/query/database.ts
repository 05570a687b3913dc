import Database from 'better-sqlite3';

/** SQLite's page cache per connection, KiB (negative: a size, not a page count): hot pages skip a read. */
const PAGE_CACHE_KIB = 16 * 1024;

/**
 * Opens the API database read-only. better-sqlite3 is built without URI filenames, so `immutable=1` is not
 * available; `query_only` guards against writes instead, and the build's rename-into-place contract
 * (docs/schema.md) keeps an open handle on the old file valid until we close it.
 *
 * Never memory-mapped (`mmap_size = 0`, whatever the SQLite build's default): a mapped file that shrinks
 * under the process (`truncate`, a copy over it in place) kills it with SIGBUS on the next read, which no
 * code can catch. Read through the page cache, the same file gives an error that is reported instead.
 *
 * Its read lock is taken at the first read and held until it is closed (`locking_mode = EXCLUSIVE`; readers
 * share it). In SQLite's normal mode every statement takes the lock, reads the file's change counter and
 * lets the lock go again: system calls that cost more than the lookup itself (bench/request-costs.ts,
 * "uncached answers"). Nothing writes a served file in place: a build is renamed into place (a new file),
 * and the server reads a private copy unless --no-snapshot; an SQLite writer on the same file would be told
 * "database is locked" while it is open.
 */
export function openReadOnly(file: string): Database.Database {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  db.pragma('query_only = ON');
  db.pragma('mmap_size = 0');
  db.pragma('locking_mode = EXCLUSIVE');
  db.pragma(`cache_size = -${PAGE_CACHE_KIB}`);
  return db;
}

/**
 * A bound parameter of a statement that reads more than one table (a JOIN, a `json_each`), as SQL:
 * `CAST(? AS TEXT)`, or `CAST(@name AS TEXT)`. Compared bare (`h.zip_code = ?`) in such a statement, a bound
 * value is one SQLite's planner may use, so SQLite plans the statement again whenever new values are bound,
 * which better-sqlite3 does on every call: planning cost several times the lookup itself (a ZIP's record, the
 * same plan either way; bench/request-costs.ts, "uncached answer"). A cast value is opaque to the planner: the
 * statement keeps the plan it was prepared with. For lookups by key (equality), where no value changes the best
 * plan; a range that a value may narrow keeps its bare parameter.
 */
export function bound(type: 'TEXT' | 'INTEGER', name?: string): string {
  return `CAST(${name === undefined ? '?' : `@${name}`} AS ${type})`;
}
