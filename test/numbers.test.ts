import { describe, expect, it } from 'vitest';
import { finiteOrNull, median, round } from '../core/numbers.ts';

describe('the one rounding rule and the one median (core/numbers.ts)', () => {
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
});
