/**
 * NPI -> staging row id, for millions of NPIs in a few dozen megabytes: an NPI is a 10-digit number below
 * 2^32 (it starts with 1 or 2), so keys and values fit Uint32Arrays in an open-addressing hash table.
 * A Map of 4 million string keys would take about ten times the memory.
 */
export class NpiIndex {
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

  /** Stores `value` for `npi` and returns the value it replaces, or undefined for a new NPI. */
  set(npi: string, value: number): number | undefined {
    if (this.count * 2 >= this.keys.length) this.resize(this.keys.length * 2);
    const key = Number(npi);
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

  /** The value stored for `npi`, or undefined. */
  get(npi: string): number | undefined {
    const key = Number(npi);
    const slot = this.slotOf(key);
    return this.keys[slot] === key ? this.values[slot] : undefined;
  }

  has(npi: string): boolean {
    return this.get(npi) !== undefined;
  }

  /** Linear probing from a multiplicative hash; key 0 marks an empty slot (no NPI is 0). */
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
