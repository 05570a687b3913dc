import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WHITE_LABEL_FEATURE } from '../src/api/widget.ts';
import { widgetSummary } from '../src/api/widget-summary.ts';
import { Api } from '../src/api/index.ts';
import { fixtureDb } from './helpers/fixture-db.ts';

describe('the widget sentence', () => {
  const cases: Array<[Parameters<typeof widgetSummary>[0], string]> = [
    [
      { label: 'Excellent Access', hospitals: 4, clinicians: 210, nearestHospitalMiles: 1.2 },
      'Excellent access: 4 hospitals and 210 primary care clinicians within 10 miles',
    ],
    [
      { label: 'Healthcare Paradise', hospitals: 1, clinicians: 1, nearestHospitalMiles: 0.3 },
      'Outstanding access: 1 hospital and 1 primary care clinician within 10 miles',
    ],
    [
      { label: 'Moderate Access', hospitals: 2, clinicians: 1250, nearestHospitalMiles: 3 },
      'Moderate access: 2 hospitals and 1,250 primary care clinicians within 10 miles',
    ],
    [
      { label: 'Limited Access', hospitals: 0, clinicians: 12, nearestHospitalMiles: 14.24 },
      'Limited access: 12 primary care clinicians but no hospital within 10 miles; the nearest hospital is 14.2 miles away',
    ],
    [
      { label: 'Limited Access', hospitals: 1, clinicians: 0, nearestHospitalMiles: 6 },
      'Limited access: 1 hospital but no primary care clinician within 10 miles',
    ],
    [
      { label: 'Healthcare Desert', hospitals: 0, clinicians: 0, nearestHospitalMiles: 41 },
      'Healthcare desert: no hospital or primary care clinician within 10 miles; the nearest hospital is 41 miles away',
    ],
    [
      { label: 'Healthcare Desert', hospitals: 0, clinicians: 1, nearestHospitalMiles: 1.04 },
      'Healthcare desert: 1 primary care clinician but no hospital within 10 miles; the nearest hospital is 1 mile away',
    ],
    [
      { label: 'Healthcare Desert', hospitals: 0, clinicians: 0, nearestHospitalMiles: null },
      'Healthcare desert: no hospital or primary care clinician within 10 miles; no hospital is on record nearby',
    ],
  ];
  for (const [facts, sentence] of cases) it(sentence, () => expect(widgetSummary(facts)).toBe(sentence));
});

describe('widget-score/{zip}/ on the fixture', () => {
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

  it('carries the overall record, the access facts and the nearest hospital of every ZIP', async () => {
    const rows = db
      .prepare(`SELECT h.zip_code, h.healthscore, h.grade, h.people_score, h.travel_score, a.hospitals_within_10_miles, a.primary_care_within_10_miles,
      a.nearest_hospital_id, a.nearest_hospital_miles, f.facility_name FROM health_scores h JOIN zip_access a ON a.zip_code = h.zip_code
      LEFT JOIN facilities f ON f.id = a.nearest_hospital_id WHERE h.score_type_id = 1`)
      .all() as any[];
    for (const row of rows) {
      const body = JSON.parse((await api.respond({ method: 'GET', url: `/api/v1/widget-score/${row.zip_code}/` })).body.toString('utf8'));
      expect(body).toMatchObject({
        zip_code: row.zip_code,
        score: row.healthscore,
        grade: row.grade,
        report_url: `/api/v1/health-scores/${row.zip_code}/`,
        map_url: `/map/#zip=${row.zip_code}`,
        white_label: false,
        components: { people: row.people_score, travel: row.travel_score },
        within_10_miles: { hospitals: row.hospitals_within_10_miles, primary_care_clinicians: row.primary_care_within_10_miles },
        nearest_hospital: { id: row.nearest_hospital_id, name: row.facility_name, distance_miles: row.nearest_hospital_miles },
      });
      expect(body.summary).toMatch(/^(Outstanding|Excellent|Moderate|Limited) access: |^Healthcare desert: /);
    }
  });

  it('is CORS-enabled and cacheable for 24 hours, 304s included', async () => {
    const response = await api.respond({ method: 'GET', url: '/api/v1/widget-score/10001/' });
    expect(response.headers).toMatchObject({
      'Access-Control-Allow-Origin': '*',
      'Cache-Control': 'public, max-age=86400',
      // The answer (1.4 KB with its data quality) is compressed for clients that take it.
      Vary: 'Accept-Encoding, Authorization, X-API-Key',
    });
    const again = await api.respond({
      method: 'GET',
      url: '/api/v1/widget-score/10001/',
      headers: { 'if-none-match': response.headers.ETag as string },
    });
    expect(again.status).toBe(304);
    expect(again.headers['Cache-Control']).toBe('public, max-age=86400');
  });

  it('is white-label for a plan with the feature, and the response cache keeps the two answers apart', async () => {
    const url = '/api/v1/widget-score/20001/';
    const plain = await api.respond({ method: 'GET', url });
    const branded = await api.respond({ method: 'GET', url, features: new Set([WHITE_LABEL_FEATURE]) });
    const plainAgain = await api.respond({ method: 'GET', url });
    expect(JSON.parse(plain.body.toString()).white_label).toBe(false);
    expect(JSON.parse(branded.body.toString()).white_label).toBe(true);
    expect(JSON.parse(plainAgain.body.toString()).white_label).toBe(false);
    expect(branded.headers.ETag).not.toBe(plain.headers.ETag);
    // Asked in the other order, by a branded caller first, the answers stay apart and are both cached.
    const order = '/api/v1/widget-score/20002/';
    const brandedFirst = await api.respond({ method: 'GET', url: order, features: new Set([WHITE_LABEL_FEATURE]) });
    const plainSecond = await api.respond({ method: 'GET', url: order });
    const hits = api.cacheStats().hits;
    const brandedAgain = await api.respond({ method: 'GET', url: order, features: new Set([WHITE_LABEL_FEATURE]) });
    expect(JSON.parse(brandedFirst.body.toString()).white_label).toBe(true);
    expect(JSON.parse(plainSecond.body.toString()).white_label).toBe(false);
    expect(JSON.parse(brandedAgain.body.toString()).white_label).toBe(true);
    expect(api.cacheStats().hits).toBe(hits + 1);
  });

  it('shares one cache entry between plans for a route whose answer does not depend on features', async () => {
    const url = '/api/v1/health-scores/20001/';
    await api.respond({ method: 'GET', url, features: new Set([WHITE_LABEL_FEATURE]) });
    const { entries, hits } = api.cacheStats();
    const plain = await api.respond({ method: 'GET', url });
    const branded = await api.respond({ method: 'GET', url, features: new Set([WHITE_LABEL_FEATURE]) });
    expect(plain.headers.ETag).toBe(branded.headers.ETag);
    expect(api.cacheStats()).toMatchObject({ entries, hits: hits + 2 });
  });
});
