import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { haversineMiles } from '../core/distance.ts';
import { searchKey } from '../core/search-key.ts';
import { TVI_TIER_NAMES } from '../core/tvi-tiers.ts';
import { ListOrders, type SortOrder } from '../src/query/list-order.ts';
import { NearbyIndex } from '../src/query/nearby.ts';
import { SCORE_SORT_KEYS, ScoreListIndex, type ScoreFilter } from '../src/query/score-lists.ts';
import { TVI_OWN_ORDER, TVI_SORT_KEYS, TviQueries } from '../src/query/tvi.ts';
import { fixtureDb } from './helpers/fixture-db.ts';
import { seeded } from './helpers/seeded.ts';

/**
 * The indexed lists against the brute-force answer: the health-scores list index (src/query/score-lists.ts)
 * against every record of the score type filtered one by one and sorted by the documented rule (the key, rows
 * without a value last, ties by ZIP code), for seeded random filters, sorts, places and pages; the TVI list's
 * tiers and sorts the same way.
 */

type Row = { zip_code: string; score_type_id: number; state: string; city: string; latitude: number; longitude: number } & Record<
  (typeof SCORE_SORT_KEYS)[number],
  number | null
>;

let db: Database.Database;
let index: ScoreListIndex;
let nearby: NearbyIndex;
let rows: Row[];

beforeAll(async () => {
  db = new Database(await fixtureDb(), { readonly: true });
  index = new ScoreListIndex(db);
  nearby = NearbyIndex.load(db);
  rows = db
    .prepare(
      `SELECT h.zip_code, h.score_type_id, h.state, h.healthscore, h.people_score, h.provider_score, h.hospital_score, h.travel_score,
        z.city, z.population, z.latitude, z.longitude
      FROM health_scores h JOIN zips z ON z.zip_code = h.zip_code ORDER BY h.zip_code`,
    )
    .all() as Row[];
});
afterAll(() => db.close());

/** The documented order: by the key (no value last either way), ties by ZIP code ascending. */
function compareBy<T extends { zip_code: string }>(value: (row: T) => number | null, descending: boolean) {
  return (a: T, b: T): number => {
    const [x, y] = [value(a), value(b)];
    if (x !== y) {
      if (x === null) return 1;
      if (y === null) return -1;
      return descending ? y - x : x - y;
    }
    return a.zip_code < b.zip_code ? -1 : a.zip_code > b.zip_code ? 1 : 0;
  };
}

/** A near filter's places and the miles of each ZIP, computed here from every ZIP's point (brute force). */
function milesFrom(center: string): Map<string, number> {
  const at = rows.find((r) => r.zip_code === center)!;
  return new Map(rows.map((r) => [r.zip_code, haversineMiles(at.longitude, at.latitude, r.longitude, r.latitude)]));
}

function bruteForce(
  filter: ScoreFilter,
  sort: SortOrder,
  center?: { zip: string; radius: number },
): Array<{ zip: string; miles?: number }> {
  const miles = center && milesFrom(center.zip);
  const value = (row: Row): number | null =>
    sort.key === 'distance_miles'
      ? miles!.get(row.zip_code)!
      : sort.key === 'zip_code'
        ? Number(row.zip_code)
        : (row[sort.key as keyof Row] as number | null);
  return rows
    .filter(
      (r) =>
        r.score_type_id === filter.scoreTypeId &&
        (filter.state === undefined || r.state === filter.state) &&
        (filter.city === undefined || searchKey(r.city) === searchKey(filter.city)) &&
        (filter.minScore === undefined || r.healthscore! >= filter.minScore) &&
        (filter.maxScore === undefined || r.healthscore! <= filter.maxScore) &&
        (filter.minPopulation === undefined || (r.population !== null && r.population >= filter.minPopulation)) &&
        (miles === undefined || miles.get(r.zip_code)! <= center!.radius),
    )
    .sort(compareBy(value, sort.descending))
    .map((r) => ({ zip: r.zip_code, ...(miles && { miles: miles.get(r.zip_code)! }) }));
}

