import { describe, expect, it } from 'vitest';
import { finiteOrNull, median, readable, round } from '../core/numbers.ts';
import { seeded } from './helpers/seeded.ts';

describe('the one rounding rule, the one median and numbers for people (core/numbers.ts)', () => {
  it('rounds halves away from zero, the same size either side of it', () => {
    expect([round(2.5), round(-2.5), round(0.125, 2), round(-0.125, 2), round(1234.5678, 1)]).toEqual([3, -3, 0.13, -0.13, 1234.6]);
    expect(round(-0.001, 2)).toBe(-0);
    expect(round(Number.NaN, 1)).toBeNaN();
    expect([finiteOrNull(round(Number.POSITIVE_INFINITY, 2)), finiteOrNull(1.5)]).toEqual([null, 1.5]);
  });

  it('takes the middle value or the mean of the middle two, leaving out missing values, NaN and infinities', () => {
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([null, 7, undefined, Number.NaN, 1, Number.POSITIVE_INFINITY])).toBe(4);
    expect(median(Float32Array.from([10, 1, 100]))).toBe(10);
    expect(median([])).toBeNaN();
    expect(median([null], 0)).toBe(0);
  });

  it('writes counts and one-decimal miles as toLocaleString en-US does (the widget sentence)', () => {
    const random = seeded(45);
    const counts = [0, 1, 999, 1000, 1234567, 10_000_000, ...Array.from({ length: 2000 }, () => Math.floor(random() * 5_000_000))];
    for (const n of counts) expect(readable(n, 0), String(n)).toBe(n.toLocaleString('en-US'));
    const miles = [0, 0.4, 1, 9.9, 14.2, 1000.5, ...Array.from({ length: 2000 }, () => Math.round(random() * 3000 * 10) / 10)];
    for (const m of miles) expect(readable(m, 1), String(m)).toBe(m.toLocaleString('en-US', { maximumFractionDigits: 1 }));
  });
});
