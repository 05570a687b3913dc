/**
 * Synthetic counties built on the real ZCTAs: each state's ZCTAs are grouped by 3-digit ZIP prefix and
 * split spatially until a group is county-sized. Real state FIPS codes, invented county codes and names.
 * About 5% of ZCTAs also get a second county, as ZCTAs straddling county lines do in the real file.
 */
import type { Geography } from './geography.ts';
import type { Demographics } from './census-model.ts';
import { stateInfo } from './states.ts';
import { Rng } from './prng.ts';

/** One synthetic county (or county-equivalent). */
export interface County {
  /** Five-digit FIPS: the real state FIPS followed by three synthetic digits. */
  fips: string;
  state: string;
  name: string;
  /** Indices (into geography.zctas) of the ZCTAs whose primary county this is. */
  zctas: number[];
  population: number;
  landSqMi: number;
  /** Population-weighted centroid. */
  lon: number;
  lat: number;
  /** Population of each postal city within the county, largest first. */
  cities: [string, number][];
}

// Real names of county-equivalents where "County" would be wrong.
const EQUIVALENT: Record<string, string> = {
  LA: 'Parish',
  AK: 'Borough',
  PR: 'Municipio',
  VI: 'District',
  AS: 'District',
  MP: 'Municipality',
};
const MILES_PER_DEGREE = 69.1;

/** Splits a group of ZCTA indices along its longer axis until groups are about county-sized. */
function splitGroup(indices: number[], geo: Geography, out: number[][]): void {
  let minLon = Infinity,
    maxLon = -Infinity,
    minLat = Infinity,
    maxLat = -Infinity;
  for (const i of indices) {
    const z = geo.zctas[i]!;
    minLon = Math.min(minLon, z.lon);
    maxLon = Math.max(maxLon, z.lon);
    minLat = Math.min(minLat, z.lat);
    maxLat = Math.max(maxLat, z.lat);
  }
  const width = (maxLon - minLon) * MILES_PER_DEGREE * Math.cos((((minLat + maxLat) / 2) * Math.PI) / 180);
  const height = (maxLat - minLat) * MILES_PER_DEGREE;
  // Real counties are roughly 25-40 miles across; dense metro counties hold dozens of ZCTAs.
  const tooBig = (indices.length >= 4 && Math.hypot(width, height) > 56) || indices.length > 70;
  if (!tooBig) {
    out.push(indices);
    return;
  }
  const byLon = width >= height;
  const sorted = [...indices].sort((a, b) => (byLon ? geo.zctas[a]!.lon - geo.zctas[b]!.lon : geo.zctas[a]!.lat - geo.zctas[b]!.lat));
  const half = sorted.length >> 1;
  splitGroup(sorted.slice(0, half), geo, out);
  splitGroup(sorted.slice(half), geo, out);
}

/** Builds the counties and each ZCTA's county list (primary first, sometimes a second one). */
export function buildCounties(
  geo: Geography,
  demo: readonly Demographics[],
  seed: number,
): { counties: County[]; zctaCounties: County[][] } {
  const groups = new Map<string, number[]>();
  for (const z of geo.zctas) {
    const key = `${z.state}|${z.code.slice(0, 3)}`;
    const list = groups.get(key);
    if (list) list.push(z.index);
    else groups.set(key, [z.index]);
  }
  const byState = new Map<string, number[][]>();
  for (const [key, indices] of [...groups].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    const state = key.split('|')[0]!;
    const clusters: number[][] = [];
    splitGroup(indices, geo, clusters);
    const list = byState.get(state) ?? [];
    list.push(...clusters);
    byState.set(state, list);
  }

  const counties: County[] = [];
  const primary: County[] = new Array(geo.zctas.length);
  for (const [state, clusters] of byState) {
    const info = stateInfo(state);
    // Real county codes are odd numbers in alphabetical order (001, 003, ...); fall back to consecutive
    // numbers only if a state had more than 499 clusters.
    const step = clusters.length <= 499 ? 2 : 1;
    clusters.forEach((zctas, k) => {
      const three = String(1 + k * step).padStart(3, '0');
      const county = summarize(`${info.fips}${three}`, state, `Synthetic ${EQUIVALENT[state] ?? 'County'} ${three}`, zctas, geo, demo);
      counties.push(county);
      for (const i of zctas) primary[i] = county;
    });
  }
  counties.sort((a, b) => (a.fips < b.fips ? -1 : 1));

  const zctaCounties = primary.map((c) => [c]);
  addSecondCounties(geo, primary, zctaCounties, new Rng(seed, 'counties'));
  return { counties, zctaCounties };
}

function summarize(fips: string, state: string, name: string, zctas: number[], geo: Geography, demo: readonly Demographics[]): County {
  let population = 0,
    landSqMi = 0,
    lon = 0,
    lat = 0,
    weight = 0;
  const cities = new Map<string, number>();
  for (const i of zctas) {
    const z = geo.zctas[i]!;
    const d = demo[i]!;
    population += d.population;
    landSqMi += d.landSqMi;
    const w = d.population + 1;
    lon += z.lon * w;
    lat += z.lat * w;
    weight += w;
    cities.set(z.city, (cities.get(z.city) ?? 0) + d.population);
  }
  const ranked = [...cities].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  return { fips, state, name, zctas, population, landSqMi, lon: lon / weight, lat: lat / weight, cities: ranked };
}

/** Gives about 5% of ZCTAs a second county: the county of a close neighbour across the line. */
function addSecondCounties(geo: Geography, primary: County[], zctaCounties: County[][], rng: Rng): void {
  const candidates: [number, County][] = [];
  for (const z of geo.zctas) {
    const own = primary[z.index]!;
    const other = geo
      .nearest(z.lon, z.lat, 6, 12, (n) => n.state === z.state)
      .map((n) => primary[n.index]!)
      .find((c) => c !== own);
    if (other) candidates.push([z.index, other]);
  }
  const p = Math.min(1, (0.05 * geo.zctas.length) / Math.max(1, candidates.length));
  for (const [index, other] of candidates) {
    if (!rng.chance(p)) continue;
    zctaCounties[index]!.push(other);
  }
}
