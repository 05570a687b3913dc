import { rmSync } from 'node:fs';
import Database from 'better-sqlite3';
import { createIndexes, createSchema } from './schema.ts';

/** SQLite page cache (negative: KiB) while ingest appends rows, and for the stages after it. */
const INGEST_CACHE_KIB = -16_384;
const CACHE_KIB = -262_144;
/**
 * SQLite page cache (KiB) while the read indexes are built. SQLite sorts an index in memory up to the cache's
 * size before it spills, so with the large cache the providers' NPI index took 120-180 MB above a cache
 * already full: the build's peak (1.43 GiB at full scale). With 64 MiB the sort runs in the pages the smaller
 * cache frees: no memory above the peak before it, in the same 4-5 s (measured on the full-scale database).
 */
const INDEX_CACHE_KIB = -65_536;

/**
 * Creates the working store: the output database as ingest writes it (no journal, the schema), with the
 * scratch database attached as `stage` (staging tables that are dropped with it); on failure both files
 * are removed. The benchmark's NPPES-only ingest opens it the same way.
 */
export function openStore(file: string, stageFile: string): Database.Database {
  const db = new Database(file);
  try {
    db.pragma('journal_mode = OFF');
    db.pragma('synchronous = OFF');
    // Ingest only appends to the output (providers): a large page cache would hold 250 MB of rows already
    // written (a national build peaked at 1.9 GB with it, 1.65 GB without). The later stages read, join and
    // sort, and get the large cache (`widenCache`).
    db.pragma(`cache_size = ${INGEST_CACHE_KIB}`);
    db.pragma('temp_store = MEMORY');
    db.prepare('ATTACH DATABASE ? AS stage').run(stageFile);
    db.exec('PRAGMA stage.journal_mode = OFF; PRAGMA stage.synchronous = OFF');
    createSchema(db);
    return db;
  } catch (error) {
    db.close();
    for (const made of [file, stageFile]) rmSync(made, { force: true });
    throw error;
  }
}

/** Gives the stages after ingest, which read, join and sort, the large page cache. */
export function widenCache(db: Database.Database): void {
  db.pragma(`cache_size = ${CACHE_KIB}`);
}

/** Ends the working store's staging: the scratch database is detached and the read indexes are built. */
export function indexStore(db: Database.Database): void {
  db.exec('DETACH DATABASE stage');
  db.pragma(`cache_size = ${INDEX_CACHE_KIB}`);
  createIndexes(db);
}

/** Statistics for the query planner; sampled, since a full ANALYZE reads every row of 4 million providers. */
export function analyzeStore(db: Database.Database): void {
  db.exec('PRAGMA analysis_limit = 2000; ANALYZE');
}
