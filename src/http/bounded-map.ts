import { randomBytes } from 'node:crypto';

/** Where this process's key hashes start (hashOf). */
const HASH_SEED = randomBytes(4).readUInt32LE(0);

/**
 * Bytes a string held as a map key costs: V8 keeps a character in one byte or two (counted as two, so a key
 * of any script is never undercounted), plus the string's header and its slot in the map's hash table.
 */
export function keyBytes(key: string): number {
  return 2 * key.length + KEY_OVERHEAD_BYTES;
}

/** A string's header (16 bytes) and a Map entry (key, value, chain: about 3 words, doubled for the table's slack). */
const KEY_OVERHEAD_BYTES = 64;

interface Slot<V> {
  key: string;
  value: V;
  bytes: number;
  /** Set on every hit, cleared when eviction passes over the slot (CLOCK, "second chance"). */
  used: boolean;
  /** The next slot whose key has the same hash (rare: 30 bits). */
  next: Slot<V> | undefined;
}

/**
 * A map with a memory budget in bytes: each entry is charged what `cost` says its key and value hold, and
 * entries are evicted (least recently used, approximately) when the total passes the budget. For every
 * cache whose keys come from requests, since a client can invent any number of them. Eviction is CLOCK
 * with a second chance, so a hit only sets a flag instead of reordering the map.
 *
 * Entries are found by a hash of the key computed here, then the key compared, not by a Map of strings:
 * V8 looks a string key up in its table of internalized strings first, and for a string the request made
 * (a URL from the HTTP parser) that lookup was the largest entry of the keyed lookup's profile under load,
 * about 0.9 us a request; with this index the server took 0.78 us a request less (median of eight pairs of
 * servers loaded at once, alternating sides).
 */
export class BoundedMap<V> {
  /** Slots by the hash of their key; a bucket chains the keys of the same hash. In insertion order (CLOCK's hand). */
  private readonly buckets = new Map<number, Slot<V>>();
  private count = 0;
  private total = 0;
  private lastKey = '';
  private lastHash = hashOf('');
  readonly maxBytes: number;
  private readonly cost: (key: string, value: V) => number;

  constructor(maxBytes: number, cost: (key: string, value: V) => number) {
    this.maxBytes = maxBytes;
    this.cost = cost;
  }

  /** The value of a key, marked as used. */
  get(key: string): V | undefined {
    const slot = this.find(key);
    if (slot === undefined) return undefined;
    slot.used = true;
    return slot.value;
  }

  /** Stores a value, evicting others beyond the budget; false (and nothing stored) when it alone is over it. */
  set(key: string, value: V): boolean {
    const bytes = this.cost(key, value);
    if (bytes > this.maxBytes) return false;
    this.delete(key);
    const hash = this.hash(key);
    const slot: Slot<V> = { key, value, bytes, used: false, next: undefined };
    const head = this.buckets.get(hash);
    if (head === undefined) this.buckets.set(hash, slot);
    else {
      slot.next = head.next;
      head.next = slot;
    }
    this.count++;
    this.total += bytes;
    this.evict(key);
    return true;
  }

  /** Charges `bytes` more to an entry that grew (a compressed variant added), if `value` is still its value. */
  grow(key: string, value: V, bytes: number): void {
    const slot = this.find(key);
    if (slot === undefined || slot.value !== value) return;
    slot.bytes += bytes;
    this.total += bytes;
    this.evict(key);
  }

  delete(key: string): void {
    const hash = this.hash(key);
    let previous: Slot<V> | undefined;
    for (let slot = this.buckets.get(hash); slot !== undefined; previous = slot, slot = slot.next) {
      if (slot.key !== key) continue;
      this.unlink(hash, previous, slot);
      return;
    }
  }

  clear(): void {
    this.buckets.clear();
    this.count = 0;
    this.total = 0;
  }

  /** The keys and values, oldest first (a copy: the map may change while the caller walks it). */
  entries(): Array<[string, V]> {
    const entries: Array<[string, V]> = [];
    for (const head of this.buckets.values())
      for (let slot: Slot<V> | undefined = head; slot; slot = slot.next) entries.push([slot.key, slot.value]);
    return entries;
  }

  /** Entries and the bytes charged for them. */
  get size(): { entries: number; bytes: number } {
    return { entries: this.count, bytes: this.total };
  }

  private find(key: string): Slot<V> | undefined {
    let slot = this.buckets.get(this.hash(key));
    while (slot !== undefined && slot.key !== key) slot = slot.next;
    return slot;
  }

  /**
   * The key's hash, kept for the last key: a caller often asks for the same key again (the API key of one
   * client's requests, the URL that `routeOf` and then `respond` look up), and a string compared equal costs
   * less than hashing it again.
   */
  private hash(key: string): number {
    if (key !== this.lastKey) {
      this.lastKey = key;
      this.lastHash = hashOf(key);
    }
    return this.lastHash;
  }

  private unlink(hash: number, previous: Slot<V> | undefined, slot: Slot<V>): void {
    if (previous !== undefined) previous.next = slot.next;
    // The bucket keeps its place in the order (set on an existing key does not move it).
    else if (slot.next !== undefined) this.buckets.set(hash, slot.next);
    else this.buckets.delete(hash);
    this.count--;
    this.total -= slot.bytes;
  }

  private evict(keep: string): void {
    while (this.total > this.maxBytes) {
      const [hash, head] = this.buckets.entries().next().value as [number, Slot<V>];
      let previous: Slot<V> | undefined;
      for (let slot: Slot<V> | undefined = head; slot !== undefined && this.total > this.maxBytes; ) {
        const next: Slot<V> | undefined = slot.next;
        if (slot.key !== keep && !slot.used) this.unlink(hash, previous, slot);
        else {
          // Used since the last pass (or just stored): kept, without its flag.
          slot.used = false;
          previous = slot;
        }
        slot = next;
      }
      // What is left of the bucket goes to the back.
      const rest = this.buckets.get(hash);
      if (rest !== undefined && this.total > this.maxBytes) {
        this.buckets.delete(hash);
        this.buckets.set(hash, rest);
      }
    }
  }
}

/**
 * FNV-1a of the key's UTF-16 code units from a random start, in 30 bits so that V8 keeps it as a small
 * integer. The keys come from requests: with a start known in advance a client could send thousands of keys
 * of one hash and make every lookup walk them all (hash flooding, which V8's own seeded string hash prevents
 * too); keys that collide in one process do not in another.
 */
export function hashOf(key: string): number {
  let hash = HASH_SEED;
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
  return hash & 0x3fffffff;
}
