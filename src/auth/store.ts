import type { QuotaWindow } from './windows.ts';

/**
 * What a key may do beyond its plan's limits, for keys that leave the server (a widget key in a page's HTML):
 * the page origins that may use it (`Origin`, else `Referer`), and whether it opens only the widget endpoints.
 */
export interface KeyRestrictions {
  /** `https://example.org`, `https://*.example.org` (any subdomain); empty: any origin. */
  origins: string[];
  widgetOnly: boolean;
}

/** An API key as the state keeps it: never the key itself, only its hash and a 4-character hint. */
export interface StoredKey {
  id: number;
  name: string;
  plan: string;
  /** The key's last 4 characters. */
  hint: string;
  /** ISO 8601 UTC. */
  createdAt: string;
  revokedAt: string | null;
  /** Null for a full key (every endpoint of its plan, from anywhere). */
  restrictions: KeyRestrictions | null;
}

/** A new key's fields besides its hash. */
export type NewKey = Omit<StoredKey, 'id' | 'revokedAt' | 'restrictions'> & { restrictions?: KeyRestrictions | null };

/** How a call is counted: how many calls it stands for, and the request id a proxy gave it. */
export interface HitOptions {
  /** Calls to add at once (calls of an unlimited plan, counted behind in batches); default 1. */
  calls?: number;
  /**
   * The id a trusted proxy gave the request (nginx's `$request_id`). A proxy that retries a request on
   * another replica sends the same id, and a store that keeps ids (Redis) counts it once.
   */
  requestId?: string;
}

/**
 * How long a request waits for Redis to count it before it is answered without its count (the call is still
 * counted): `hcas serve --count-wait`. Redis answers in well under a millisecond; a busy machine delays some
 * answers by milliseconds, which this must outlast for counts to stay exact.
 */
export const DEFAULT_COUNT_WAIT_MS = 10;
/**
 * The same for the SQLite state's write lock, which other workers of the server hold for microseconds at a
 * time but a busy machine may keep from them for milliseconds: waiting for it keeps every count exact.
 */
export const SQLITE_LOCK_WAIT_MS = 250;
/** A count unanswered this long means the state is stalled (a paused Redis): the server counts in memory until it is back. */
export const STATE_STALL_MS = 250;

/** What a store tells its owner about counts it answered late (see StateStore.hit). */
export interface StoreEvents {
  /** Calls answered late whose count then failed: they must be counted again, once the state is back. */
  lost(subject: string, window: QuotaWindow, calls: number): void;
  /** A count has waited STATE_STALL_MS for the state. */
  stalled(error: Error): void;
}

/**
 * Where keys and call counters live: an SQLite file (one server, all its workers) or Redis (any number of
 * servers). Counters are per subject (`key:12`, `ip:203.0.113.9`) and calendar window; `hit` adds one call
 * atomically and answers the count including it, so concurrent workers never lose or share a count.
 */
export interface StateStore {
  readonly backend: 'sqlite' | 'redis' | 'memory';
  /** The file or the Redis URL (without its password), for messages and logs. */
  readonly location: string;
  /**
   * Counts the call. Answers the count including it; or, when the state has not answered within
   * DEFAULT_COUNT_WAIT_MS, `undefined`: the call is still being counted, and if that then fails it is handed to
   * `events.lost` instead of rejecting (a rejection means the call was not counted).
   */
  hit(subject: string, window: QuotaWindow, options?: HitOptions): Promise<number | undefined>;
  /** Where late counts are reported (the gate sets it). */
  events?: StoreEvents;
  /** The calls counted so far in the window, without counting one. */
  peek(subject: string, window: QuotaWindow): Promise<number>;
  findKey(hash: string): Promise<StoredKey | undefined>;
  addKey(hash: string, key: NewKey): Promise<StoredKey>;
  getKey(id: number): Promise<StoredKey | undefined>;
  listKeys(): Promise<StoredKey[]>;
  /**
   * Marks a key revoked (once: a second revoke keeps the first time) and appends its hash to the revocation
   * list; undefined when there is no such key.
   */
  revokeKey(id: number, revokedAt: string): Promise<StoredKey | undefined>;
  /**
   * The revocation list from position `after` on (0: from the start): the hashes of keys revoked since,
   * and the position to ask from next time. Servers poll it, so a revocation reaches them within seconds.
   */
  revocations(after: number): Promise<{ hashes: string[]; next: number }>;
  /**
   * The hashes of the keys created from position `after` on (0: every key), and the position to ask from
   * next time. Servers read it with the revocation list, so they know which keys exist without a lookup.
   */
  keyHashes(after: number): Promise<{ hashes: string[]; next: number }>;
  /** Resolves when the store answers; used to notice that a lost store is back. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** How long a window's counters are kept after it ends, so `hcas keys usage` can still show last month. */
export const COUNTER_RETENTION_SECONDS = 40 * 86_400;

/** One call waiting to be counted with the others of its event-loop turn. */
export interface PendingHit {
  subject: string;
  window: QuotaWindow;
  windowStart: number;
  calls: number;
  requestId?: string;
  resolve: (calls: number | undefined) => void;
  reject: (error: unknown) => void;
  /** Answered `undefined` already (the state was late): the outcome goes to StoreEvents.lost if it fails. */
  late?: boolean;
}

/**
 * Watches a batch of calls to the state: each call not answered within `waitMs` of joining it is answered
 * `undefined` (late); after STATE_STALL_MS, the state is reported stalled. Call `answered` when the batch is
 * answered. One pair of timers per batch, not per call: a call that joins the batch while its wait runs is
 * answered with the others, and one that joins after the wait has fired (the state is already late) starts
 * a wait of its own, so every call waits `waitMs` at most, from the first of a pause to the last.
 */
export class BatchWatch {
  private readonly batch: readonly PendingHit[];
  private readonly events: StoreEvents | undefined;
  private readonly waitMs: number;
  private late: NodeJS.Timeout | undefined;
  private readonly stalled: NodeJS.Timeout;
  private reported = false;
  private done = false;

