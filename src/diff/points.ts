import { around } from 'geokdbush';
import KDBush from 'kdbush';
import { haversineMiles, KM_PER_MILE } from '../../core/distance.ts';

/** Items at points, searched nearest first within a radius (a KD-tree over the points, geokdbush's sphere). */
export class PointSet<T> {
  private readonly index: KDBush | null;
  private readonly items: T[];
  private readonly longitudes: number[];
  private readonly latitudes: number[];

  constructor(entries: Iterable<{ item: T; longitude: number; latitude: number }>) {
    this.items = [];
    this.longitudes = [];
    this.latitudes = [];
    for (const { item, longitude, latitude } of entries) {
      if (!Number.isFinite(longitude) || !Number.isFinite(latitude)) continue;
      this.items.push(item);
      this.longitudes.push(longitude);
      this.latitudes.push(latitude);
    }
    if (!this.items.length) {
      this.index = null;
      return;
    }
    this.index = new KDBush(this.items.length);
    for (let i = 0; i < this.items.length; i++) this.index.add(this.longitudes[i], this.latitudes[i]);
    this.index.finish();
  }

  get size(): number {
    return this.items.length;
  }

  /** Up to `max` items within `miles` of the point, nearest first, with their distance in miles. */
  near(longitude: number, latitude: number, miles: number, max: number, keep?: (item: T) => boolean): Array<{ item: T; miles: number }> {
    if (!this.index || !Number.isFinite(longitude) || !Number.isFinite(latitude)) return [];
    const ids = around(this.index, longitude, latitude, max, miles * KM_PER_MILE, keep ? (id) => keep(this.items[id]) : undefined);
    return ids.map((id) => ({
      item: this.items[id],
      miles: haversineMiles(longitude, latitude, this.longitudes[id], this.latitudes[id]),
    }));
  }
}
