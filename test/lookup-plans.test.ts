import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api } from '../src/api/index.ts';
import { fixtureDb } from './helpers/fixture-db.ts';
import { ROUTE_EXAMPLES, ROUTES } from './helpers/examples.ts';
import { queryPlan, StatementRecorder } from './helpers/statement-recorder.ts';

/**
 * What a lookup (a ZIP's record, its census, its TVI, the widget's answer ...) costs in SQL: a statement that
 * reads more than one table takes its values through `bound()` (src/query/database.ts). A bare parameter there
 * makes SQLite plan the statement again on every call, several times the cost of the lookup itself
 * (bench/request-costs.ts); the fixture's answers are the same either way, so only the SQL shows it.
 */
const LOOKUPS = ROUTES.filter((route) => route.kind === 'lookup');

let api: Api;
let file: string;
let recorder: StatementRecorder;

beforeAll(async () => {
  file = await fixtureDb();
  api = Api.open(file, { cacheBytes: 0 });
  recorder = new StatementRecorder();
});
afterAll(() => {
  recorder.restore();
  api.retire();
});

/** A parameter outside a CAST: `?`, `?NNN` or a named one, string literals set aside. */
function bareParameters(sql: string): string[] {
  const code = sql.replace(/'(?:[^']|'')*'/g, "''").replace(/CAST\(\s*(\?\d*|[@:$]\w+)\s+AS\s+\w+\s*\)/gi, '');
  return [...code.matchAll(/\?\d*|[@:$]\w+/g)].map(([found]) => found);
}

describe('lookups in SQL', () => {
  it('finds bare parameters, and only outside a cast', () => {
    expect(bareParameters("SELECT a FROM t JOIN u ON u.k = t.k WHERE t.k = ? AND t.s = 'is it?'")).toEqual(['?']);
    expect(bareParameters('SELECT a FROM t WHERE t.k = @key AND t.n = CAST(@n AS INTEGER)')).toEqual(['@key']);
    expect(bareParameters('SELECT a FROM t WHERE t.k = CAST(? AS TEXT) AND t.j IN (SELECT value FROM json_each(CAST(? AS TEXT)))')).toEqual(
      [],
    );
  });

  it('each lookup casts the values of every statement it runs that reads more than one table', async () => {
    expect(LOOKUPS.length).toBeGreaterThan(5);
    const ran = await recorder.during(async () => {
      for (const route of LOOKUPS)
        for (const url of ROUTE_EXAMPLES[route.path] ?? []) expect((await api.respond({ method: 'GET', url })).status, url).toBe(200);
    });
    const db = new Database(file, { readonly: true });
    try {
      let joined = 0;
      for (const sql of ran) {
        const plan = queryPlan(db, sql);
        if (plan.filter((detail) => /^(SEARCH|SCAN) /.test(detail)).length < 2) continue;
        joined++;
        expect(bareParameters(sql), sql).toEqual([]);
      }
      expect(joined).toBeGreaterThan(1);
    } finally {
      db.close();
    }
  });
});
