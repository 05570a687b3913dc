import Database from 'better-sqlite3';

/**
 * Records the SQL of every statement this process runs while `recording` is true: every statement goes
 * through better-sqlite3's one Statement class, whose get/all/iterate/run are wrapped until `restore()`.
 */
export class StatementRecorder {
  readonly ran = new Set<string>();
  recording = false;
  private readonly undo: Array<() => void> = [];

  constructor() {
    const probe = new Database(':memory:');
    const prototype = Object.getPrototypeOf(probe.prepare('SELECT 1')) as Record<string, (...args: unknown[]) => unknown>;
    probe.close();
    const recorder = this;
    for (const method of ['get', 'all', 'iterate', 'run']) {
      const original = prototype[method];
      prototype[method] = function (this: Database.Statement, ...args: unknown[]) {
        if (recorder.recording) recorder.ran.add(this.source);
        return original.apply(this, args);
      };
      this.undo.push(() => (prototype[method] = original));
    }
  }

  /** The statements `work` runs. */
  async during(work: () => Promise<void>): Promise<Set<string>> {
    this.ran.clear();
    this.recording = true;
    try {
      await work();
    } finally {
      this.recording = false;
    }
    return new Set(this.ran);
  }

  restore(): void {
    for (const undo of this.undo.splice(0)) undo();
  }
}

/** The EXPLAIN QUERY PLAN lines of `sql` on `db` (every parameter bound to null). */
export function queryPlan(db: Database.Database, sql: string): string[] {
  const statement = db.prepare(`EXPLAIN QUERY PLAN ${sql}`);
  const names = [...sql.matchAll(/[@:$](\w+)/g)].map(([, name]) => name);
  const args = names.length > 0 ? [Object.fromEntries(names.map((name) => [name, null]))] : Array.from(sql.matchAll(/\?/g), () => null);
  return statement.all(...args).map((row) => (row as { detail: string }).detail);
}
