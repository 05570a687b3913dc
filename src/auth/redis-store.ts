import { Redis } from 'ioredis';
import {
  bySubject,
  callsOf,
  COUNTER_RETENTION_SECONDS,
  failCall,
  settle,
  DEFAULT_COUNT_WAIT_MS,
  STATE_STALL_MS,
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

/**
 * Calls counted atomically: INCRBY, and on the window's first calls EXPIRE when the window has ended and
 * its retention passed (a relative time, from the limits' clock, so a test clock in the past still works).
 * A script rather than rate-limiter-flexible's RateLimiterRedis: that library starts a window at a key's
 * first call and lasts a fixed number of seconds, while our windows are calendar days and months in UTC
 * (a month is 28 to 31 days), the same for every client, with the reset the headers promise.
 */
const HIT_SCRIPT = `
local calls = redis.call('INCRBY', KEYS[1], ARGV[2])
if calls == tonumber(ARGV[2]) then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return calls`;

/**
 * The same for calls that carry a proxy's request id: a call whose id was counted before (the proxy retried
 * it on this replica after another one counted it and died) answers the count it got then and adds nothing.
 * KEYS[1] counter; ARGV: counter TTL, id TTL, id key prefix, then (calls, id) per call, id '' for none.
 * Answers each call's running total, in order.
 */
const HIT_ONCE_SCRIPT = `
local entries = {}
local first = {}
local add = 0
for i = 4, #ARGV, 2 do
  local calls = tonumber(ARGV[i])
  local id = ARGV[i + 1]
  local prior = false
  if id ~= '' then prior = first[id] or redis.call('GET', ARGV[3] .. id) end
  if type(prior) == 'number' then
    entries[#entries + 1] = {'again', prior}
  elseif prior then
    entries[#entries + 1] = {'counted', tonumber(prior)}
  else
    add = add + calls
    entries[#entries + 1] = {'new', calls, id}
    if id ~= '' then first[id] = #entries end
  end
end
local total = tonumber(redis.call('GET', KEYS[1]) or '0')
if add > 0 then
  total = redis.call('INCRBY', KEYS[1], add)
  if total == add then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
end
local running = total - add
local out = {}
for i, entry in ipairs(entries) do
  if entry[1] == 'new' then
    running = running + entry[2]
    out[i] = running
    if entry[3] ~= '' then redis.call('SET', ARGV[3] .. entry[3], running, 'EX', ARGV[2]) end
  elseif entry[1] == 'again' then
    out[i] = out[entry[2]]
  else
    out[i] = entry[2]
  end
end
return out`;

/** Revokes a key once: KEYS[1] its hash, KEYS[2] the revocation list; ARGV: the time, the key's hash. */
const REVOKE_SCRIPT = `
local current = redis.call('HGET', KEYS[1], 'revoked_at')
if current and current ~= '' then return 0 end
redis.call('HSET', KEYS[1], 'revoked_at', ARGV[1])
redis.call('RPUSH', KEYS[2], ARGV[2])
return 1`;

/**
 * How long a request id is remembered: longer than a proxy keeps retrying one request (the nginx example
 * gives up after 10 s). About 100 bytes of Redis memory per request that carries an id, for this long.
 */
export const REQUEST_ID_TTL_SECONDS = 30;

/**
 * How long a read (a key's lookup, a count read for headers, the revocation list, a ping) may take before it
 * fails and the state is reported degraded. Counts have no timeout: a count sent is counted whenever Redis
 * answers (a paused Redis answers when it resumes), so it is never counted twice; a request waits
 * the count wait for it at most (store.ts).
 */
export const REDIS_READ_TIMEOUT_MS = STATE_STALL_MS;

/** Key ids read per MGET when a server first reads every key's hash. */
const KEY_HASHES_PER_READ = 1_000;

type HitCallback = (error: Error | null | undefined, total?: number) => void;
type HitOnceCallback = (error: Error | null | undefined, totals?: number[]) => void;
type RedisWithHit = Redis & {
  hcasHit(key: string, ttlSeconds: number, calls: number, callback: HitCallback): unknown;
  hcasHitOnce(key: string, ...args: Array<string | number | HitOnceCallback>): unknown;
};

/**
 * Keys and counters in Redis, so every replica of the server shares one quota. Layout under the prefix
 * (default `hcas:`): `key:<sha256>` hash of a key's fields, `key-id:<id>` its hash, `key-ids` the set of
 * ids, `next-key-id`, and `calls:<subject>:<window start>` the counters.
 *
 * Commands fail fast while Redis is away (no offline queue) and reads give up after REDIS_READ_TIMEOUT_MS,
 * so a request never waits on a lost Redis; the client reconnects by itself. A count is answered late
 * (undefined) after the count wait and stays counted when Redis answers; one that then fails goes to
 * `events.lost`. The calls of one event-loop turn are counted together: one atomic script call per subject
 * adds the group's size, and each call gets its own running total (as in the SQLite store), all sent in one
 * write. Counts stay exact.
 */
export class RedisStore implements StateStore {
  readonly backend = 'redis';
  readonly location: string;
  events?: StoreEvents;
  private readonly redis: RedisWithHit;
  private pending: PendingHit[] = [];
  /** The watch of the pending batch when it had to wait for the batch out (started with its first call). */
  private pendingWatch: BatchWatch | undefined;
  private scheduled = false;
  private inFlight = false;

  private readonly prefix: string;
  private readonly now: () => number;
  private readonly countWaitMs: number;

  /** `countWaitMs`: how long a request waits for its count (`hcas serve --count-wait`). */
  constructor(url: string, prefix = 'hcas:', now: () => number = Date.now, countWaitMs = DEFAULT_COUNT_WAIT_MS) {
    this.prefix = prefix;
    this.now = now;
    this.countWaitMs = countWaitMs;
    this.location = withoutPassword(url);
    const redis = new Redis(url, {
      enableOfflineQueue: false,
      connectTimeout: 2_000,
      maxRetriesPerRequest: 0,
      retryStrategy: (times) => Math.min(100 * times, 1_000),
      lazyConnect: false,
    });
    redis.defineCommand('hcasHit', { numberOfKeys: 1, lua: HIT_SCRIPT });
    redis.defineCommand('hcasHitOnce', { numberOfKeys: 1, lua: HIT_ONCE_SCRIPT });
    // Connection errors are reported through the gate's degraded state; without a listener ioredis prints them.
    redis.on('error', () => {});
    this.redis = redis as RedisWithHit;
  }

  /** True while connected. */
  get connected(): boolean {
    return this.redis.status === 'ready';
  }

  /** Resolves once connected, or after `timeoutMs` (the server then starts degraded and keeps trying). */
  async ready(timeoutMs = 2_000): Promise<boolean> {
    if (this.redis.status === 'ready') return true;
    return new Promise((resolve) => {
      const done = (ok: boolean) => {
        clearTimeout(timer);
        this.redis.off('ready', onReady);
        resolve(ok);
      };
      const onReady = () => done(true);
      const timer = setTimeout(() => done(false), timeoutMs);
      this.redis.on('ready', onReady);
    });
  }

  hit(subject: string, window: QuotaWindow, options?: HitOptions): Promise<number | undefined> {
    return new Promise((resolve, reject) => {
      this.pending.push({
        subject,
        window,
        windowStart: window.startSeconds,
        calls: options?.calls ?? 1,
        requestId: options?.requestId,
        resolve,
        reject,
      });
      // Calls that must wait for the batch out are watched from now: a paused Redis answers neither.
      if (this.inFlight) {
        if (this.pendingWatch) this.pendingWatch.joined();
        else this.pendingWatch = new BatchWatch(this.pending, this.events, this.countWaitMs);
      }
      this.schedule();
    });
  }

  /** Flushes on the next turn, unless a batch is out: then the calls wait for its answer and go together. */
  private schedule(): void {
    if (this.scheduled || this.inFlight || this.pending.length === 0) return;
    this.scheduled = true;
    setImmediate(this.flush);
  }

  /**
   * Sends the waiting calls as one write: the one command alone, or one per subject in a pipeline. Only one
   * batch is out at a time, so under load the calls that arrive during a round trip make the next batch (a
   * write per round trip, not per request), and when idle a call goes out on the next turn.
   */
  private readonly flush = (): void => {
    this.scheduled = false;
    const batch = this.pending;
    this.pending = [];
    // Watched from when it is sent (this process's own delays before then are not Redis's), unless it was
    // already watched while it waited for the batch before it.
    const watch = this.pendingWatch ?? new BatchWatch(batch, this.events, this.countWaitMs);
    this.pendingWatch = undefined;
    const nowSeconds = Math.floor(this.now() / 1000);
    const groups = bySubject(batch);
    let unanswered = groups.length;
    this.inFlight = true;
    const answered = () => {
      if (--unanswered > 0) return;
      watch.answered();
      this.inFlight = false;
      this.schedule();
    };
    const target = groups.length > 1 ? (this.redis.pipeline() as unknown as RedisWithHit) : this.redis;
    for (const group of groups) {
      const { subject, window } = group[0];
      const ttlSeconds = Math.max(1, window.resetSeconds + COUNTER_RETENTION_SECONDS - nowSeconds);
      const key = this.counterKey(subject, window.startSeconds);
      const failed = (error: unknown) => {
        for (const call of group) failCall(call, error, this.events);
      };
      if (group.some((call) => call.requestId !== undefined)) {
        const args = group.flatMap((call) => [call.calls, call.requestId ?? '']);
        target.hcasHitOnce(
          key,
          ttlSeconds,
          REQUEST_ID_TTL_SECONDS,
          `${this.prefix}request:`,
          ...args,
          (error: Error | null | undefined, totals?: number[]) => {
            if (error || !totals) failed(error ?? new Error('Redis answered no counts'));
            else group.forEach((call, i) => call.late || call.resolve(Number(totals[i])));
            answered();
          },
        );
        continue;
      }
      target.hcasHit(key, ttlSeconds, callsOf(group), (error, total) => {
        if (error) failed(error);
        else settle(group, Number(total));
        answered();
      });
    }
    if (target !== this.redis) (target as unknown as { exec(): Promise<unknown> }).exec().catch(() => {});
  };

  async peek(subject: string, window: QuotaWindow): Promise<number> {
    return Number((await within(this.redis.get(this.counterKey(subject, window.startSeconds)))) ?? 0);
  }

  async findKey(hash: string): Promise<StoredKey | undefined> {
    return fromHash(await within(this.redis.hgetall(`${this.prefix}key:${hash}`)));
  }

  async addKey(hash: string, key: NewKey): Promise<StoredKey> {
    const id = await this.redis.incr(`${this.prefix}next-key-id`);
    const stored: StoredKey = { id, ...key, restrictions: key.restrictions ?? null, revokedAt: null };
    const fields = {
      id: String(id),
      name: key.name,
      plan: key.plan,
      hint: key.hint,
      created_at: key.createdAt,
      revoked_at: '',
      restrictions: key.restrictions ? JSON.stringify(key.restrictions) : '',
    };
    const created = await this.redis
      .multi()
      .hset(`${this.prefix}key:${hash}`, fields)
      .set(`${this.prefix}key-id:${id}`, hash)
      .sadd(`${this.prefix}key-ids`, String(id))
      .exec();
    if (!created || created.some(([error]) => error)) throw new Error(`Redis at ${this.location} did not store the key`);
    return stored;
  }

  async getKey(id: number): Promise<StoredKey | undefined> {
    const hash = await this.redis.get(`${this.prefix}key-id:${id}`);
    return hash === null ? undefined : this.findKey(hash);
  }

  async listKeys(): Promise<StoredKey[]> {
    const ids = (await this.redis.smembers(`${this.prefix}key-ids`)).map(Number).sort((a, b) => a - b);
    const keys = await Promise.all(ids.map((id) => this.getKey(id)));
    return keys.filter((k): k is StoredKey => k !== undefined);
  }

  async revokeKey(id: number, revokedAt: string): Promise<StoredKey | undefined> {
    const hash = await this.redis.get(`${this.prefix}key-id:${id}`);
    if (hash === null) return undefined;
    // Atomic: the first revocation sets the time and joins the list; a second one changes nothing.
    await this.redis.eval(REVOKE_SCRIPT, 2, `${this.prefix}key:${hash}`, `${this.prefix}revocations`, revokedAt, hash);
    return this.findKey(hash);
  }

  async revocations(after: number): Promise<{ hashes: string[]; next: number }> {
    const hashes = await within(this.redis.lrange(`${this.prefix}revocations`, after, -1));
    return { hashes, next: after + hashes.length };
  }

  /**
   * Ids are given by INCR before a key's fields are written: an id whose hash is not there yet (a key being
   * created this moment, or one whose creation failed) is passed over; the key is then looked up, as
   * before, when it is first used.
   */
  async keyHashes(after: number): Promise<{ hashes: string[]; next: number }> {
    const last = Number((await within(this.redis.get(`${this.prefix}next-key-id`))) ?? 0);
    const hashes: string[] = [];
    for (let from = after + 1; from <= last; from += KEY_HASHES_PER_READ) {
      const ids = Array.from({ length: Math.min(KEY_HASHES_PER_READ, last - from + 1) }, (_, i) => `${this.prefix}key-id:${from + i}`);
      for (const hash of await within(this.redis.mget(...ids))) if (hash !== null) hashes.push(hash);
    }
    return { hashes, next: Math.max(after, last) };
  }

  async ping(): Promise<void> {
    await within(this.redis.ping());
  }

  /** Closes the connection: politely when Redis answers, at once when it does not (a quit would wait for it). */
  async close(): Promise<void> {
    if (this.redis.status !== 'ready') {
      this.redis.disconnect();
      return;
    }
    const quit = this.redis.quit().catch(() => {});
    const gaveUp = new Promise<void>((resolve) => setTimeout(resolve, 1_000).unref());
    await Promise.race([quit, gaveUp]);
    this.redis.disconnect();
  }

  private counterKey(subject: string, windowStart: number): string {
    return `${this.prefix}calls:${subject}:${windowStart}`;
  }
}

/** A read's answer, or a failure once it has waited REDIS_READ_TIMEOUT_MS (a paused Redis answers nothing). */
function within<T>(read: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Redis did not answer a read in ${REDIS_READ_TIMEOUT_MS} ms`)), REDIS_READ_TIMEOUT_MS);
  });
  return Promise.race([read, timedOut]).finally(() => clearTimeout(timer));
}

function fromHash(fields: Record<string, string>): StoredKey | undefined {
  if (!fields.id) return undefined;
  return {
    id: Number(fields.id),
    name: fields.name,
    plan: fields.plan,
    hint: fields.hint,
    createdAt: fields.created_at,
    revokedAt: fields.revoked_at || null,
    restrictions: fields.restrictions ? (JSON.parse(fields.restrictions) as KeyRestrictions) : null,
  };
}

/** `redis://user:secret@host:6379/0` without the secret, for logs and meta/. */
export function withoutPassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'redis (unparsable URL)';
  }
}