describe('the health-scores list index', () => {
  it('counts and pages exactly as a filter over every record, in every sort, for 600 seeded filters', () => {
    const random = seeded(30);
    const pick = <T>(values: readonly T[]) => values[Math.floor(random() * values.length)];
    const states = [undefined, 'NY', 'DE', 'CA', 'RI', 'ZZ'];
    const cities = [undefined, 'New York', 'WILMINGTON', 'washington', 'Nowhere', ' newark ', 'St. Louis'];
    const centers = ['10001', '19901', '02903', '20001', '94110'].filter((zip) => rows.some((r) => r.zip_code === zip));
    expect(centers.length).toBeGreaterThan(2);
    for (let i = 0; i < 600; i++) {
      const low = random() < 0.5 ? undefined : Math.floor(random() * 101);
      const center = random() < 0.3 ? { zip: pick(centers), radius: pick([0.5, 3, 25, 100]) } : undefined;
      const filter: ScoreFilter = {
        scoreTypeId: 1 + Math.floor(random() * 11),
        state: pick(states),
        city: pick(cities),
        minScore: low,
        maxScore: random() < 0.5 ? undefined : Math.min(100, (low ?? 0) + Math.floor(random() * 60)),
        minPopulation: random() < 0.2 ? pick([0, 100, 20_000]) : undefined,
        near: center && nearby.within(center.zip, center.radius),
      };
      const keys = center ? [...SCORE_SORT_KEYS, 'distance_miles'] : SCORE_SORT_KEYS;
      const sort = { key: pick(keys), descending: random() < 0.5 };
      const expected = bruteForce(filter, sort, center);
      const limit = 1 + Math.floor(random() * 30);
      const offset = Math.floor(random() * (expected.length + 5));
      const label = JSON.stringify({ ...filter, near: center, sort, limit, offset });
      const found = index.select(filter, sort, offset, limit);
      expect(found.count, label).toBe(expected.length);
      expect(found.zips, label).toEqual(expected.slice(offset, offset + limit).map((e) => e.zip));
      if (center) {
        const miles = expected.slice(offset, offset + limit).map((e) => e.miles!);
        found.miles!.forEach((m, k) => expect(m, label).toBeCloseTo(miles[k], 9));
      } else expect(found.miles).toBeUndefined();
    }
  });
});

describe('list orders', () => {
  it('order by a column with rows without a value last either way, ties by position, and put any subset in that order', () => {
    const random = seeded(31);
    for (let round = 0; round < 50; round++) {
      const n = 1 + Math.floor(random() * 400);
      // Few distinct values, so ties are common; some rows have none.
      const values = Float64Array.from({ length: n }, () =>
        random() < 0.15 ? NaN : Math.floor(random() * 12) - 3 + (random() < 0.3 ? 0.5 : 0),
      );
      const orders = new ListOrders({ value: values });
      for (const descending of [false, true]) {
        const expected = Array.from({ length: n }, (_, i) => i).sort((a, b) => {
          const [x, y] = [values[a], values[b]];
          if (Number.isNaN(x) !== Number.isNaN(y)) return Number.isNaN(x) ? 1 : -1;
          if (!Number.isNaN(x) && x !== y) return descending ? y - x : x - y;
          return a - b;
        });
        const sort = { key: 'value', descending };
        expect(Array.from(orders.order(sort)), `round ${round}`).toEqual(expected);
        const subset = Array.from({ length: n }, (_, i) => i).filter(() => random() < 0.3);
        expect(Array.from(orders.sorted(subset.reverse(), sort))).toEqual(expected.filter((p) => subset.includes(p)));
      }
    }
  });
});

describe('the TVI most-vulnerable list', () => {
  it('counts and pages each tier, state and sort exactly as a filter over every ranked ZIP', () => {
    const tvi = new TviQueries(db);
    const all = db
      .prepare(
        'SELECT t.zip_code, t.state, t.tvi_tier, t.tvi_score, t.zero_vehicle_pct, t.nearest_hospital_miles FROM tvi t WHERE t.ranked = 1',
      )
      .all() as Array<Record<string, number | string | null> & { zip_code: string; state: string; tvi_tier: string }>;
    const sorts: SortOrder[] = [TVI_OWN_ORDER, ...TVI_SORT_KEYS.flatMap((key) => [false, true].map((descending) => ({ key, descending })))];
    for (const sort of sorts) {
      const value = (r: (typeof all)[number]) => (sort.key === 'zip_code' ? Number(r.zip_code) : (r[sort.key] as number | null));
      const ordered = [...all].sort(compareBy(value, sort.descending));
      for (const tier of [undefined, ...TVI_TIER_NAMES]) {
        for (const state of [undefined, 'NY', 'DE', 'ZZ']) {
          const expected = ordered.filter((r) => (tier === undefined || r.tvi_tier === tier) && (state === undefined || r.state === state));
          for (const offset of [0, 3, Math.max(0, expected.length - 2)]) {
            const { count, results } = tvi.list({ tier, state }, sort, offset, 5);
            expect(count, `${tier} ${state}`).toBe(expected.length);
            expect(
              results.map((r) => r.zip_code),
              JSON.stringify({ sort, tier, state, offset }),
            ).toEqual(expected.slice(offset, offset + 5).map((r) => r.zip_code));
          }
        }
      }
    }
  });
});
