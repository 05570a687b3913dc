import { BoundedMap, keyBytes } from '../http/bounded-map.ts';
import type { Caller } from './answers.ts';
import { anonymousSubject } from './client-ip.ts';
import type { StoreHealth } from './health.ts';
import { hashKey } from './keys.ts';
import type { PlanSet } from './plans.ts';
import { STATE_STALL_MS, withinWait, type StateStore, type StoredKey } from './store.ts';
import type { CredentialThrottle } from './throttle.ts';

/** Revocation takes effect in every worker within this many milliseconds while the state answers (docs/api.md). */
export const KEY_CACHE_MS = 5_000;
/** How often each process reads the state's revocation list: a revocation reaches it this soon. */
export const REVOCATION_SYNC_MS = 1_000;
/**
 * How long a key's verdict is trusted after the last moment the state could have told of its revocation
 * (the start of the last revocation read that answered, or the key's own lookup). With the read every
 * second this is never reached while the state answers; so a revocation bites within KEY_CACHE_MS.
 */
export const KEY_TRUST_MS = KEY_CACHE_MS - REVOCATION_SYNC_MS;
/**
 * While the state does not answer, a key this process verified keeps its last known plan this long past
 * its last verification (its own lookup, or the last revocation read that answered): an outage of the
 * state is an outage of counting, not of service. A revocation this process read stays in force; one made
 * less than a read before the outage reaches it when the state is back.
 */
export const OUTAGE_TRUST_MS = 15 * 60_000;
/**
 * How long the lookup of a key this process has no verdict to fall back on waits for the state (a new
 * customer's first call): as long as a count may go unanswered before the state is judged stalled, so such
 * a key is refused (401, Retry-After: 1) only when the state does not answer, never because the machine is
 * busy. A key with a last verdict waits the count wait, then is answered by that verdict.
 */
export const NEW_KEY_WAIT_MS = STATE_STALL_MS;
/** Memory for the cache of keys the state knows (valid or revoked): about 3,000 keys. */
const KEY_CACHE_BYTES = 2 * 1024 * 1024;
/** Memory for the cache of keys the state does not know, apart, so a flood of made-up keys never evicts a good one: about 6,000. */
const UNKNOWN_KEY_CACHE_BYTES = 1024 * 1024;
/** What the key cache charges an entry beyond its key: the entry, the stored key and the caller, rounded up. */
const KEY_ENTRY_BYTES = 768;
/** The same for a key the state does not know: the entry and the key's hash. */
const UNKNOWN_KEY_ENTRY_BYTES = 256;

/** A key as last read from the state, with its caller when it is valid (unknown, revoked: none). */
export interface CachedKey {
  key: StoredKey | undefined;
  caller: Caller | undefined;
  fetchedMs: number;
  /** The key's SHA-256, the name the state and the revocation list know it by. */
  hash: string;
  /** Revoked: by the state's answer, or by the revocation list (final either way). */
  revoked: boolean;
}

/**
 * What this process knows of API keys: each key's last verdict (cached by the key itself, so a cached key
 * costs no hash), the revocation list (read every second and kept: a revoked key stays refused even if a
 * state restored from an old backup forgets it), and which keys exist (read with it, so a good key is never
 * throttled for its address's bad ones).
 */
export class KeyVerdicts {
  /** Bounded by bytes, since clients can send any number of keys. */
  private readonly keys = new BoundedMap<CachedKey>(KEY_CACHE_BYTES, (key) => keyBytes(key) + KEY_ENTRY_BYTES);
  private readonly unknownKeys = new BoundedMap<CachedKey>(UNKNOWN_KEY_CACHE_BYTES, (key) => keyBytes(key) + UNKNOWN_KEY_ENTRY_BYTES);
  /** The first 52 bits of the hash of every key the state has (`hashPrefix`). */
  private readonly knownKeys = new Set<number>();
  private keysSeen = 0;
  /** Hashes of every key this process has learned is revoked: it only grows (revoked keys are few and final). */
  private readonly revoked = new Set<string>();
  private revocationsSeen = 0;
  /** Start of the last read of the revocation list that answered (the limits' clock). */
  private syncedAtMs = Number.NEGATIVE_INFINITY;
  private readonly store: StateStore;
  private readonly plans: PlanSet;
  private readonly health: StoreHealth;
  private readonly now: () => number;
  private readonly countWaitMs: number;

  constructor(store: StateStore, plans: PlanSet, health: StoreHealth, now: () => number, countWaitMs: number) {
    this.store = store;
    this.plans = plans;
    this.health = health;
    this.now = now;
    this.countWaitMs = countWaitMs;
  }

