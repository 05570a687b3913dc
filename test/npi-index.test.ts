import { describe, expect, it } from 'vitest';
import { NpiIndex } from '../pipeline/emit/npi-index.ts';

describe('NpiIndex', () => {
  it('agrees with a Map over many NPIs, through resizes, including the largest 10-digit values', () => {
    const index = new NpiIndex(8);
    const reference = new Map<string, number>();
    let seed = 42;
    const next = () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0);
    for (let i = 1; i <= 50_000; i++) {
      const npi = String(1_000_000_000 + (next() % 1_999_999_999)).padStart(10, '0');
      expect(index.set(npi, i)).toBe(reference.get(npi));
      reference.set(npi, i);
    }
    expect(index.size).toBe(reference.size);
    expect(index.set('2999999999', 7)).toBeUndefined();
    expect(index.set('2999999999', 8)).toBe(7);
    expect(index.has('2999999999')).toBe(true);
    expect(index.has('1000000001')).toBe(reference.has('1000000001'));
  });
});
