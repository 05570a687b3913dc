import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api } from '../src/http/api.ts';
import { fixtureDb } from './helpers/fixture-db.ts';
import { expectGolden } from './helpers/golden.ts';

/** One golden file per case: the request, the status and the parsed body. */
const CASES: Record<string, string> = {
  'health-scores-list': '/api/v1/health-scores/?page_size=3',
  'health-scores-list-filtered': '/api/v1/health-scores/?state=ri&min_score=60&max_score=80&page=2&page_size=5',
  'health-scores-list-city': '/api/v1/health-scores/?city=WILMINGTON&state=DE&page_size=3',
  'health-scores-list-score-type': '/api/v1/health-scores/?score_type=asthma&state=AK',
  'health-scores-list-unknown-state': '/api/v1/health-scores/?state=ZZ',
  'health-score': '/api/v1/health-scores/02801/',
  'health-score-all-scores': '/api/v1/health-scores/02801/all-scores/',
  'health-score-nearby': '/api/v1/health-scores/20001/nearby/',
  'health-score-nearby-radius': '/api/v1/health-scores/10001/nearby/?radius=2.5&limit=5',
  'health-score-nearby-alone': '/api/v1/health-scores/99723/nearby/',
  'health-scores-geojson': '/api/v1/health-scores/geojson/?state=RI&min_score=85',
  'score-types': '/api/v1/score-types/',
  states: '/api/v1/states/',
  meta: '/api/v1/meta/',
  'error-zip-not-found': '/api/v1/health-scores/00000/',
  'error-zip-malformed': '/api/v1/health-scores/1234/',
  'error-page-past-last': '/api/v1/health-scores/?state=NY&page=2',
  'error-page-size-too-big': '/api/v1/health-scores/?page_size=500',
  'error-unknown-parameter': '/api/v1/health-scores/?min_socre=70',
  'error-unknown-path': '/api/v1/nothing-here/',
};

describe('golden responses on the fixture', () => {
  let api: Api;
  beforeAll(async () => {
    api = Api.open(await fixtureDb());
  });
  afterAll(() => api.retire());

  for (const [name, url] of Object.entries(CASES)) {
    it(`${name}: GET ${url}`, async () => {
      const response = await api.respond({ method: 'GET', url });
      expectGolden(name, { request: `GET ${url}`, status: response.status, body: JSON.parse(response.body.toString('utf8')) });
    });
  }

  it('the national GeoJSON has one Point feature per scored ZIP, [longitude, latitude]', async () => {
    const response = await api.respond({ method: 'GET', url: '/api/v1/health-scores/geojson/' });
    const body = JSON.parse(response.body.toString('utf8'));
    expect(body.type).toBe('FeatureCollection');
    expect(body.features).toHaveLength((api.queries.meta.row_counts as { zips: number }).zips);
    const record = api.queries.healthScores.byZip('02801', 1)!;
    const feature = body.features.find((f: { properties: { zip_code: string } }) => f.properties.zip_code === '02801');
    expect(feature).toEqual({
      type: 'Feature',
      geometry: { type: 'Point', coordinates: [record.longitude, record.latitude] },
      properties: { zip_code: '02801', healthscore: record.healthscore, label: record.label, color: record.color },
    });
  });

  it('walks every page of a list with next links and sees every record once, in ZIP order', async () => {
    const seen: string[] = [];
    let url: string | null = '/api/v1/health-scores/?state=de&page_size=7';
    let count = 0;
    while (url) {
      const response = await api.respond({ method: 'GET', url });
      expect(response.status).toBe(200);
      const page = JSON.parse(response.body.toString('utf8'));
      count = page.count;
      seen.push(...page.results.map((r: { zip_code: string; state: string }) => r.zip_code));
      expect(page.results.every((r: { state: string }) => r.state === 'DE')).toBe(true);
      if (page.next) expect(new URL(page.next, 'http://x').searchParams.get('state')).toBe('de');
      url = page.next;
    }
    expect(seen).toHaveLength(count);
    expect(seen).toEqual([...seen].sort());
    expect(new Set(seen).size).toBe(count);
  });

  it('healthscore reconciles with its four components for every record (the documented composite)', async () => {
    for (let type = 1; type <= 11; type++) {
      const page = JSON.parse((await api.respond({ method: 'GET', url: `/api/v1/health-scores/?score_type=${type}&page_size=100&state=RI` })).body.toString());
      for (const r of page.results) {
        expect(r.healthscore).toBe(Math.round(0.2 * r.people_score + 0.35 * r.provider_score + 0.25 * r.hospital_score + 0.2 * r.travel_score));
      }
    }
  });
});
