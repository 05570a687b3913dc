import { describe, expect, it } from 'vitest';
import { SCORING_CONFIG } from '../pipeline/run/build-id.ts';
import { differences } from '../src/diff/builds.ts';
import { CONSTANT_PARTS } from '../pipeline/config/scoring-parts.ts';
import { type Candidate, rankCauses } from '../src/diff/causes.ts';
import type { TypeValues } from '../src/diff/pairs.ts';
import { readable } from '../core/numbers.ts';

const candidate = (id: string, kind: Candidate['kind'], affects: Candidate['affects'], miles = 0): Candidate => ({
  id,
  kind,
  group: kind,
  groupText: kind,
  input: id,
  label: () => id,
  text: () => id,
  affects,
  miles,
});

/** A ZIP whose hospital component fell 10 and travel 4; its score fell 6 and left its band. */
const moved: TypeValues = {
  healthscore: [60, 54],
  people: [70, 70],
  provider: [Number.NaN, Number.NaN],
  hospital: [50, 40],
  travel: [80, 76],
  label: ['Moderate Access', 'Limited Access'],
};

describe('hcas diff, the parts', () => {
  it('knows which parts every scoring constant of the pipeline moves (a new one must say, in CONSTANT_PARTS)', () => {
    const unknown = Object.keys(SCORING_CONFIG).filter((name) => !(name in CONSTANT_PARTS));
    expect(unknown, 'add these to CONSTANT_PARTS in pipeline/config/scoring-parts.ts: the parts of the score each moves').toEqual([]);
  });

  it('ranks causes by the points they account for, then the ZIP’s own inputs, the nearer, the build-wide', () => {
    const weights = candidate('scoring:COMPOSITE_WEIGHTS', 'scoring', ['composite']);
    const closed = candidate('facility:ccn:1', 'facility', ['hospital', 'travel'], 4.2);
    const farther = candidate('facility:ccn:2', 'facility', ['hospital', 'travel'], 30);
    const point = candidate('point:87571', 'point', ['provider', 'hospital', 'travel']);
    const method = candidate('scoring:MINUTES_PER_STRAIGHT_MILE_BY_DENSITY', 'scoring', ['hospital', 'travel']);
    const need = candidate('need:87571', 'need', ['people']);
    const fallback = [candidate('code', 'code', ['composite'])];
    // 14 points (hospital + travel) each; the ZIP's own point first, then the nearer facility, then the method.
    expect(rankCauses([method, farther, closed, point, weights, need], fallback, moved).map((c) => c.id)).toEqual([
      'point:87571',
      'facility:ccn:1',
      'facility:ccn:2',
      'scoring:MINUTES_PER_STRAIGHT_MILE_BY_DENSITY',
      'scoring:COMPOSITE_WEIGHTS',
    ]);
    // Nothing that feeds what moved: the fallbacks.
    expect(rankCauses([need], fallback, moved)).toEqual(fallback);
  });

  it('names settings by dotted path, array items by their key', () => {
    const before = { NEED_MEASURES: [{ measure: 'poverty_pct', weight: 0.3 }], COMPOSITE_WEIGHTS: { hospital: 6 } };
    const after = { NEED_MEASURES: [{ measure: 'poverty_pct', weight: 0.4 }], COMPOSITE_WEIGHTS: { hospital: 6 }, MIN_TRIP_MILES: 0.25 };
    expect(differences('scoring', before, after)).toEqual([
      { path: 'scoring.NEED_MEASURES.poverty_pct.weight', old: 0.3, new: 0.4 },
      { path: 'scoring.MIN_TRIP_MILES', old: null, new: 0.25 },
    ]);
  });

  it('writes numbers with separators, without Intl', () => {
    expect([0, 1234567.5, -12.345, 0.0826921, 999.999, -0.004].map((x) => readable(x))).toEqual([
      '0',
      '1,234,567.5',
      '-12.35',
      '0.08',
      '1,000',
      '0',
    ]);
    expect(readable(0.0826921, 6)).toBe('0.082692');
  });
});
