import { describe, expect, it } from 'vitest';
import { Uint32Index } from '../pipeline/store/uint32-index.ts';
import { seeded } from './helpers/seeded.ts';

describe('Uint32Index', () => {
  it('agrees with a Map over many NPIs, through resizes, including the largest 10-digit values', () => {
    const index = new Uint32Index(8);
    const reference = new Map<number, number>();
    const random = seeded(42);
    for (let i = 1; i <= 50_000; i++) {
      const npi = 1_000_000_000 + Math.floor(random() * 1_999_999_999);
      expect(index.set(npi, i)).toBe(reference.get(npi));
      reference.set(npi, i);
    }
    expect(index.size).toBe(reference.size);
    expect(index.set(2999999999, 7)).toBeUndefined();
    expect(index.set(2999999999, 8)).toBe(7);
    expect(index.has(2999999999)).toBe(true);
    expect(index.has(1000000001)).toBe(reference.has(1000000001));
  });

  it('takes every key from 1 to 2^32 - 1 and refuses the others instead of wrapping them', () => {
    const index = new Uint32Index(4);
    expect(index.set(1, 1)).toBeUndefined();
    expect(index.set(0xffffffff, 2)).toBeUndefined();
    expect([index.get(1), index.get(0xffffffff), index.get(2)]).toEqual([1, 2, undefined]);
    for (const bad of [0, -1, 2 ** 32, 1.5, Number.NaN]) expect(() => index.set(bad, 1)).toThrow(RangeError);
  });
});
