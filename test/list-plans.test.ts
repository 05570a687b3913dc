import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api } from '../src/api/index.ts';
import { fixtureDb } from './helpers/fixture-db.ts';
import { queryPlan, StatementRecorder } from './helpers/statement-recorder.ts';

/**
 * What a sorted list costs in SQL (issue 43, point 5): the orders are made in memory once per list (the first
 * request of a sort), so a request after that runs only lookups of one page's records, each by an index.
 * Every statement a warm list request runs is recorded and its EXPLAIN QUERY PLAN read: no scan of a table of
 * the build, no temporary B-tree for a sort.
 */
const LISTS = [
  'health-scores/?state=RI&sort=healthscore',
  'health-scores/?sort=-population&min_population=1000',
  'health-scores/?near=10001&radius=25&sort=-healthscore',
  'health-scores/?score_type=asthma&sort=travel_score',
  'providers/?sort=-last_name',
  'providers/?state=NY&specialty=cardiology&sort=-last_name',
  'providers/?near=10001&radius=25',
  'providers/?near=02903&radius=10&name=s&sort=-distance_miles',
  'facilities/?sort=-facility_rating',
  'facilities/?type=hospital&state=NY&sort=facility_rating',
  'tvi/top-vulnerable/?sort=zero_vehicle_pct',
  'tvi/top-vulnerable/?state=DE&sort=-nearest_hospital_miles',
];

let api: Api;
let file: string;
let recorder: StatementRecorder;

beforeAll(async () => {
  file = await fixtureDb();
  api = Api.open(file);
  recorder = new StatementRecorder();
});
afterAll(() => {
  recorder.restore();
  api.retire();
});

async function status(url: string): Promise<number> {
  return (await api.respond({ method: 'GET', url: `/api/v1/${url}` })).status;
}

describe('sorted lists in SQL', () => {
  it('a warm request of any sort runs only indexed lookups of its page', async () => {
    // Cold: each list and sort makes its order (and reads its index) once.
    for (const url of LISTS) expect(await status(url), url).toBe(200);
    const ran = await recorder.during(async () => {
      for (const url of LISTS) for (const page of [1, 2]) expect(await status(`${url}&page=${page}&page_size=7`), url).toBe(200);
    });
    expect(ran.size).toBeGreaterThan(3);
    const db = new Database(file, { readonly: true });
    try {
      for (const sql of ran) {
        const plan = queryPlan(db, sql);
        // The page's keys (a JSON array bound to the statement) drive the lookups; every table is then searched.
        const lookups = plan.filter((detail) => !/json_each|^(REUSE )?LIST SUBQUERY/.test(detail));
        expect(lookups.length, sql).toBeGreaterThan(0);
        for (const detail of lookups) {
          expect(detail, `${sql}\n${plan.join('\n')}`).toMatch(
            /^SEARCH \w+( AS \w+)? USING (INDEX|INTEGER PRIMARY KEY|PRIMARY KEY|COVERING INDEX)/,
          );
        }
        expect(plan.join('\n'), sql).not.toMatch(/TEMP B-TREE/);
      }
    } finally {
      db.close();
    }
  });
});
