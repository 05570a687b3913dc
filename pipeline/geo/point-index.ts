import KDBush from 'kdbush';
import { haversineMiles, KM_PER_MILE } from '../../core/distance.ts';
import { aroundInto } from './around.ts';

/** The ids a search found, reused by every search (one runs at a time). */
const IDS: number[] = [];

/** A KD-tree over longitude/latitude points that answers radius and nearest queries in miles. */
export class PointIndex {
  readonly index: KDBush;

  readonly longitudes: Float64Array;
  readonly latitudes: Float64Array;

  constructor(longitudes: Float64Array, latitudes: Float64Array) {
    this.longitudes = longitudes;
    this.latitudes = latitudes;
    this.index = new KDBush(longitudes.length, 64, Float64Array);
    for (let i = 0; i < longitudes.length; i++) this.index.add(longitudes[i], latitudes[i]);
    this.index.finish();
  }

  /** Points within `radiusMiles` of (lon, lat), nearest first, with their distances; `accept` filters by id. */
  within(
    lon: number,
    lat: number,
    radiusMiles: number,
    maxResults = Infinity,
    accept?: (id: number) => boolean,
  ): Array<{ id: number; miles: number }> {
    if (this.longitudes.length === 0) return [];
    // geokdbush searches in kilometres on the same sphere (core/distance.ts): search a hair wider so float
    // differences never drop a point, then filter with our haversine so the boundary is exactly `miles <= radiusMiles`.
    const found = aroundInto(this.index, lon, lat, maxResults, radiusMiles * KM_PER_MILE * 1.0001, accept, IDS);
    const hits: Array<{ id: number; miles: number }> = [];
    for (let k = 0; k < found; k++) {
      const id = IDS[k];
      const miles = haversineMiles(lon, lat, this.longitudes[id], this.latitudes[id]);
      if (miles <= radiusMiles) hits.push({ id, miles });
    }
    return hits;
  }

  /** The nearest (accepted) point and its distance in miles, or null when there is none. */
  nearest(lon: number, lat: number, accept?: (id: number) => boolean): { id: number; miles: number } | null {
    return this.within(lon, lat, Infinity, 1, accept)[0] ?? null;
  }
}
