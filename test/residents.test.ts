import { describe, expect, it } from 'vitest';
import { haversineMiles } from '../core/distance.ts';
import type { ZipPlace } from '../pipeline/geo/places.ts';
import { chooseResidentsPoints } from '../pipeline/geo/residents.ts';
import type { SourcedResidentsPoint } from '../pipeline/ingest/ingested.ts';
import type { GazetteerRow } from '../pipeline/layouts/census.ts';
import { tractPopulationCentre, zipResidentsPoint } from '../pipeline/layouts/residents.ts';
import { MIN_TRIP_MILES } from '../pipeline/config/scoring.ts';
import { internalMiles } from '../pipeline/score/network.ts';
import { nearestCare, type CarePoint } from '../pipeline/score/reach.ts';
import { describesResidents, minutesPerStraightMile, residentsRoadMinutes } from '../pipeline/score/road-times.ts';
import { seeded } from './helpers/seeded.ts';

const reader = (row: Record<string, string>) => (field: string) => row[field] ?? '';

describe('the residents-point layouts', () => {
  it("reads HUD's points and the Census tract centres (signed, zero-padded coordinates), and refuses what is not a point", () => {
    expect(zipResidentsPoint.parse(reader({ zip: '8301', latitude: '43.47397467', longitude: '-110.7677671' }), [], {})).toEqual({
      zip: '08301',
      latitude: 43.47397467,
      longitude: -110.7677671,
    });
    expect(() => zipResidentsPoint.parse(reader({ zip: '83001', latitude: '143.4', longitude: '-110.7' }), [], {})).toThrow(
      /not a latitude/,
    );
    expect(() => zipResidentsPoint.parse(reader({ zip: '83001', latitude: '', longitude: '-110.7' }), [], {})).toThrow(
      /LATITUDE is missing/,
    );
    expect(
      tractPopulationCentre.parse(
        reader({ state: '01', county: '001', tract: '020100', population: '1775', latitude: '+032.476823', longitude: '-086.486599' }),
        [],
        {},
      ),
    ).toEqual({ tract: '01001020100', population: 1775, latitude: 32.476823, longitude: -86.486599 });
    expect(() =>
      tractPopulationCentre.parse(
        reader({ state: '01', county: '001', tract: '0201', population: '-3', latitude: '32', longitude: '-86' }),
        [],
        {},
      ),
    ).toThrow(/POPULATION must be a count/);
  });
});

