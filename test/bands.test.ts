import { describe, expect, it } from 'vitest';
import { BANDS, bandFor } from '../pipeline/config/bands.ts';
import { composite } from '../pipeline/score/composite.ts';
import { documentedHealthscore } from './helpers/documented-composite.ts';

describe('band table (decisions.md)', () => {
  it.each([
    [100, 'Healthcare Paradise', 'A+'],
    [95, 'Healthcare Paradise', 'A+'],
    [94, 'Healthcare Paradise', 'A'],
    [90, 'Healthcare Paradise', 'A'],
    [89, 'Excellent Access', 'B+'],
    [80, 'Excellent Access', 'B+'],
    [79, 'Excellent Access', 'B'],
    [70, 'Excellent Access', 'B'],
    [69, 'Moderate Access', 'C+'],
    [60, 'Moderate Access', 'C+'],
    [59, 'Moderate Access', 'C'],
    [50, 'Moderate Access', 'C'],
    [49, 'Limited Access', 'D+'],
    [37, 'Limited Access', 'D+'],
    [36, 'Limited Access', 'D'],
    [25, 'Limited Access', 'D'],
    [24, 'Healthcare Desert', 'F'],
    [0, 'Healthcare Desert', 'F'],
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
  it('is access (0.35 provider, 0.30 hospital, 0.20 travel, renormalised) times (0.55 + 0.45 people/100), rounded half up, exactly', () => {
    expect(composite({ people: 100, provider: 100, hospital: 100, travel: 100 })).toBe(100);
    expect(composite({ people: 0, provider: 0, hospital: 0, travel: 0 })).toBe(0);
    // No affluence makes up for the absence of care; full need still leaves 55% of the access.
    expect(composite({ people: 100, provider: 0, hospital: 0, travel: 0 })).toBe(0);
    expect(composite({ people: 0, provider: 100, hospital: 100, travel: 100 })).toBe(55);
    // access (7*50 + 6*50 + 4*50)/17 = 50; factor 0.55 + 0.45*100/100 = 1 -> 50. Hospital 51: 50.35 -> 50.
    expect(composite({ people: 100, provider: 50, hospital: 50, travel: 50 })).toBe(50);
    // Without a provider component: access = (6*60 + 4*70)/10 = 64; x (0.55 + 0.45*0.8 = 0.91) = 58.24 -> 58.
    expect(composite({ people: 80, provider: null, hospital: 60, travel: 70 })).toBe(58);
    // An exact half rounds up: access 10 x factor 0.55 (people 0) = 5.5 -> 6.
    expect(composite({ people: 0, provider: null, hospital: 10, travel: 10 })).toBe(6);
    for (let p = 0; p <= 100; p += 7) {
      for (let q = 0; q <= 100; q += 11) {
        const record = { people_score: p, provider_score: q % 2 ? q : null, hospital_score: 33, travel_score: 71 };
        expect(composite({ people: p, provider: record.provider_score, hospital: 33, travel: 71 })).toBe(documentedHealthscore(record));
      }
    }
  });
});
