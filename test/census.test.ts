import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CENSUS_MEASURES } from '../core/census-measures.ts';
import { CENSUS_GROUPS } from '../src/answers/census.ts';
import { Api } from '../src/api/index.ts';
import { fixtureDb } from './helpers/fixture-db.ts';

describe('the census field table', () => {
  const fields = Object.values(CENSUS_GROUPS).flatMap((group) => Object.entries(group));

  it('maps every canonical measure to exactly one published field', () => {
    expect(fields.map(([, measure]) => measure).sort()).toEqual([...CENSUS_MEASURES].sort());
    expect(new Set(fields.map(([field]) => field)).size).toBe(fields.length);
  });

  it('names the unit of every field: a percentage, dollars, years, or a count of people or housing units', () => {
    for (const [field] of fields) expect(field).toMatch(/_pct$|_usd$|_years$|^population$|^housing_units$/);
  });
});

describe('health-scores/{zip}/census/ on the fixture', () => {
  let api: Api;
  let db: Database.Database;
  beforeAll(async () => {
    const file = await fixtureDb();
    api = Api.open(file);
    db = new Database(file, { readonly: true });
  });
  afterAll(() => {
    api.retire();
    db.close();
  });

  it('every value of every ZIP traces to its census row (null where the row is NULL or absent), with its sources and vintages', async () => {
    const rows = db.prepare('SELECT zip_code, measure, value, source FROM census').all() as Array<{
      zip_code: string;
      measure: string;
      value: number | null;
      source: string;
    }>;
    const stored = new Map(rows.map((r) => [`${r.zip_code} ${r.measure}`, r]));
    const vintages = new Map(
      (
        JSON.parse((db.prepare("SELECT value FROM meta WHERE key = 'sources'").get() as { value: string }).value) as Array<{
          key: string;
          vintage: string;
        }>
      ).map((s, i) => [s.key, { vintage: s.vintage, order: i }]),
    );
    const zips = (db.prepare('SELECT zip_code FROM zips ORDER BY zip_code').all() as Array<{ zip_code: string }>).map((r) => r.zip_code);
    let nulls = 0;
    let values = 0;
    for (const zip of zips) {
      const response = await api.respond({ method: 'GET', url: `/api/v1/health-scores/${zip}/census/` });
      expect(response.status).toBe(200);
      const body = JSON.parse(response.body.toString('utf8'));
      for (const [group, fields] of Object.entries(CENSUS_GROUPS)) {
        const sources = new Set<string>();
        for (const [field, measure] of Object.entries(fields)) {
          const row = stored.get(`${zip} ${measure}`);
          expect(body[group][field], `${zip} ${field}`).toBe(row?.value ?? null);
          if (row?.value == null) nulls++;
          else {
            values++;
            sources.add(row.source);
          }
        }
        const expected = [...sources]
          .sort((a, b) => vintages.get(a)!.order - vintages.get(b)!.order)
          .map((key) => ({ key, vintage: vintages.get(key)!.vintage }));
        expect(body[group].sources, `${zip} ${group}`).toEqual(expected);
      }
    }
    // The fixture has both, and mixed-source groups (income: two sources).
    expect(nulls).toBeGreaterThan(100);
    expect(values).toBeGreaterThan(5000);
  });

  it('never turns a suppressed value into 0', async () => {
    const suppressed = db
      .prepare("SELECT zip_code, measure FROM census WHERE value IS NULL AND measure = 'median_household_income' LIMIT 1")
      .get() as { zip_code: string };
    const body = JSON.parse(
      (await api.respond({ method: 'GET', url: `/api/v1/health-scores/${suppressed.zip_code}/census/` })).body.toString('utf8'),
    );
    expect(body.income.median_household_income_usd).toBeNull();
  });

  it('a ZIP the build does not score is a 404 naming it', async () => {
    const response = await api.respond({ method: 'GET', url: '/api/v1/health-scores/00000/census/' });
    expect(JSON.parse(response.body.toString('utf8'))).toEqual({
      error: 'not_found',
      message: 'No census data for ZIP code 00000',
      status: 404,
    });
  });
});
