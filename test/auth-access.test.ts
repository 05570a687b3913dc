import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccessTable } from '../src/auth/access.ts';
import { Gate } from '../src/auth/gate.ts';
import { generateKey, hashKey, keyHint } from '../src/auth/keys.ts';
import { MemoryStore } from '../src/auth/memory-store.ts';
import { loadPlans } from '../src/auth/plans.ts';
import { Api, API_BASE, ROUTES } from '../src/api/index.ts';
import { ROUTE_EXAMPLES } from './helpers/examples.ts';
import { fixtureDb } from './helpers/fixture-db.ts';

/**
 * Who may call each route, per preset: the cheapest plan that opens it, or `open` (every caller). A route of
 * the route table missing here fails the test: adding an endpoint means deciding its plan here as well as
 * in config/plans/*.json. Each plan of a preset opens what the cheaper ones open.
 */
const EXPECTED: Record<'a' | 'b', Record<string, string>> = {
  a: {
    'health-scores/': 'free',
    'health-scores/:zip/': 'free',
    'health-scores/:zip/nearby/': 'free',
    'providers/': 'free',
    'providers/:npi/': 'free',
    'facilities/': 'free',
    'facilities/:id/': 'free',
    'widget-score/:zip/': 'free',
    'autocomplete/': 'free',
    'score-types/': 'free',
    'states/': 'free',
    'blog/': 'free',
    'blog/:slug/': 'free',
    'tvi/:zip/': 'free',
    'health-scores/:zip/all-scores/': 'professional',
    'health-scores/:zip/census/': 'professional',
    'rankings/states/': 'professional',
    'rankings/hospitals/': 'professional',
    'tvi/top-vulnerable/': 'professional',
    'tvi/rankings/': 'professional',
    'health-scores/geojson/': 'business',
    'compare/': 'business',
    'exports/health-scores/': 'enterprise',
    'exports/providers/': 'enterprise',
    'exports/facilities/': 'enterprise',
    '': 'open',
    'meta/': 'open',
    'openapi.json': 'open',
  },
  b: {
    'health-scores/': 'free',
    'health-scores/:zip/': 'free',
    'health-scores/:zip/nearby/': 'free',
    'tvi/:zip/': 'free',
    'providers/:npi/': 'free',
    'rankings/states/': 'free',
    'autocomplete/': 'free',
    'score-types/': 'free',
    'states/': 'free',
    'blog/': 'free',
    'blog/:slug/': 'free',
    'health-scores/:zip/all-scores/': 'starter',
    'health-scores/:zip/census/': 'starter',
    'health-scores/geojson/': 'starter',
    'facilities/': 'starter',
    'facilities/:id/': 'starter',
    'rankings/hospitals/': 'starter',
    'tvi/top-vulnerable/': 'starter',
    'tvi/rankings/': 'starter',
    'providers/': 'growth',
    'exports/health-scores/': 'growth',
    'widget-score/:zip/': 'growth',
    'compare/': 'growth',
    'exports/providers/': 'enterprise',
    'exports/facilities/': 'enterprise',
    '': 'open',
    'meta/': 'open',
    'openapi.json': 'open',
  },
};

const relative = (routePath: string) => routePath.replace(/^\/api\/v1\//, '');

/** A request for the route: its first example, else its path with placeholders (the gate decides before the handler). */
function requestFor(routePath: string): string {
  return ROUTE_EXAMPLES[routePath]?.[0] ?? routePath.replace(/:(\w+)/g, 'x');
}

let api: Api;
beforeAll(async () => {
  api = Api.open(await fixtureDb());
});
afterAll(() => api.retire());

for (const preset of ['a', 'b'] as const) {
  describe(`plan access, preset ${preset}, route by route`, () => {
    const planSet = loadPlans(preset);
    const store = new MemoryStore();
    const gate = new Gate({ store, access: new AccessTable(planSet, ROUTES, API_BASE), now: () => Date.parse('2024-05-15T12:00:00Z') });
    const keys = new Map<string, string>();
    beforeAll(async () => {
      for (const plan of planSet.plans) {
        const key = generateKey();
        await store.addKey(hashKey(key), { name: plan.name, plan: plan.id, hint: keyHint(key), createdAt: '2024-05-01T00:00:00Z' });
        keys.set(plan.id, key);
      }
    });

    it('the expected table names every route of the route table', () => {
      expect(Object.keys(EXPECTED[preset]).sort()).toEqual(ROUTES.map((r) => relative(r.path)).sort());
    });

    for (const route of ROUTES) {
      const cheapest = EXPECTED[preset][relative(route.path)];
      it(`${relative(route.path)}: ${cheapest === 'open' ? 'open to every caller' : `${cheapest} and up`}`, async () => {
        expect(cheapest, `decide the plan of ${route.path} in EXPECTED.${preset} (and config/plans/${preset}.json)`).toBeDefined();
        const url = requestFor(route.path);
        const rank = cheapest === 'open' ? -1 : planSet.plans.findIndex((p) => p.id === cheapest);
        const callers: Array<[string, Record<string, string>, number]> = [
          ['anonymous', {}, planSet.plans.indexOf(planSet.anonymous.access)],
          ...planSet.plans.map((plan, i): [string, Record<string, string>, number] => [plan.id, { 'x-api-key': keys.get(plan.id)! }, i]),
        ];
        for (const [who, headers, callerRank] of callers) {
          const { response } = await gate.respond(api, { method: 'GET', url, headers, remoteAddress: '203.0.113.1' });
          response.stream?.destroy();
          const body = response.stream ? {} : JSON.parse(response.body.toString('utf8'));
          if (callerRank >= rank) {
            expect(response.status, `${who} on ${url}: ${JSON.stringify(body)}`).not.toBe(403);
          } else {
            expect(response.status, `${who} on ${url}`).toBe(403);
            const name = planSet.plans[rank].name;
            expect(body).toEqual({
              error: 'plan_upgrade_required',
              status: 403,
              message: expect.stringContaining(`needs the ${name} plan`),
            });
          }
        }
      });
    }
  });
}

describe('plan features', () => {
  it('the white-label widget is a Business feature under preset a: the widget answer says so', async () => {
    const planSet = loadPlans('a');
    const store = new MemoryStore();
    const gate = new Gate({ store, access: new AccessTable(planSet, ROUTES, API_BASE) });
    const answers: Record<string, unknown> = {};
    for (const plan of planSet.plans) {
      const key = generateKey();
      await store.addKey(hashKey(key), { name: plan.name, plan: plan.id, hint: keyHint(key), createdAt: '2024-05-01T00:00:00Z' });
      const { response } = await gate.respond(api, { method: 'GET', url: '/api/v1/widget-score/10001/', headers: { 'x-api-key': key } });
      answers[plan.id] = JSON.parse(response.body.toString('utf8')).white_label;
    }
    expect(answers).toEqual({ free: false, professional: false, business: true, enterprise: true });
  });
});
