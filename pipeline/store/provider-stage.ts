import type Database from 'better-sqlite3';
import type { ClinicianRow, ProviderRow } from '../layouts/providers.ts';
import { zipNumber } from '../../core/zip-number.ts';
import type { ProviderSink } from '../ingest/ingested.ts';
import { BatchedInsert } from './batched-insert.ts';
import { Uint32Index } from './uint32-index.ts';
import { grown } from '../base/typed-arrays.ts';

/** A staged provider row replaced by a later row with the same NPI (the later one is kept). */
export interface SupersededRow {
  source: string;
  line: number;
  npi: string;
}

/** Numbers for the ZCTAs of (ZCTA, taxonomy) pairs: five-digit codes are their own number (0-99999). */
const NO_ZCTA = 100_000;
const OTHER_ZCTAS = NO_ZCTA + 1;
/**
 * A pair packs ZCTA number * TAXONOMY_IDS + taxonomy id + 1 into a positive 31-bit integer, so a row's pair
 * fits an Int32Array slot beside the two markers: 0 for a row a later one replaced, -(id + 1) for a pair that
 * does not pack (more taxonomy codes or odd ZCTA names than any real file has).
 */
const TAXONOMY_IDS = 1 << 14;
const MAX_ZCTA_NUMBER = Math.floor((0x7fffffff - TAXONOMY_IDS) / TAXONOMY_IDS);
const SUPERSEDED = 0;

/**
 * Streams providers and clinician rows into the output database as they are read, so 4 million NPPES rows
 * never sit in memory and each insert is an append, not a B-tree update. NPPES individuals go straight into
 * the `providers` table with the columns NPPES gives (and the NUCC specialty of their primary taxonomy);
 * completeProviders later adds what Doctors and Clinicians knows about them, in place, instead of copying every
 * row from a staging table (that copy was 19 s of a national build). Clinician rows go to an append-only
 * staging table in the attached scratch database. Repeated NPIs are caught as they arrive with a compact
 * NPI index (the last row wins; the earlier rows are deleted in `finish`). Each row's (ZCTA, taxonomy) pair
 * is kept as one packed number, and `finish` counts the kept rows per pair in one sort, so no pass over
 * the table is needed later.
 */
export class ProviderStage implements ProviderSink {
  private readonly insertProvider: BatchedInsert;
  private readonly insertClinician: BatchedInsert;
  private readonly npis = new Uint32Index();
  /** Per providers row id - 1: the source (index in `sources`) and file line it came from, for the superseded report. */
  private stagedSource = new Uint8Array(1 << 20);
  private stagedLine = new Int32Array(1 << 20);
  private readonly sources: string[] = [];
  /** Rows a later row with the same NPI replaced: [earlier row id, NPI]. */
  private readonly superseded: Array<[number, string]> = [];
  /**
   * The packed (ZCTA, taxonomy) pair of every staged row, by row id - 1 (see TAXONOMY_IDS). Counting per pair
   * as rows arrived probed a hash table of a million slots a row: 0.7-0.8 s per million NPPES rows of cache
   * misses on the main thread, the ingest's busiest. Written in row order here, they are counted in `finish`.
   */
  private stagedKey = new Int32Array(1 << 20);
  /** Taxonomy codes, numbered as first seen: a few hundred, so their Map stays in cache. */
  private readonly taxonomies = new Numbering<string>();
  /** ZCTA names that are not five digits, numbered from OTHER_ZCTAS (none in the Census files; kept exact anyway). */
  private readonly otherZctas = new Numbering<string>();
  /** Pairs that do not pack, by their "ZCTA\ntaxonomy" text. */
  private readonly unpacked = new Numbering<[string, string]>();
  /** Kept rows per pair, made by `finish`. */
  /** Set by `finish`; null until then. */
  private counts: Array<{ zcta: string; taxonomy: string; count: number }> | null = null;
  private providerRows = 0;
  private pending = 0;

  private readonly db: Database.Database;

