import { documentedHealthscore } from './helpers/documented-composite.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api } from '../src/api/index.ts';
import { fixtureDb } from './helpers/fixture-db.ts';
import { expectGolden } from './helpers/golden.ts';

/** One golden file per case: the request, the status and the parsed body. */
const CASES: Record<string, string> = {
  'health-scores-list': '/api/v1/health-scores/?page_size=3',
  'health-scores-list-filtered': '/api/v1/health-scores/?state=ri&min_score=60&max_score=80&page=2&page_size=5',
  'health-scores-list-city': '/api/v1/health-scores/?city=WILMINGTON&state=DE&page_size=3',
  'health-scores-list-score-type': '/api/v1/health-scores/?score_type=asthma&state=AK',
  'health-scores-list-unknown-state': '/api/v1/health-scores/?state=ZZ',
  'health-scores-list-worst': '/api/v1/health-scores/?state=RI&sort=healthscore&page_size=3',
  'health-scores-list-near': '/api/v1/health-scores/?near=02903&radius=3&sort=-population&page_size=3',
  'error-health-scores-sort': '/api/v1/health-scores/?sort=score',
  'health-score': '/api/v1/health-scores/02801/',
  'health-score-all-scores': '/api/v1/health-scores/02801/all-scores/',
  'health-score-nearby': '/api/v1/health-scores/20001/nearby/',
  'health-score-nearby-radius': '/api/v1/health-scores/10001/nearby/?radius=2.5&limit=5',
  'health-score-nearby-alone': '/api/v1/health-scores/99723/nearby/',
  'health-scores-geojson': '/api/v1/health-scores/geojson/?state=RI&min_score=85',
  'score-types': '/api/v1/score-types/',
  states: '/api/v1/states/',
  meta: '/api/v1/meta/',
  root: '/api/v1/',
  'error-zip-not-found': '/api/v1/health-scores/00000/',
  'error-zip-malformed': '/api/v1/health-scores/1234/',
  'health-score-po-box': '/api/v1/health-scores/20500/',
  'health-score-zip-plus-four': '/api/v1/health-scores/02801-1234/',
  'error-all-scores-po-box': '/api/v1/health-scores/20500/all-scores/',
  'error-zip-city-name': '/api/v1/health-scores/providence/',
  'error-page-past-last': '/api/v1/health-scores/?state=NY&page=2',
  'error-page-size-too-big': '/api/v1/health-scores/?page_size=500',
  'error-unknown-parameter': '/api/v1/health-scores/?min_socre=70',
  'error-unknown-path': '/api/v1/nothing-here/',
  tvi: '/api/v1/tvi/10001/',
  'tvi-top-vulnerable': '/api/v1/tvi/top-vulnerable/?page_size=5',
  'tvi-top-vulnerable-filtered': '/api/v1/tvi/top-vulnerable/?state=ri&tier=High&page=2&page_size=3',
  'tvi-top-vulnerable-sorted': '/api/v1/tvi/top-vulnerable/?state=de&sort=-zero_vehicle_pct&page_size=3',
  'tvi-rankings': '/api/v1/tvi/rankings/?limit=5',
  census: '/api/v1/health-scores/02801/census/',
  'census-no-values': '/api/v1/health-scores/02860/census/',
  'widget-score': '/api/v1/widget-score/10001/',
  'widget-score-no-hospital-near': '/api/v1/widget-score/99723/',
  compare: '/api/v1/compare/?zips=94110,10001,02801',
  'compare-score-type': '/api/v1/compare/?zips=99723,10001&score_type=copd',
  blog: '/api/v1/blog/',
  'blog-post': '/api/v1/blog/what-the-transportation-vulnerability-index-measures/',
  'error-tvi-not-found': '/api/v1/tvi/00000/',
  'error-tvi-unknown-tier': '/api/v1/tvi/top-vulnerable/?tier=extreme',
  'error-census-not-found': '/api/v1/health-scores/00000/census/',
  'error-widget-not-found': '/api/v1/widget-score/00000/',
  'error-compare-missing-zips': '/api/v1/compare/',
  'error-compare-one-zip': '/api/v1/compare/?zips=10001',
  'error-compare-duplicate-zip': '/api/v1/compare/?zips=10001,02801,10001',
  'error-compare-unknown-zips': '/api/v1/compare/?zips=10001,00000,99999',
  'error-blog-scheduled-post': '/api/v1/blog/coming-soon/',
  'error-blog-draft': '/api/v1/blog/unfinished-draft/',
  'error-export-format': '/api/v1/exports/providers/?format=xml',
  'providers-list': '/api/v1/providers/?page_size=3',
  'providers-specialty-alias': '/api/v1/providers/?specialty=Cardiology&page_size=5',
  'providers-specialty-state': '/api/v1/providers/?specialty=internal%20medicine&state=ny&page_size=4',
  'providers-city': '/api/v1/providers/?city=WILMINGTON&page=2&page_size=3',
  'providers-zip': '/api/v1/providers/?zip=10001&page_size=4',
  'providers-name': '/api/v1/providers/?name=obr&page_size=4',
  'providers-combined': '/api/v1/providers/?specialty=family%20medicine&state=DE&name=j&page=2&page_size=2',
  'providers-unknown-specialty': '/api/v1/providers/?specialty=astrology',
  'providers-misspelt-specialty': '/api/v1/providers/?specialty=cardiologist',
  'providers-near': '/api/v1/providers/?near=10001&radius=5&specialty=cardiology&page_size=3',
  'providers-sort-descending': '/api/v1/providers/?state=DE&sort=-last_name&page_size=3',
  provider: '/api/v1/providers/1679576722/',
  'error-provider-check-digit': '/api/v1/providers/1679576723/',
  'error-provider-not-found': '/api/v1/providers/1234567893/',
  'facilities-list': '/api/v1/facilities/?page_size=3',
  'facilities-hospitals-state': '/api/v1/facilities/?type=hospital&state=ny&page_size=4',
  'facilities-type': '/api/v1/facilities/?type=critical%20access%20hospital&page_size=3',
  'facilities-emergency-rating': '/api/v1/facilities/?emergency=true&min_rating=5&page_size=3',
  'facilities-search': '/api/v1/facilities/?search=st%20mary&page_size=3',
  'facilities-sort-rating': '/api/v1/facilities/?type=hospital&sort=-facility_rating&page_size=3',
  'error-facilities-type': '/api/v1/facilities/?type=critical%20acess',
  facility: '/api/v1/facilities/1001/',
  'error-facility-not-found': '/api/v1/facilities/999999/',
  'error-facilities-boolean': '/api/v1/facilities/?emergency=yes',
  'autocomplete-zip': '/api/v1/autocomplete/?q=100',
  'autocomplete-city': '/api/v1/autocomplete/?q=new%20yo',
  'autocomplete-full-name': '/api/v1/autocomplete/?q=jane%20d',
  'autocomplete-mixed': '/api/v1/autocomplete/?q=wil',
  'error-autocomplete-empty': '/api/v1/autocomplete/?q=%20',
  'rankings-states': '/api/v1/rankings/states/',
  'rankings-hospitals': '/api/v1/rankings/hospitals/?state=NY',
};