  /**
   * Reads the revocations made and the keys created since the last read (every REVOCATION_SYNC_MS). A read
   * that fails leaves what the process knows as it was, and reports the state failing.
   */
  async sync(): Promise<void> {
    const started = this.now();
    try {
      const [revoked, created] = await Promise.all([this.store.revocations(this.revocationsSeen), this.store.keyHashes(this.keysSeen)]);
      for (const hash of revoked.hashes) this.revoked.add(hash);
      this.revocationsSeen = revoked.next;
      for (const hash of created.hashes) this.knownKeys.add(hashPrefix(hash));
      this.keysSeen = created.next;
      this.syncedAtMs = Math.max(this.syncedAtMs, started);
    } catch (error) {
      this.health.fail(error);
    }
  }

  /**
   * A key's cache entry, when its verdict is still trusted, else read again from the state (a promise):
   * 'unverified' when the state does not answer (within the count wait, or NEW_KEY_WAIT_MS for a key with no
   * last verdict) and the key was not verified recently enough, 'throttled' when the caller's address has
   * spent its bad-credential reads and the state has no such key (an unknown key costs one read).
   */
  lookup(
    key: string,
    address: string,
    throttle: CredentialThrottle,
  ): CachedKey | 'unverified' | 'throttled' | Promise<CachedKey | 'unverified'> {
    const nowMs = this.now();
    const cached = this.keys.get(key) ?? this.unknownKeys.get(key);
    if (cached !== undefined && this.trusted(cached, nowMs)) return cached;
    const hash = cached?.hash ?? hashKey(key);
    // A key the state has is looked up whatever its address's bad keys cost: only made-up keys are throttled.
    // The address's bucket is named only here, off the hot path (an IPv6 test is a long regular expression).
    if (!throttle.allows(anonymousSubject(address), nowMs) && !this.knownKeys.has(hashPrefix(hash))) return 'throttled';
    // The refusal of a key that is not valid spends the address's read (refuse), whether it was read now or cached.
    // A state that does not answer within the count wait: the key's last verdict if it is recent enough for an
    // outage (the lookup goes on, and what it finds is kept), else the key cannot be checked.
    const fallback = () =>
      cached?.caller && !this.revoked.has(hash) && nowMs < this.verifiedAt(cached) + OUTAGE_TRUST_MS ? cached : 'unverified';
    // A key without a verdict to fall back on waits longer, unless the state is known not to answer.
    const waitMs = cached?.caller || this.health.degraded ? this.countWaitMs : Math.max(this.countWaitMs, NEW_KEY_WAIT_MS);
    return withinWait(
      this.store.findKey(hash).then(
        (found) => this.remember(key, hash, found, nowMs),
        (error: unknown) => {
          this.health.fail(error);
          return fallback();
        },
      ),
      waitMs,
      fallback,
    );
  }

  /**
   * True while a cached verdict holds: a revocation is final; a valid key holds KEY_TRUST_MS past the last
   * moment the state could have told of its revocation (OUTAGE_TRUST_MS while the state does not answer);
   * an unknown key is asked about again after KEY_TRUST_MS (it may have been created since).
   */
  private trusted(entry: CachedKey, nowMs: number): boolean {
    if (entry.revoked) return true;
    if (this.revoked.has(entry.hash)) {
      entry.revoked = true;
      entry.caller = undefined;
      return true;
    }
    if (entry.caller) return nowMs < this.verifiedAt(entry) + (this.health.degraded ? OUTAGE_TRUST_MS : KEY_TRUST_MS);
    return nowMs - entry.fetchedMs < KEY_TRUST_MS;
  }

  /** The last moment the state could have told of the key's revocation: its lookup, or the last revocation read. */
  private verifiedAt(entry: CachedKey): number {
    return Math.max(entry.fetchedMs, this.syncedAtMs);
  }

  /** Caches a key's lookup; the revocation list wins over a state that no longer says the key is revoked. */
  private remember(key: string, hash: string, found: StoredKey | undefined, nowMs: number): CachedKey {
    if (found?.revokedAt) this.revoked.add(hash);
    const revoked = this.revoked.has(hash);
    const plan = found && !revoked ? this.plans.plans.find((p) => p.id === found.plan) : undefined;
    const caller: Caller | undefined =
      found && plan
        ? {
            subject: `key:${found.id}`,
            plan,
            quota: plan.quota,
            window: plan.window,
            who: `The ${plan.name} plan`,
            anonymous: false,
            keyId: found.id,
            restrictions: found.restrictions ?? undefined,
          }
        : undefined;
    const entry: CachedKey = { key: found, caller, fetchedMs: nowMs, hash, revoked };
    if (found) {
      this.keys.set(key, entry);
      this.unknownKeys.delete(key);
    } else {
      this.unknownKeys.set(key, entry);
    }
    return entry;
  }
}

/** The first 52 bits of a key's SHA-256 (hex), as a number: what the set of known keys holds. */
function hashPrefix(hash: string): number {
  return Number.parseInt(hash.slice(0, 13), 16);
}
