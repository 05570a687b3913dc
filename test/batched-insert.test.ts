import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { BatchedInsert } from '../pipeline/store/batched-insert.ts';

function tableOf(rows: number): { db: Database.Database; batch: BatchedInsert } {
  const db = new Database(':memory:');
  db.exec('CREATE TABLE t (a TEXT, b INTEGER, c TEXT, fixed INTEGER)');
  const batch = new BatchedInsert(db, 'INSERT INTO t (a, b, c, fixed)', '(?, ?, ?, 7)', 3);
  for (let i = 0; i < rows; i++) batch.add(`row ${i}`, i % 2 === 0 ? i : null, i % 3 === 0 ? 'x' : `é${i}`);
  return { db, batch };
}

describe('BatchedInsert', () => {
  it.each([0, 1, 15, 16, 17, 33, 100])('%i rows land in order with the row ids one insert a row would give', (rows) => {
    const { db, batch } = tableOf(rows);
    batch.flush();
    const stored = db.prepare('SELECT rowid, a, b, c, fixed FROM t ORDER BY rowid').all();
    expect(stored).toEqual(
      Array.from({ length: rows }, (_, i) => ({
        rowid: i + 1,
        a: `row ${i}`,
        b: i % 2 === 0 ? i : null,
        c: i % 3 === 0 ? 'x' : `é${i}`,
        fixed: 7,
      })),
    );
    // Flushing again adds nothing.
    batch.flush();
    expect(db.prepare('SELECT count(*) AS n FROM t').get()).toEqual({ n: rows });
  });

  it('holds the rows of a statement not yet full until flush', () => {
    const { db, batch } = tableOf(20);
    const count = () => (db.prepare('SELECT count(*) AS n FROM t').get() as { n: number }).n;
    expect(count()).toBeLessThan(20);
    batch.flush();
    expect(count()).toBe(20);
  });

  it('refuses a row with the wrong number of values', () => {
    const { batch } = tableOf(0);
    expect(() => batch.add('a', 1)).toThrow(/a row has 3 values, got 2/);
  });
});
