import KDBush from 'kdbush';
import { around } from 'geokdbush';
import type Database from 'better-sqlite3';
import { haversineMiles, KM_PER_MILE } from '../../core/distance.ts';
import type { NearbyEntry } from '../answers/health-scores.ts';

/** Widens the kd-tree search a hair so float differences between its formula and ours never drop a point. */
const SEARCH_SLACK = 1 + 1e-9;

interface ZipPoint {
  zip_code: string;
  city: string;
  state: string;
  latitude: number;
  longitude: number;
  /** Overall score; null for a ZIP without one, which is never listed. */
  healthscore: number | null;
  label: string | null;
}

/** The ZIP codes within a distance of a place, nearest first, ties by ZIP code, with their distances in miles. */
export interface NearPlaces {
  zipNumbers: Int32Array;
  miles: Float64Array;
}

/**
 * Nearest-ZIP search over the build's KD-tree (`kdtree` row 'zips', points in `zips.kd_index` order) with the
 * overall score of every ZIP held in memory. Loaded once per build, on the first nearby request.
 */
export class NearbyIndex {
  private readonly byZip = new Map<string, number>();

  private readonly index: KDBush;
  private readonly points: ZipPoint[];

  private constructor(index: KDBush, points: ZipPoint[]) {
    this.index = index;
    this.points = points;
    points.forEach((point, i) => this.byZip.set(point.zip_code, i));
  }

  /** Reads the index and the ZIP points; throws when they disagree, which means a broken build. */
  static load(db: Database.Database): NearbyIndex {
    const row = db.prepare("SELECT data FROM kdtree WHERE name = 'zips'").get() as { data: Buffer } | undefined;
    if (!row) throw new Error(`${db.name} has no 'zips' KD-tree; rebuild it with \`hcas build\``);
    // KDBush.from needs an ArrayBuffer of its own; a Buffer may be a view into a larger pool.
    const bytes = new Uint8Array(row.data.byteLength);
    bytes.set(row.data);
    const index = KDBush.from(bytes.buffer);
    const points = db
      .prepare(`SELECT z.zip_code, z.city, z.state, z.latitude, z.longitude, h.healthscore, h.label
      FROM zips z LEFT JOIN health_scores h ON h.zip_code = z.zip_code AND h.score_type_id = 1
      ORDER BY z.kd_index`)
      .all() as ZipPoint[];
    if (index.numItems !== points.length) {
      throw new Error(`the KD-tree of ${db.name} has ${index.numItems} points but zips has ${points.length} rows; rebuild it`);
    }
    return new NearbyIndex(index, points);
  }

  /** True when the build has a point for the ZIP code (a ZCTA, scored or not). */
  has(zipCode: string): boolean {
    return this.byZip.has(zipCode);
  }

  /**
   * Every ZIP (scored or not) whose point is within `radiusMiles` of a ZIP's, the ZIP itself first (0 miles),
   * nearest first, ties by ZIP code: what `near=` filters and orders lists by. Undefined when the build has no
   * point for the ZIP.
   */
  within(zipCode: string, radiusMiles: number): NearPlaces | undefined {
    const targetId = this.byZip.get(zipCode);
    if (targetId === undefined) return undefined;
    const target = this.points[targetId];
    const found = around(this.index, target.longitude, target.latitude, Infinity, radiusMiles * KM_PER_MILE * SEARCH_SLACK)
      .map((id) => ({ point: this.points[id], miles: this.milesBetween(target, this.points[id]) }))
      .filter(({ miles }) => miles <= radiusMiles)
      .sort((a, b) => a.miles - b.miles || (a.point.zip_code < b.point.zip_code ? -1 : 1));
    return {
      zipNumbers: Int32Array.from(found, ({ point }) => Number(point.zip_code)),
      miles: Float64Array.from(found, ({ miles }) => miles),
    };
  }

  private milesBetween(from: ZipPoint, to: ZipPoint): number {
    return haversineMiles(from.longitude, from.latitude, to.longitude, to.latitude);
  }

  /**
   * Scored ZIPs within `radiusMiles` of a ZIP, nearest first, ties by ZIP code, at most `limit`, the ZIP itself
   * excluded. Undefined when the ZIP has no score.
   */
  nearby(zipCode: string, radiusMiles: number, limit: number): NearbyEntry[] | undefined {
    const targetId = this.byZip.get(zipCode);
    if (targetId === undefined || this.points[targetId].healthscore === null) return undefined;
    const target = this.points[targetId];
    const listed = (id: number) => id !== targetId && this.points[id].healthscore !== null;
    const search = (maxResults: number, miles: number) =>
      around(this.index, target.longitude, target.latitude, maxResults, miles * KM_PER_MILE * SEARCH_SLACK, listed);

    let ids = search(limit, radiusMiles);
    if (ids.length === limit && limit > 0) {
      // Points tied with the last one may have been cut arbitrarily: fetch everything out to its distance.
      const last = this.points[ids[ids.length - 1]];
      ids = search(Infinity, haversineMiles(target.longitude, target.latitude, last.longitude, last.latitude));
    }
    return ids
      .map((id) => ({
        point: this.points[id],
        miles: haversineMiles(target.longitude, target.latitude, this.points[id].longitude, this.points[id].latitude),
      }))
      .filter(({ miles }) => miles <= radiusMiles)
      .sort((a, b) => a.miles - b.miles || (a.point.zip_code < b.point.zip_code ? -1 : 1))
      .slice(0, limit)
      .map(({ point, miles }) => ({
        zip_code: point.zip_code,
        city: point.city,
        state: point.state,
        healthscore: point.healthscore as number,
        label: point.label as string,
        distance_miles: roundMiles(miles),
      }));
  }
}

/** Miles as the API writes them: 2 decimals. */
export function roundMiles(miles: number): number {
  return Math.round(miles * 100) / 100;
}
