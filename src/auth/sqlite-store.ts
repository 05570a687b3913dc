import { closeSync, existsSync, mkdirSync, openSync, statSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import {
  bySubject,
  callsOf,
  COUNTER_RETENTION_SECONDS,
  failCall,
  settle,
  SQLITE_LOCK_WAIT_MS,
  BatchWatch,
  type StoreEvents,
  type HitOptions,
  type KeyRestrictions,
  type NewKey,
  type PendingHit,
  type StateStore,
  type StoredKey,
} from './store.ts';
import type { QuotaWindow } from './windows.ts';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS api_keys (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  key_sha256 TEXT NOT NULL UNIQUE,
  hint TEXT NOT NULL,
  name TEXT NOT NULL,
  plan TEXT NOT NULL,
  created_at TEXT NOT NULL,
  revoked_at TEXT,
  restrictions TEXT
);
CREATE TABLE IF NOT EXISTS revocations (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  key_sha256 TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS counters (
  subject TEXT NOT NULL,
  window_start INTEGER NOT NULL,
  calls INTEGER NOT NULL,
  PRIMARY KEY (subject, window_start)
) WITHOUT ROWID;
`;

/** How long a batch waits for another process's write lock before counting fails (and the gate fails open). */
const LOCK_DEADLINE_MS = 2_000;
/**
 * Tries on the next event-loop turns before falling back to 1 ms timers. Few: the other worker holds the
 * lock for tens of microseconds, and spinning would burn the CPU it needs to finish (meanwhile the batch grows).
 */
const SPIN_TRIES = 3;
const PRUNE_EVERY_MS = 6 * 3600_000;
/** Tries at the write lock when pinging, 2 ms apart. */
const PING_LOCK_TRIES = 25;

type KeyRow = {
  id: number;
  key_sha256: string;
  name: string;
  plan: string;
  hint: string;
  created_at: string;
  revoked_at: string | null;
  restrictions: string | null;
};
const toKey = (row: KeyRow): StoredKey => ({
  id: row.id,
  name: row.name,
  plan: row.plan,
  hint: row.hint,
  createdAt: row.created_at,
  revokedAt: row.revoked_at,
  restrictions: row.restrictions ? (JSON.parse(row.restrictions) as KeyRestrictions) : null,
});

/**
 * Keys and counters in one SQLite file in WAL mode, shared by every worker of a server (and by `hcas keys`).
 *
 * Counting is exact and never blocks the event loop: the calls of one event-loop turn are counted in one
 * `BEGIN IMMEDIATE` transaction (one upsert per subject, each call answered with its own running total), so
 * a commit's file locks and WAL write, which cost more than any other step of a request, are shared by the
 * requests that arrived together.
 * Every request still waits for its own count before it is answered; nothing is counted later or guessed.
 * The writer connection has no busy timeout: when another worker holds the write lock, the batch is retried
 * on the next turns (SQLite's own busy handler would sleep for whole milliseconds with the loop blocked).
 */
export class SqliteStore implements StateStore {
  readonly backend = 'sqlite';
  events?: StoreEvents;
  /** Stops the watch of the pending batch, once it has had to wait for the write lock. */
  private watching: BatchWatch | undefined;
  private readonly writer: Database.Database;
  /** Key lookups, peeks and the admin commands: a busy timeout is fine there, and reads never wait in WAL. */
  private readonly reader: Database.Database;
  private readonly statements;
  private pending: PendingHit[] = [];
  private scheduled = false;
  private tries = 0;
  private firstTryMs = 0;
  private readonly pruneTimer: NodeJS.Timeout;

  readonly location: string;
  private readonly now: () => number;
  /** The device and inode of the file opened, to notice it being deleted or replaced under the server. */
  private readonly identity: string;

  constructor(location: string, now: () => number = Date.now) {
    this.location = location;
    this.now = now;
    const file = path.resolve(location);
    // Only this user may read a new state file (key hashes, usage); SQLite gives its WAL files the same mode.
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    if (!existsSync(file)) closeSync(openSync(file, 'a', 0o600));
    this.reader = new Database(location, { timeout: 5_000 });
    this.identity = identityOf(file);
    this.reader.pragma('journal_mode = WAL');
    // NORMAL: a commit survives the process being killed; only a power loss can drop the last moments.
    this.reader.pragma('synchronous = NORMAL');
    this.reader.exec(SCHEMA);
    // State files made before widget keys: add the column (NULL, a full key, for every existing key).
    const columns = (this.reader.prepare('PRAGMA table_info(api_keys)').all() as Array<{ name: string }>).map((c) => c.name);
    if (!columns.includes('restrictions')) this.reader.exec('ALTER TABLE api_keys ADD COLUMN restrictions TEXT');
    // State files made before the revocation list: list the keys revoked so far.
    this.reader.exec(`INSERT INTO revocations (key_sha256) SELECT key_sha256 FROM api_keys
      WHERE revoked_at IS NOT NULL AND key_sha256 NOT IN (SELECT key_sha256 FROM revocations) ORDER BY revoked_at`);
    this.writer = new Database(location, { timeout: 0 });
    this.writer.pragma('synchronous = NORMAL');
    this.statements = {
      begin: this.writer.prepare('BEGIN IMMEDIATE'),
      commit: this.writer.prepare('COMMIT'),
      rollback: this.writer.prepare('ROLLBACK'),
      hit: this.writer
        .prepare('INSERT INTO counters VALUES (?, ?, ?) ON CONFLICT DO UPDATE SET calls = calls + excluded.calls RETURNING calls')
        .pluck(),
      prune: this.writer.prepare('DELETE FROM counters WHERE window_start < ?'),
      peek: this.reader.prepare('SELECT calls FROM counters WHERE subject = ? AND window_start = ?').pluck(),
      findKey: this.reader.prepare('SELECT * FROM api_keys WHERE key_sha256 = ?'),
      getKey: this.reader.prepare('SELECT * FROM api_keys WHERE id = ?'),
      listKeys: this.reader.prepare('SELECT * FROM api_keys ORDER BY id'),
      addKey: this.reader.prepare(
        'INSERT INTO api_keys (key_sha256, hint, name, plan, created_at, restrictions) VALUES (?, ?, ?, ?, ?, ?) RETURNING *',
      ),
      revokeKey: this.reader.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL RETURNING *'),
      listRevocation: this.reader.prepare('INSERT INTO revocations (key_sha256) VALUES (?)'),
      revocations: this.reader.prepare('SELECT seq, key_sha256 FROM revocations WHERE seq > ? ORDER BY seq'),
      keyHashes: this.reader.prepare('SELECT id, key_sha256 FROM api_keys WHERE id > ? ORDER BY id'),
      ping: this.reader.prepare('SELECT count(*) FROM api_keys').pluck(),
    };
    this.prune();
    this.pruneTimer = setInterval(() => this.prune(), PRUNE_EVERY_MS).unref();
  }

  /**
   * Whether a commit checkpoints the WAL itself (SQLite's default: the commit that grows the WAL past 1,000
   * pages copies it into the file and fsyncs both, on the event loop: 10 to 30 ms here under a flood, more on
   * a busy disk). A server turns it off and checkpoints in a thread of its own (src/server/state-checkpoints.ts).
   */
  checkpointOnCommit(on: boolean): void {
    if (this.writer.open) this.writer.pragma(`wal_autocheckpoint = ${on ? 1000 : 0}`);
  }

  /** Counts calls; request ids are not kept (one server: a proxy has no other replica of this state to retry on). */
  hit(subject: string, window: QuotaWindow, options?: HitOptions): Promise<number | undefined> {
    return new Promise((resolve, reject) => {
      this.pending.push({ subject, window, windowStart: window.startSeconds, calls: options?.calls ?? 1, resolve, reject });
      this.watching?.joined();
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(this.flush);
      }
    });
  }

  async peek(subject: string, window: QuotaWindow): Promise<number> {
    return (this.statements.peek.get(subject, window.startSeconds) as number | undefined) ?? 0;
  }

  async findKey(hash: string): Promise<StoredKey | undefined> {
    const row = this.statements.findKey.get(hash) as KeyRow | undefined;
    return row && toKey(row);
  }

  async addKey(hash: string, key: NewKey): Promise<StoredKey> {
    const restrictions = key.restrictions ? JSON.stringify(key.restrictions) : null;
    return toKey(this.statements.addKey.get(hash, key.hint, key.name, key.plan, key.createdAt, restrictions) as KeyRow);
  }

  async getKey(id: number): Promise<StoredKey | undefined> {
    const row = this.statements.getKey.get(id) as KeyRow | undefined;
    return row && toKey(row);
  }

  async listKeys(): Promise<StoredKey[]> {
    return (this.statements.listKeys.all() as KeyRow[]).map(toKey);
  }

  async revokeKey(id: number, revokedAt: string): Promise<StoredKey | undefined> {
    const revoke = this.reader.transaction(() => {
      const row = this.statements.revokeKey.get(revokedAt, id) as KeyRow | undefined;
      if (row) this.statements.listRevocation.run(row.key_sha256);
      return row ?? (this.statements.getKey.get(id) as KeyRow | undefined);
    });
    const row = revoke.immediate();
    return row && toKey(row);
  }

  async revocations(after: number): Promise<{ hashes: string[]; next: number }> {
    const rows = this.statements.revocations.all(after) as Array<{ seq: number; key_sha256: string }>;
    return { hashes: rows.map((row) => row.key_sha256), next: rows.length === 0 ? after : rows[rows.length - 1].seq };
  }

  async keyHashes(after: number): Promise<{ hashes: string[]; next: number }> {
    const rows = this.statements.keyHashes.all(after) as Array<{ id: number; key_sha256: string }>;
    return { hashes: rows.map((row) => row.key_sha256), next: rows.length === 0 ? after : rows[rows.length - 1].id };
  }

  /**
   * Answers when the state works as counting needs it: the file at its path is still the one open (not
   * deleted or replaced: counts would go to a file nobody else sees), a read of it succeeds, and the write
   * lock can be taken now. Throws naming what fails.
   */
  async ping(): Promise<void> {
    let now: string;
    try {
      now = identityOf(path.resolve(this.location));
    } catch {
      now = 'missing';
    }
    if (now !== this.identity)
      throw new Error(
        `the state file ${this.location} was deleted or replaced since the server opened it; restart the server to use the file at that path`,
      );
    this.statements.ping.get();
    // Other workers hold the lock for microseconds at a time: a few tries over a few milliseconds tell a
    // busy lock from one held too long (what makes counting fail).
    const { begin, rollback } = this.statements;
    for (let tries = 1; ; tries++) {
      try {
        begin.run();
        rollback.run();
        return;
      } catch (error) {
        if ((error as { code?: string }).code !== 'SQLITE_BUSY' || tries >= PING_LOCK_TRIES) throw error;
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
    }
  }

  async close(): Promise<void> {
    clearInterval(this.pruneTimer);
    // Calls queued for the next turn are still counted before the connections close: wait for the lock now.
    this.writer.pragma('busy_timeout = 2000');
    this.flush();
    this.writer.close();
    this.reader.close();
  }

  private readonly flush = (): void => {
    this.scheduled = false;
    if (this.pending.length === 0) return;
    if (!this.writer.open) {
      this.rejectPending(new Error(`the state file ${this.location} is closed`));
      return;
    }
    const { begin, commit, rollback, hit } = this.statements;
    try {
      begin.run();
    } catch (error) {
      if ((error as { code?: string }).code === 'SQLITE_BUSY' && this.retryLater()) return;
      this.rejectPending(error);
      return;
    }
    this.tries = 0;
    const batch = this.pending;
    this.pending = [];
    this.stopWatching();
    const groups = bySubject(batch);
    const totals: number[] = [];
    try {
      for (const group of groups) totals.push(hit.get(group[0].subject, group[0].windowStart, callsOf(group)) as number);
      commit.run();
    } catch (error) {
      if (this.writer.inTransaction) rollback.run();
      for (const call of batch) failCall(call, error, this.events);
      return;
    }
    groups.forEach((group, i) => settle(group, totals[i]));
  };

  private stopWatching(): void {
    this.watching?.answered();
    this.watching = undefined;
  }

  /**
   * Schedules another try at the write lock; false once the deadline has passed. The calls waiting are
   * watched from now: past SQLITE_LOCK_WAIT_MS their requests are answered without their count (store.ts).
   */
  private retryLater(): boolean {
    this.watching ??= new BatchWatch(this.pending, this.events, SQLITE_LOCK_WAIT_MS);
    if (this.tries === 0) this.firstTryMs = performance.now();
    this.tries++;
    if (performance.now() - this.firstTryMs > LOCK_DEADLINE_MS) return false;
    this.scheduled = true;
    if (this.tries < SPIN_TRIES) setImmediate(this.flush);
    else setTimeout(this.flush, 1);
    return true;
  }

  private rejectPending(error: unknown): void {
    this.tries = 0;
    const batch = this.pending;
    this.pending = [];
    this.stopWatching();
    for (const call of batch) failCall(call, error, this.events);
  }

  private prune(): void {
    try {
      this.writer.transaction(() => this.statements.prune.run(Math.floor(this.now() / 1000) - COUNTER_RETENTION_SECONDS)).immediate();
    } catch {
      // Another worker is pruning or counting; old rows wait for the next round.
    }
  }
}

function identityOf(file: string): string {
  const stat = statSync(file);
  return `${stat.dev}:${stat.ino}`;
}