/** Streamed answers (exports): the status, the headers a client downloads by, and the body's lines. */
const STREAM_CASES: Record<string, string> = {
  'export-facilities-csv': '/api/v1/exports/facilities/?state=RI',
  'export-providers-ndjson': '/api/v1/exports/providers/?format=ndjson&state=AK',
  'export-health-scores-csv': '/api/v1/exports/health-scores/?state=ak&score_type=asthma',
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

  for (const [name, url] of Object.entries(STREAM_CASES)) {
    it(`${name}: GET ${url}`, async () => {
      const response = await api.respond({ method: 'GET', url });
      expect(response.stream, 'a streamed body').toBeDefined();
      let text = '';
      for await (const chunk of response.stream!) text += chunk;
      const headers = { 'Content-Type': response.headers['Content-Type'], 'Content-Disposition': response.headers['Content-Disposition'] };
      expectGolden(name, { request: `GET ${url}`, status: response.status, headers, lines: text.split(/(?<=\n)/) });
    });
  }

  it('openapi: every operation with its parameters and answers (the API surface at a glance)', async () => {
    const url = '/api/v1/openapi.json';
    const document = JSON.parse((await api.respond({ method: 'GET', url })).body.toString('utf8'));
    const operations = Object.entries(document.paths as Record<string, { get: any }>).map(([path, { get }]) => ({
      path,
      operationId: get.operationId,
      tags: get.tags,
      parameters: get.parameters.map((p: any) => `${p.in} ${p.name}${p.required ? ' (required)' : ''}`),
      responses: Object.keys(get.responses),
      media: Object.keys(get.responses['200'].content),
    }));
    expectGolden('openapi-operations', {
      request: `GET ${url}`,
      openapi: document.openapi,
      components: Object.keys(document.components.schemas),
      operations,
    });
  });

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
      // Links carry each parameter in its one spelling (the state upper case), whatever the request sent.
      if (page.next) expect(new URL(page.next, 'http://x').searchParams.get('state')).toBe('DE');
      url = page.next;
    }
    expect(seen).toHaveLength(count);
    expect(seen).toEqual([...seen].sort());
    expect(new Set(seen).size).toBe(count);
  });

  it('healthscore reconciles with its four components for every record (the documented composite)', async () => {
    for (let type = 1; type <= 11; type++) {
      const page = JSON.parse(
        (await api.respond({ method: 'GET', url: `/api/v1/health-scores/?score_type=${type}&page_size=100&state=RI` })).body.toString(),
      );
      for (const r of page.results) {
        expect(r.healthscore).toBe(documentedHealthscore(r));
      }
    }
  });
});
