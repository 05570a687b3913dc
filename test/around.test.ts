import KDBush from 'kdbush';
import { around } from 'geokdbush';
import { describe, expect, it } from 'vitest';
import { aroundInto } from '../pipeline/geo/around.ts';
import { seeded } from './helpers/seeded.ts';

/**
 * The build's search (pipeline/geo/around.ts) must answer exactly what geokdbush's `around` answers, in its
 * order, ties included: the travel network's sums run in that order, and the tables are compared to the
 * last bit. Held against geokdbush itself on points that tie (several at one place, as ZIPs that share a
 * point do), cluster, and cross the antimeridian and the poles.
 */
describe('aroundInto answers as geokdbush around does', () => {
  const random = seeded(27);
  const points: Array<[number, number]> = [];
  for (let i = 0; i < 3_000; i++) points.push([random() * 120 - 170, random() * 60 + 10]); // the US and around
  for (let i = 0; i < 400; i++) points.push([-74 + random() * 0.02, 40.7 + random() * 0.02]); // a dense city
  for (let i = 0; i < 300; i++) points.push([points[i][0], points[i][1]]); // ties: the same point twice
  for (let i = 0; i < 50; i++) points.push([179.5 + random() * 0.5, 51 + random()], [-180 + random() * 0.5, 51 + random()]); // Aleutians
  for (let i = 0; i < 20; i++) points.push([random() * 360 - 180, 89 + random()]); // near the pole
  const index = new KDBush(points.length, 64, Float64Array);
  for (const [x, y] of points) index.add(x, y);
  index.finish();
  const out: number[] = [];
  const same = (lng: number, lat: number, max: number, km: number, accept?: (id: number) => boolean) => {
    const expected: number[] = around(index, lng, lat, max, km, accept);
    const found = aroundInto(index, lng, lat, max, km, accept, out);
    expect(out.slice(0, found), `${lng},${lat} max ${max} within ${km} km`).toEqual(expected);
    return expected.length;
  };

  it('every point within a radius, nearest first, ties in its order', () => {
    let results = 0;
    for (let i = 0; i < points.length; i += 3) results += same(points[i][0], points[i][1], Infinity, 96.56);
    expect(results).toBeGreaterThan(10_000);
  });

  it('the k nearest, and the nearest a filter accepts, with no radius', () => {
    for (let i = 0; i < points.length; i += 7) {
      same(points[i][0], points[i][1], 20, 160.9);
      same(points[i][0], points[i][1], 1, Infinity, (id) => id % 5 !== i % 5);
    }
  });

  it('across the antimeridian, at the pole, far from every point, and in an empty index', () => {
    for (const [lng, lat] of [
      [179.99, 51.5],
      [-179.99, 51.5],
      [0, 90],
      [10, -60],
      [-74.01, 40.71],
    ])
      for (const km of [50, 500, 5_000, Infinity]) same(lng, lat, km === Infinity ? 10 : Infinity, km);
    const empty = new KDBush(0, 64, Float64Array).finish();
    expect(aroundInto(empty, 0, 0, Infinity, 100, undefined, out)).toBe(around(empty, 0, 0, Infinity, 100).length);
  });
});
