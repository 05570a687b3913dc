import { BoundedMap, keyBytes } from '../http/bounded-map.ts';

/**
 * Requests with bad credentials (a key that is unknown, revoked or malformed) one client address may send
 * at once, then one per BAD_CREDENTIALS_REFILL_MS: each costs a read of the key and counter state (the key's
 * lookup, the anonymous count for the headers), so a flood of made-up keys would otherwise cost the state
 * one read each. Per server process.
 */
export const BAD_CREDENTIALS_BURST = 10;
export const BAD_CREDENTIALS_REFILL_MS = 1_000;
/** Memory for the buckets: about 6,000 addresses; the oldest are forgotten first. */
const BUCKETS_BYTES = 1024 * 1024;

interface Bucket {
  tokens: number;
  updatedMs: number;
  /** The address's anonymous calls as last read, for the headers of answers given without reading again. */
  calls?: number;
  windowStart?: number;
}

/** A token bucket per client address for the state reads that bad credentials cost. */
export class CredentialThrottle {
  private readonly buckets = new BoundedMap<Bucket>(BUCKETS_BYTES, (subject) => keyBytes(subject) + 96);

  /** True when `subject` may spend a state read on bad credentials now. */
  allows(subject: string, nowMs: number): boolean {
    const bucket = this.buckets.get(subject);
    return bucket === undefined || this.refill(bucket, nowMs) >= 1;
  }

  /** Spends one read. */
  spend(subject: string, nowMs: number): void {
    const bucket = this.buckets.get(subject);
    if (bucket === undefined) {
      this.buckets.set(subject, { tokens: BAD_CREDENTIALS_BURST - 1, updatedMs: nowMs });
      return;
    }
    bucket.tokens = Math.max(0, this.refill(bucket, nowMs) - 1);
  }

  /** Whole seconds until `subject` may spend a read again (at least 1). */
  retryAfterSeconds(subject: string, nowMs: number): number {
    const bucket = this.buckets.get(subject);
    if (bucket === undefined) return 1;
    const missing = 1 - this.refill(bucket, nowMs);
    return Math.max(1, Math.ceil((missing * BAD_CREDENTIALS_REFILL_MS) / 1000));
  }

  /** Keeps the anonymous count last read for `subject` (answers to it while throttled show it). */
  remember(subject: string, windowStart: number, calls: number | undefined): void {
    const bucket = this.buckets.get(subject);
    if (bucket === undefined || calls === undefined) return;
    bucket.calls = calls;
    bucket.windowStart = windowStart;
  }

  /** The anonymous count last read for `subject` in this window, if any. */
  known(subject: string, windowStart: number): number | undefined {
    const bucket = this.buckets.get(subject);
    return bucket?.windowStart === windowStart ? bucket.calls : undefined;
  }

  private refill(bucket: Bucket, nowMs: number): number {
    const earned = Math.max(0, nowMs - bucket.updatedMs) / BAD_CREDENTIALS_REFILL_MS;
    bucket.tokens = Math.min(BAD_CREDENTIALS_BURST, bucket.tokens + earned);
    bucket.updatedMs = Math.max(bucket.updatedMs, nowMs);
    return bucket.tokens;
  }
}
