import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api } from '../src/api/index.ts';
import { fixtureDb, fixtureZips } from './helpers/fixture-db.ts';

/** Independent haversine, in miles on the 6371 km sphere the API documents. */
function bruteMiles(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const r = Math.PI / 180;
  const h = Math.sin(((lat2 - lat1) * r) / 2) ** 2 + Math.cos(lat1 * r) * Math.cos(lat2 * r) * Math.sin(((lon2 - lon1) * r) / 2) ** 2;
  return (2 * 6371 * Math.asin(Math.sqrt(h))) / 1.609344;
}

describe('nearby/ agrees with brute force over every fixture ZIP', () => {
  let api: Api;
  beforeAll(async () => {
    api = Api.open(await fixtureDb());
  });
  afterAll(() => api.retire());

  /** What nearby/ must answer, computed by scanning every ZIP. */
  function expected(zip: string, radiusMiles: number, limit: number) {
    const zips = fixtureZips();
    const target = zips.find((z) => z.zip === zip)!;
    return zips
      .filter((z) => z.zip !== zip)
      .map((z) => ({ z, miles: bruteMiles(target.latitude, target.longitude, z.latitude, z.longitude) }))
      .filter(({ miles }) => miles <= radiusMiles)
      .sort((a, b) => a.miles - b.miles || a.z.zip.localeCompare(b.z.zip))
      .slice(0, limit)
      .map(({ z, miles }) => {
        const record = api.queries.healthScores.byZip(z.zip, 1)!;
        return {
          zip_code: z.zip,
          city: record.city,
          state: z.state,
          healthscore: record.healthscore,
          label: record.label,
          distance_miles: Math.round(miles * 100) / 100,
        };
      });
  }

  async function nearby(zip: string, radius: number, limit: number) {
    const response = await api.respond({ method: 'GET', url: `/api/v1/health-scores/${zip}/nearby/?radius=${radius}&limit=${limit}` });
    expect(response.status).toBe(200);
    return JSON.parse(response.body.toString('utf8'));
  }

  // ZIPs sharing one point (DC has several) make ties at the cut; Barrow has no neighbour within 100 miles.
  const duplicated = (() => {
    const byPoint = new Map<string, string[]>();
    for (const z of fixtureZips()) {
      const key = `${z.latitude},${z.longitude}`;
      byPoint.set(key, [...(byPoint.get(key) ?? []), z.zip]);
    }
    return [...byPoint.values()].filter((zips) => zips.length > 2)[0];
  })();
  const targets = ['20001', '02801', '02903', '19901', '10001', '94103', '99501', '99723', duplicated[0], duplicated[1]];

  for (const zip of targets) {
    it(`ZIP ${zip}`, async () => {
      for (const [radius, limit] of [
        [0.5, 50],
        [1, 3],
        [2.5, 10],
        [10, 10],
        [25, 50],
        [100, 50],
        [100, 1],
        [3.75, 7],
      ] as const) {
        expect(await nearby(zip, radius, limit), `radius ${radius}, limit ${limit}`).toEqual(expected(zip, radius, limit));
      }
    });
  }

  it('breaks ties at the limit by ZIP code, the target excluded', async () => {
    const [first, ...others] = duplicated;
    const result = await nearby(first, 1, others.length);
    expect(result.map((e: { zip_code: string }) => e.zip_code)).toEqual([...others].sort());
    expect(result.every((e: { distance_miles: number }) => e.distance_miles === 0)).toBe(true);
  });

  it('defaults to 10 miles and 10 entries', async () => {
    const response = await api.respond({ method: 'GET', url: '/api/v1/health-scores/20001/nearby/' });
    expect(JSON.parse(response.body.toString('utf8'))).toEqual(expected('20001', 10, 10));
  });
});
