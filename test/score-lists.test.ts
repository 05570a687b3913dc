import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { searchKey } from '../core/search-key.ts';
import { TVI_TIER_NAMES } from '../core/tvi-tiers.ts';
import { ScoreListIndex, type ScoreFilter } from '../src/query/score-lists.ts';
import { TviQueries } from '../src/query/tvi.ts';
import { fixtureDb } from './helpers/fixture-db.ts';
import { seeded } from './helpers/seeded.ts';

/**
 * The indexed lists against the brute-force answer: the health-scores list index (src/query/score-lists.ts)
 * against every record of the score type filtered one by one, for seeded random filters and pages; the TVI
 * list's tiers read as score ranges of its index against the stored tiers.
 */

let db: Database.Database;
let index: ScoreListIndex;
let rows: Array<{ zip_code: string; score_type_id: number; state: string; healthscore: number; city: string }>;

beforeAll(async () => {
  db = new Database(await fixtureDb(), { readonly: true });
  index = new ScoreListIndex(db);
  rows = db
    .prepare(
      'SELECT h.zip_code, h.score_type_id, h.state, h.healthscore, z.city FROM health_scores h JOIN zips z ON z.zip_code = h.zip_code ORDER BY h.zip_code',
    )
    .all() as typeof rows;
});
afterAll(() => db.close());

function bruteForce(filter: ScoreFilter): string[] {
  return rows
    .filter(
      (r) =>
        r.score_type_id === filter.scoreTypeId &&
        (filter.state === undefined || r.state === filter.state) &&
        (filter.city === undefined || searchKey(r.city) === searchKey(filter.city)) &&
        (filter.minScore === undefined || r.healthscore >= filter.minScore) &&
        (filter.maxScore === undefined || r.healthscore <= filter.maxScore),
    )
    .map((r) => r.zip_code);
}

describe('the health-scores list index', () => {
  it('counts and pages exactly as a filter over every record, for 500 seeded filters', () => {
    const random = seeded(30);
    const pick = <T>(values: readonly T[]) => values[Math.floor(random() * values.length)];
    const states = [undefined, 'NY', 'DE', 'CA', 'RI', 'ZZ'];
    const cities = [undefined, 'New York', 'WILMINGTON', 'washington', 'Nowhere', ' newark ', 'St. Louis'];
    for (let i = 0; i < 500; i++) {
      const low = random() < 0.5 ? undefined : Math.floor(random() * 101);
      const filter: ScoreFilter = {
        scoreTypeId: 1 + Math.floor(random() * 11),
        state: pick(states),
        city: pick(cities),
        minScore: low,
        maxScore: random() < 0.5 ? undefined : Math.min(100, (low ?? 0) + Math.floor(random() * 60)),
      };
      const expected = bruteForce(filter);
      expect(index.count(filter), JSON.stringify(filter)).toBe(expected.length);
      const limit = 1 + Math.floor(random() * 30);
      const offset = Math.floor(random() * (expected.length + 5));
      expect(index.page(filter, limit, offset), JSON.stringify({ filter, limit, offset })).toEqual(expected.slice(offset, offset + limit));
    }
  });
});

describe('the TVI most-vulnerable list', () => {
  it('counts and pages each tier and state from the index exactly as a filter over every ranked ZIP', () => {
    const tvi = new TviQueries(db);
    const all = db
      .prepare('SELECT t.zip_code, t.state, t.tvi_tier FROM tvi t WHERE t.ranked = 1 ORDER BY t.tvi_score DESC, t.zip_code')
      .all() as Array<{ zip_code: string; state: string; tvi_tier: string }>;
    for (const tier of [undefined, ...TVI_TIER_NAMES]) {
      for (const state of [undefined, 'NY', 'DE', 'ZZ']) {
        const expected = all.filter((r) => (tier === undefined || r.tvi_tier === tier) && (state === undefined || r.state === state));
        expect(tvi.count({ tier, state }), `${tier} ${state}`).toBe(expected.length);
        for (const offset of [0, 3, Math.max(0, expected.length - 2)]) {
          expect(tvi.page({ tier, state }, 5, offset).map((r) => r.zip_code)).toEqual(
            expected.slice(offset, offset + 5).map((r) => r.zip_code),
          );
        }
      }
    }
  });
});
