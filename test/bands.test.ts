import { describe, expect, it } from 'vitest';
import { BANDS, bandFor } from '../pipeline/score/bands.ts';
import { composite } from '../pipeline/score/composite.ts';

describe('band table (decisions.md)', () => {
  it.each([
    [100, 'Healthcare Paradise', 'A+'], [95, 'Healthcare Paradise', 'A+'], [94, 'Healthcare Paradise', 'A'], [90, 'Healthcare Paradise', 'A'],
    [89, 'Excellent Access', 'B+'], [80, 'Excellent Access', 'B+'], [79, 'Excellent Access', 'B'], [70, 'Excellent Access', 'B'],
    [69, 'Moderate Access', 'C+'], [60, 'Moderate Access', 'C+'], [59, 'Moderate Access', 'C'], [50, 'Moderate Access', 'C'],
    [49, 'Limited Access', 'D+'], [37, 'Limited Access', 'D+'], [36, 'Limited Access', 'D'], [25, 'Limited Access', 'D'],
    [24, 'Healthcare Desert', 'F'], [0, 'Healthcare Desert', 'F'],
  ])('%i is %s, %s', (score, label, grade) => {
    expect(bandFor(score)).toMatchObject({ label, grade });
  });

  it('has one distinct #rrggbb colour per grade', () => {
    const colors = BANDS.map((b) => b.color);
    expect(new Set(colors).size).toBe(BANDS.length);
    for (const color of colors) expect(color).toMatch(/^#[0-9a-f]{6}$/);
  });

  it('refuses scores outside 0-100 or fractional', () => {
    expect(() => bandFor(101)).toThrow(/integer from 0 to 100, got 101/);
    expect(() => bandFor(-1)).toThrow();
    expect(() => bandFor(50.5)).toThrow();
  });
});

describe('composite', () => {
  it('is 0.20 people + 0.35 provider + 0.25 hospital + 0.20 travel, rounded half up, exactly', () => {
    expect(composite({ people: 100, provider: 100, hospital: 100, travel: 100 })).toBe(100);
    expect(composite({ people: 0, provider: 0, hospital: 0, travel: 0 })).toBe(0);
    // 0.2*50 + 0.35*50 + 0.25*51 + 0.2*50 = 50.25 -> 50; with hospital 52: 50.5 -> 51 (half up).
    expect(composite({ people: 50, provider: 50, hospital: 51, travel: 50 })).toBe(50);
    expect(composite({ people: 50, provider: 50, hospital: 52, travel: 50 })).toBe(51);
    for (let p = 0; p <= 100; p += 7) {
      for (let q = 0; q <= 100; q += 11) {
        const expected = Math.round((0.2 * p + 0.35 * q + 0.25 * 33 + 0.2 * 71) * 1e9) / 1e9;
        expect(composite({ people: p, provider: q, hospital: 33, travel: 71 })).toBe(Math.floor(expected + 0.5));
      }
    }
  });
});
