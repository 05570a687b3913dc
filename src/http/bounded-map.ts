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
  value: V;
  bytes: number;
  /** Set on every hit, cleared when eviction passes over the slot (CLOCK, "second chance"). */
  used: boolean;
}

/**
 * A map with a memory budget in bytes: each entry is charged what `cost` says its key and value hold, and
 * entries are evicted (least recently used, approximately) when the total passes the budget. For every
 * cache whose keys come from requests, since a client can invent any number of them. Eviction is CLOCK
 * with a second chance, so a hit only sets a flag instead of reordering the map.
 */
export class BoundedMap<V> {
  /** In insertion order: CLOCK's hand starts at the oldest. */
  private readonly slots = new Map<string, Slot<V>>();
  private total = 0;
  readonly maxBytes: number;
  private readonly cost: (key: string, value: V) => number;

  constructor(maxBytes: number, cost: (key: string, value: V) => number) {
    this.maxBytes = maxBytes;
    this.cost = cost;
  }

  /** The value of a key, marked as used. */
  get(key: string): V | undefined {
    const slot = this.slots.get(key);
    if (slot === undefined) return undefined;
    slot.used = true;
    return slot.value;
  }

  /** Stores a value, evicting others beyond the budget; false (and nothing stored) when it alone is over it. */
  set(key: string, value: V): boolean {
    const bytes = this.cost(key, value);
    if (bytes > this.maxBytes) return false;
    this.delete(key);
    this.slots.set(key, { value, bytes, used: false });
    this.total += bytes;
    this.evict(key);
    return true;
  }

  /** Charges `bytes` more to an entry that grew (a compressed variant added), if `value` is still its value. */
  grow(key: string, value: V, bytes: number): void {
    const slot = this.slots.get(key);
    if (slot === undefined || slot.value !== value) return;
    slot.bytes += bytes;
    this.total += bytes;
    this.evict(key);
  }

  delete(key: string): void {
    const slot = this.slots.get(key);
    if (slot === undefined) return;
    this.slots.delete(key);
    this.total -= slot.bytes;
  }

  clear(): void {
    this.slots.clear();
    this.total = 0;
  }

  /** The keys and values, oldest first (a copy: the map may change while the caller walks it). */
  entries(): Array<[string, V]> {
    return [...this.slots].map(([key, slot]) => [key, slot.value]);
  }

  /** Entries and the bytes charged for them. */
  get size(): { entries: number; bytes: number } {
    return { entries: this.slots.size, bytes: this.total };
  }

  private evict(keep: string): void {
    while (this.total > this.maxBytes) {
      const [key, slot] = this.slots.entries().next().value as [string, Slot<V>];
      if (key !== keep && !slot.used) this.delete(key);
      else {
        // Used since the last pass (or just stored): to the back, without its flag.
        slot.used = false;
        this.slots.delete(key);
        this.slots.set(key, slot);
      }
    }
  }
}