describe("choosing each ZCTA's point", () => {
  const zcta = (code: string, latitude: number, longitude: number, landSqMi: number): GazetteerRow => ({
    zcta: code,
    latitude,
    longitude,
    landSqMi,
  });
  const point = (zip: string, latitude: number, longitude: number, line: number): SourcedResidentsPoint => ({
    zip,
    latitude,
    longitude,
    origin: { key: 'hud', line },
  });
  const zctas = new Map(
    [
      zcta('83001', 43.394562, -110.629831, 481.434), // Jackson WY: HUD's point 8.8 miles away, in town
      zcta('96910', 13.4748, 144.7498, 15.973), // Hagatna GU: HUD's longitude has the wrong sign
      zcta('28331', 34.99, -78.6, 0.5), // a small town ZCTA whose rural-route ZIP reaches 23 miles out
      zcta('99999', 40, -100, 10), // no HUD row
    ].map((z) => [z.zcta, z]),
  );
  const points = new Map(
    [
      point('83001', 43.47397467, -110.7677671, 2),
      point('96910', 13.45750021, -144.7594986, 3),
      point('28331', 34.9983, -78.9697, 4),
      point('10008', 40.712685, -74.009737, 5), // a PO-box ZIP: no ZCTA of its own
    ].map((p) => [p.zip, p]),
  );
  const { chosen, withdrawn } = chooseResidentsPoints(zctas, points);

  it("takes HUD's point where it is plausible, else the Gazetteer's, and says which", () => {
    expect(chosen.get('83001')).toEqual({ latitude: 43.47397467, longitude: -110.7677671, source: 'hud_residential' });
    for (const code of ['96910', '28331', '99999']) {
      const z = zctas.get(code)!;
      expect(chosen.get(code), code).toEqual({ latitude: z.latitude, longitude: z.longitude, source: 'gazetteer_internal' });
    }
    expect(chosen.size).toBe(4);
  });

  it('reports every row it leaves out with its line: a wrong sign as invalid, a far ZIP and a ZIP without a ZCTA as excluded', () => {
    expect(withdrawn.map(({ line, kind }) => [line, kind]).sort()).toEqual([
      [3, 'invalid'],
      [4, 'excluded'],
      [5, 'excluded'],
    ]);
    expect(withdrawn.find((w) => w.line === 3)!.reason).toMatch(
      /^longitude -144.7594986 has the wrong sign: the point lies 4,7\d\d miles from ZCTA 96910/,
    );
    expect(withdrawn.find((w) => w.line === 4)!.reason).toMatch(
      /USPS ZIP 28331's residential addresses centre 21 miles from ZCTA 28331's internal point, more than 3 times its 0\.4-mile radius plus 10 miles/,
    );
    expect(withdrawn.find((w) => w.line === 5)!.reason).toMatch(/^ZIP 10008 is not a ZCTA/);
  });

  it("keeps HUD's point where the internal point is the one astray: far from every tract centre of the home county, HUD's among them", () => {
    // 2020's ZCTA 99503 (midtown Anchorage, 12,944 residents) holds land in Bethel Census Area, and its internal
    // point lies there, 278 miles west; HUD's point is 0.4 miles from an Anchorage tract centre of population.
    const anchorage = new Map([['99503', zcta('99503', 62.043689, -158.174466, 20.679)]]);
    const hud = new Map([['99503', point('99503', 61.190525892, -149.89591864, 7)]]);
    const tractCentres = [
      [61.1894, -149.8877],
      [61.2176, -149.8584],
    ];
    const miles = (_zcta: string, lon: number, lat: number) =>
      Math.min(...tractCentres.map(([tlat, tlon]) => haversineMiles(lon, lat, tlon!, tlat!)));
    const astray = chooseResidentsPoints(anchorage, hud, miles);
    expect(astray.chosen.get('99503')).toEqual({ latitude: 61.190525892, longitude: -149.89591864, source: 'hud_residential' });
    expect(astray.withdrawn).toEqual([]);
    // Without tract centres, or with HUD's point as far from them as the internal point, the rule stands.
    expect(chooseResidentsPoints(anchorage, hud).chosen.get('99503')!.source).toBe('gazetteer_internal');
    expect(chooseResidentsPoints(anchorage, hud, () => 40).chosen.get('99503')!.source).toBe('gazetteer_internal');
    // The rural-route ZIP: its internal point lies in town, among the county's residents; HUD's is not taken.
    expect(chooseResidentsPoints(zctas, points, (_z, lon) => (lon === -78.6 ? 0.5 : 3)).chosen.get('28331')!.source).toBe(
      'gazetteer_internal',
    );
  });
});

/** A ZIP place for the reach tests: residents at (lat, lon), the middle of its area elsewhere when asked. */
function place(index: number, latitude: number, longitude: number, extra: Partial<ZipPlace> = {}): ZipPlace {
  return {
    zip: String(10000 + index),
    state: 'WY',
    stateName: 'Wyoming',
    city: 'Town',
    countyFips: null,
    cbsaCode: null,
    urbanRuralCode: 6,
    latitude,
    longitude,
    pointSource: 'hud_residential',
    gazetteerLatitude: latitude,
    gazetteerLongitude: longitude,
    landSqMi: 400,
    population: 5000,
    ...extra,
  };
}