  /** Starts watching `batch` (the array itself: calls pushed onto it later are watched too, once `joined` is called). */
  constructor(batch: readonly PendingHit[], events: StoreEvents | undefined, waitMs: number) {
    this.batch = batch;
    this.events = events;
    this.waitMs = waitMs;
    this.stalled = setTimeout(this.reportStall, STATE_STALL_MS);
    this.joined();
  }

  /** A call joined the batch: it is watched by the wait running, else by a wait of its own. */
  joined(): void {
    if (this.late !== undefined || this.done) return;
    this.late = setTimeout(
      () =>
        afterIo(() => {
          this.late = undefined;
          if (this.done) return;
          // A wait as long as the stall limit is a stall: said before the calls are answered late, whichever
          // of the two timers a busy event loop runs first (they can fall a millisecond apart).
          if (this.waitMs >= STATE_STALL_MS) this.reportStall();
          answerLate(this.batch);
        }),
      this.waitMs,
    );
  }

  /** The batch is answered: the timers stop. */
  answered(): void {
    this.done = true;
    clearTimeout(this.late);
    clearTimeout(this.stalled);
  }

  private readonly reportStall = (): void => {
    if (this.reported) return;
    this.reported = true;
    this.events?.stalled(new Error(`the state has not answered a count in ${STATE_STALL_MS} ms`));
  };
}

/** Answers `undefined` every call of the batch not answered yet. */
function answerLate(batch: readonly PendingHit[]): void {
  for (const call of batch) {
    if (call.late) continue;
    call.late = true;
    call.resolve(undefined);
  }
}

/**
 * Runs `decide` once the event loop has read its sockets: a timer fires before the loop polls for I/O, so
 * an answer already in a socket (the loop was busy elsewhere) must be read before a wait is judged too long.
 */
export function afterIo(decide: () => void): void {
  setImmediate(decide);
}

/** `answer`, or `fallback()` if it has not settled within `waitMs`, judged after the event loop read its sockets (it still runs to its end). */
export function withinWait<T>(answer: Promise<T>, waitMs: number, fallback: () => T): Promise<T> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => afterIo(() => resolve(fallback())), waitMs);
    void answer.then((value) => {
      clearTimeout(timer);
      resolve(value);
    });
  });
}

/** Fails a call: rejected if it was not answered yet, else handed to `events.lost` (it was answered late). */
export function failCall(call: PendingHit, error: unknown, events: StoreEvents | undefined): void {
  if (!call.late) call.reject(error);
  else events?.lost(call.subject, call.window, call.calls);
}

/**
 * Groups a batch of calls by subject and window. A group is counted with one increment by its calls, and
 * its calls are answered with the running totals in arrival order (`settle`): exactly what counting them
 * one by one would have answered, since nothing else runs between them in this process.
 */
export function bySubject(batch: readonly PendingHit[]): Array<PendingHit[]> {
  const groups = new Map<string, PendingHit[]>();
  for (const call of batch) {
    const key = `${call.subject}\n${call.windowStart}`;
    const group = groups.get(key);
    if (group) group.push(call);
    else groups.set(key, [call]);
  }
  return [...groups.values()];
}

/** The calls a group adds. */
export function callsOf(group: readonly PendingHit[]): number {
  let calls = 0;
  for (const hit of group) calls += hit.calls;
  return calls;
}

/** Answers each call of a group, given the group's total after its increment (a call answered late already keeps its answer). */
export function settle(group: readonly PendingHit[], total: number): void {
  let running = total - callsOf(group);
  for (const hit of group) {
    running += hit.calls;
    if (!hit.late) hit.resolve(running);
  }
}