  /** `providers` must exist and be empty. */
  constructor(db: Database.Database) {
    this.db = db;
    db.exec(`
      CREATE TABLE stage.stage_clinicians (
        npi TEXT, line INTEGER, first_name TEXT, last_name TEXT, credential TEXT, gender TEXT, medical_school TEXT,
        graduation_year INTEGER, specialty TEXT, telehealth INTEGER, facility_names TEXT, city TEXT, state TEXT, zip_code TEXT,
        zcta TEXT, provider_row INTEGER
      );`);
    // Telehealth, school, year and facilities come from Doctors and Clinicians (completeProviders); constants until then.
    this.insertProvider = new BatchedInsert(
      db,
      `INSERT INTO providers (npi, first_name, last_name, credential, gender, primary_taxonomy, primary_specialty, telehealth,
        address, city, state, zip_code, zcta, phone, medical_school, residency, graduation_year, facility_names)`,
      `(?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?, ?, NULL, NULL, NULL, '[]')`,
      13,
    );
    this.insertClinician = new BatchedInsert(db, 'INSERT INTO stage_clinicians', `(${Array(16).fill('?').join(', ')})`, 16);
    db.exec('BEGIN');
  }

  addProvider(row: ProviderRow, line: number, sourceKey: string, zcta: string | null, specialty: string): void {
    this.insertProvider.add(
      row.npi,
      row.firstName,
      row.lastName,
      row.credential,
      row.gender,
      row.taxonomy,
      // '' until completeProviders: a code the NUCC set lacks may take the Doctors and Clinicians specialty there.
      specialty,
      row.address,
      row.city,
      row.state,
      row.zip,
      zcta,
      row.phone,
    );
    const rowid = ++this.providerRows;
    this.remember(rowid, sourceKey, line);
    const earlier = this.npis.set(Number(row.npi), rowid);
    if (earlier !== undefined) this.superseded.push([earlier, row.npi]);
    this.stagedKey[rowid - 1] = this.keyOf(zcta ?? '', row.taxonomy ?? '');
    this.tick();
  }

  /** A (ZCTA, taxonomy) pair as a number (see TAXONOMY_IDS); ZCTA '' = not located, taxonomy '' = none. */
  private keyOf(zcta: string, taxonomy: string): number {
    const taxonomyId = this.taxonomies.idOf(taxonomy, taxonomy);
    let zctaNumber = zcta === '' ? NO_ZCTA : zipNumber(zcta);
    if (zctaNumber < 0) zctaNumber = OTHER_ZCTAS + this.otherZctas.idOf(zcta, zcta);
    if (zctaNumber <= MAX_ZCTA_NUMBER && taxonomyId < TAXONOMY_IDS) return zctaNumber * TAXONOMY_IDS + taxonomyId + 1;
    return -(this.unpacked.idOf(`${zcta}\n${taxonomy}`, [zcta, taxonomy]) + 1);
  }

  /** The kept rows per pair: the packed pairs sorted in place, then counted in runs (0.3-0.4 s for 4.34 million rows). */
  private countPairs(rows: number): Array<{ zcta: string; taxonomy: string; count: number }> {
    const keys = this.stagedKey.subarray(0, rows).sort();
    const counts: Array<{ zcta: string; taxonomy: string; count: number }> = [];
    for (let start = 0, end = 0; start < keys.length; start = end) {
      const key = keys[start];
      while (end < keys.length && keys[end] === key) end++;
      if (key === SUPERSEDED) continue;
      const [zcta, taxonomy] = key < 0 ? this.unpacked.items[-key - 1] : this.namesOf(key);
      counts.push({ zcta, taxonomy, count: end - start });
    }
    return counts;
  }

  private namesOf(packed: number): [string, string] {
    const zctaNumber = Math.floor((packed - 1) / TAXONOMY_IDS);
    const taxonomy = this.taxonomies.items[(packed - 1) % TAXONOMY_IDS];
    if (zctaNumber === NO_ZCTA) return ['', taxonomy];
    if (zctaNumber >= OTHER_ZCTAS) return [this.otherZctas.items[zctaNumber - OTHER_ZCTAS], taxonomy];
    return [String(zctaNumber).padStart(5, '0'), taxonomy];
  }