describe('miles to the nearest care', () => {
  it('matches a brute-force answer: residents measured directly, care inside the ZIP at most its typical trip, none under a quarter mile', () => {
    const random = seeded(26);
    for (let round = 0; round < 20; round++) {
      const places = Array.from({ length: 30 }, (_, i) =>
        place(i, 40 + random() * 2, -105 + random() * 2, {
          landSqMi: random() * 800,
          pointSource: random() < 0.2 ? 'gazetteer_internal' : 'hud_residential',
        }),
      );
      const points: CarePoint[] = Array.from({ length: 12 }, () => {
        const zipIndex = Math.floor(random() * places.length);
        const near = random() < 0.3;
        return {
          zipIndex,
          latitude: near ? places[zipIndex].latitude : 40 + random() * 2,
          longitude: near ? places[zipIndex].longitude : -105 + random() * 2,
        };
      });
      const { miles, point } = nearestCare(places, points);
      places.forEach((p, i) => {
        const candidates = points.map((c) => {
          const direct = haversineMiles(p.longitude, p.latitude, c.longitude, c.latitude);
          if (c.zipIndex !== i) return direct;
          return p.pointSource === 'hud_residential' ? Math.min(direct, internalMiles(p)) : internalMiles(p);
        });
        const best = Math.max(MIN_TRIP_MILES, Math.min(...candidates));
        expect(miles[i], `round ${round} ZIP ${i}`).toBeCloseTo(best, 9);
        expect(Math.max(MIN_TRIP_MILES, candidates[point[i]]), `round ${round} ZIP ${i}: the point named is the nearest`).toBeCloseTo(
          best,
          9,
        );
      });
    }
  });

  it('has no answer where there is no care at all', () => {
    const { miles, point } = nearestCare([place(0, 40, -105)], []);
    expect([miles[0], point[0]]).toEqual([Infinity, -1]);
  });
});

describe('road tables and estimated minutes', () => {
  it("uses a table's row only where its own miles agree with the residents' miles", () => {
    const jackson = place(0, 43.474, -110.768, { gazetteerLatitude: 43.3946, gazetteerLongitude: -110.6298, landSqMi: 481 });
    // Hosp-ZIP25 for 83001: 43.4 minutes and 24.5 miles, averaged over the ZIP's area; the residents are a mile from the hospital.
    expect(describesResidents(jackson, { zip: '83001', minutes: 43.4, miles: 24.5 }, 1.0)).toBe(false);
    expect(describesResidents(jackson, { zip: '83001', minutes: 3, miles: 1.4 }, 1.0)).toBe(true); // within a mile
    expect(describesResidents(jackson, { zip: '83001', minutes: 50, miles: 24.5 }, 21)).toBe(true); // within 25%
    expect(describesResidents(jackson, { zip: '83001', minutes: null, miles: 1 }, 1)).toBe(false);
    // Without miles: only a ZIP small beside the trip, its residents near the middle of its area.
    const compact = place(1, 40.75, -73.99, { landSqMi: 0.6, gazetteerLatitude: 40.751, gazetteerLongitude: -73.99 });
    expect(describesResidents(compact, { zip: '10001', minutes: 6, miles: null }, 2)).toBe(true);
    expect(describesResidents(jackson, { zip: '83001', minutes: 43.4, miles: null }, 1)).toBe(false);
    const minutes = residentsRoadMinutes(
      [jackson, compact],
      new Map([['10000', { zip: '10000', minutes: 43.4, miles: 24.5 }]]),
      Float64Array.of(1, 2),
    );
    expect([...minutes!].map(Number.isNaN)).toEqual([true, true]);
    expect(residentsRoadMinutes([jackson], null, Float64Array.of(1))).toBeNull();
  });

  it('estimates minutes per straight-line mile by the density of the ZIP itself', () => {
    expect(minutesPerStraightMile({ population: 30_000, landSqMi: 2 })).toBe(2.45);
    expect(minutesPerStraightMile({ population: 5_667, landSqMi: 2805 })).toBe(1.85); // Sells AZ, in Tucson's county
    expect(minutesPerStraightMile({ population: 100, landSqMi: 0 })).toBe(2.45); // a campus of no land area
    expect(minutesPerStraightMile({ population: null, landSqMi: 10 })).toBe(2);
  });
});
