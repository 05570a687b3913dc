import type Database from 'better-sqlite3';

/** Rows per INSERT statement: 8 and 16 measured alike, 4 was slower, 32 and 64 no faster (bench/nppes-ingest.ts). */
const ROWS_PER_STATEMENT = 16;

/**
 * Inserts rows into one table several at a time, with one `INSERT ... VALUES (...), (...), ...` statement.
 * Each statement run has a fixed cost (the call into SQLite, the step, the reset, the result object), shared
 * by the rows of one statement: about a fifth less a row measured alone (bench/nppes-ingest.ts); inside the
 * threaded ingest the gain is smaller than the machine's noise.
 *
 * Rows keep their order, so their row ids are the same as one insert a row would give. Rows wait in
 * memory until a statement is full: call `flush` before anything reads the table or commits.
 */
export class BatchedInsert {
  private readonly many: Database.Statement;
  private readonly one: Database.Statement;
  private readonly width: number;
  private readonly values: unknown[];
  private filled = 0;

  /**
   * `into`: `INSERT INTO table (columns)`; `row`: the VALUES tuple of one row, `?` for each value `add`
   * is given (constants may stand beside them, as in `(?, ?, 0, NULL)`); `width`: how many `?` it has.
   */
  constructor(db: Database.Database, into: string, row: string, width: number) {
    this.many = db.prepare(`${into} VALUES ${Array(ROWS_PER_STATEMENT).fill(row).join(', ')}`);
    this.one = db.prepare(`${into} VALUES ${row}`);
    this.width = width;
    this.values = new Array(width * ROWS_PER_STATEMENT);
  }

  /** Queues one row: its `width` values in order. */
  add(...row: unknown[]): void {
    if (row.length !== this.width) throw new Error(`BatchedInsert: a row has ${this.width} values, got ${row.length}`);
    for (let i = 0; i < row.length; i++) this.values[this.filled++] = row[i];
    if (this.filled === this.values.length) {
      this.many.run(this.values);
      this.filled = 0;
    }
  }

  /** Inserts the rows still queued. */
  flush(): void {
    for (let start = 0; start < this.filled; start += this.width) this.one.run(this.values.slice(start, start + this.width));
    this.filled = 0;
  }
}