  /** Keeps a row's source and line in typed arrays that grow by doubling (9 bytes a row with its key). */
  private remember(rowid: number, sourceKey: string, line: number): void {
    if (rowid > this.stagedLine.length) {
      const size = this.stagedLine.length * 2;
      this.stagedLine = grown(this.stagedLine, size);
      this.stagedSource = grown(this.stagedSource, size);
      this.stagedKey = grown(this.stagedKey, size);
    }
    let source = this.sources.lastIndexOf(sourceKey);
    if (source === -1) {
      if (this.sources.length === 256) throw new Error('more than 256 provider sources in one manifest');
      source = this.sources.push(sourceKey) - 1;
    }
    this.stagedSource[rowid - 1] = source;
    this.stagedLine[rowid - 1] = line;
  }

  addClinician(row: ClinicianRow, line: number, zcta: string | null): void {
    this.insertClinician.add(
      row.npi,
      line,
      row.firstName,
      row.lastName,
      row.credential,
      row.gender,
      row.medicalSchool,
      row.graduationYear,
      row.specialty,
      row.telehealth ? 1 : 0,
      JSON.stringify(row.facilityNames),
      row.city,
      row.state,
      row.zip,
      zcta,
      // The providers row of this NPI's NPPES record (0: not in NPPES), so completeProviders seeks it by row id.
      this.npis.get(Number(row.npi)) ?? 0,
    );
    this.tick();
  }

  /**
   * Kept NPPES providers per (ZCTA, primary taxonomy), once `finish` has run: one entry for each pair with a
   * kept row, in no particular order. ZCTA '' = not located, taxonomy '' = none.
   */
  supplyCounts(): Array<{ zcta: string; taxonomy: string; count: number }> {
    // Before `finish` the superseded rows are still counted: an empty or partial answer would be wrong, not early.
    if (this.counts === null) throw new Error('ProviderStage.supplyCounts() called before finish()');
    return this.counts;
  }

  /** Commits in batches: one transaction per 100,000 rows keeps inserts fast without a huge journal. */
  private tick(): void {
    if (++this.pending >= 100_000) {
      this.flush();
      this.db.exec('COMMIT; BEGIN');
      this.pending = 0;
    }
  }

  /** Inserts the rows the batched statements still hold. */
  private flush(): void {
    this.insertProvider.flush();
    this.insertClinician.flush();
  }

  /**
   * Ends staging: deletes the provider rows that a later row with the same NPI replaced and returns them
   * (in file order) to report as superseded.
   */
  finish(): SupersededRow[] {
    this.flush();
    const rows = this.superseded.sort((a, b) => a[0] - b[0]);
    const remove = this.db.prepare('DELETE FROM providers WHERE rowid = ?');
    for (const [rowid] of rows) {
      remove.run(rowid);
      this.stagedKey[rowid - 1] = SUPERSEDED;
    }
    this.counts = this.countPairs(this.providerRows);
    this.db.exec('COMMIT');
    const report = rows.map(([rowid, npi]) => ({
      source: this.sources[this.stagedSource[rowid - 1]],
      line: this.stagedLine[rowid - 1],
      npi,
    }));
    // The per-row arrays (9 bytes a row) are not needed after ingest.
    this.stagedKey = new Int32Array(0);
    this.stagedLine = new Int32Array(0);
    this.stagedSource = new Uint8Array(0);
    return report;
  }
}

/** Items numbered 0, 1, 2... by a text key, in the order first seen. */
class Numbering<T> {
  readonly items: T[] = [];
  private readonly ids = new Map<string, number>();

  /** The number of `key`, given to `item` when the key is new. */
  idOf(key: string, item: T): number {
    let id = this.ids.get(key);
    if (id === undefined) {
      this.ids.set(key, (id = this.items.length));
      this.items.push(item);
    }
    return id;
  }
}
