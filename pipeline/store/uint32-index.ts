/**
 * Positive 32-bit integer -> 32-bit value, for millions of keys in a few dozen megabytes: an open-addressing
 * hash table over two Uint32Arrays. Staging keeps each NPI's providers row in one (a 10-digit NPI starts with
 * 1 or 2, so it is below 2^32). A Map of 4 million string keys would take about ten times the memory, and its
 * lookups miss the cache several times each.
 */
export class Uint32Index {
  private keys: Uint32Array;
  private values: Uint32Array;
  private count = 0;

  constructor(capacity = 1 << 20) {
    this.keys = new Uint32Array(capacity);
    this.values = new Uint32Array(capacity);
  }

  get size(): number {
    return this.count;
  }

  /** Stores `value` for `key` (an integer from 1 to 2^32 - 1) and returns the value it replaces, or undefined for a new key. */
  set(key: number, value: number): number | undefined {
    if (!(key >= 1 && key <= 0xffffffff && Number.isInteger(key))) throw new RangeError(`Uint32Index key out of range: ${key}`);
    if (this.count * 2 >= this.keys.length) this.resize(this.keys.length * 2);
    const slot = this.slotOf(key);
    if (this.keys[slot] === key) {
      const previous = this.values[slot];
      this.values[slot] = value;
      return previous;
    }
    this.keys[slot] = key;
    this.values[slot] = value;
    this.count++;
    return undefined;
  }

  /** The value stored for `key`, or undefined. */
  get(key: number): number | undefined {
    const slot = this.slotOf(key);
    return this.keys[slot] === key ? this.values[slot] : undefined;
  }

  has(key: number): boolean {
    return this.get(key) !== undefined;
  }

  /** Linear probing from a multiplicative hash; key 0 marks an empty slot. */
  private slotOf(key: number): number {
    const mask = this.keys.length - 1;
    let slot = (Math.imul(key, 0x9e3779b1) >>> 0) & mask;
    while (this.keys[slot] !== 0 && this.keys[slot] !== key) slot = (slot + 1) & mask;
    return slot;
  }

  private resize(capacity: number): void {
    const { keys, values } = this;
    this.keys = new Uint32Array(capacity);
    this.values = new Uint32Array(capacity);
    for (let i = 0; i < keys.length; i++) {
      if (keys[i] === 0) continue;
      const slot = this.slotOf(keys[i]);
      this.keys[slot] = keys[i];
      this.values[slot] = values[i];
    }
  }
}
