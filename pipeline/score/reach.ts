import type { ZipPlace } from '../geo/places.ts';
import { PointIndex } from '../geo/point-index.ts';
import { MINUTES_PER_STRAIGHT_MILE } from './config.ts';
import { internalMiles } from './network.ts';

/** A place where care is given: the scored ZIP it belongs to, and its point. */
export interface CarePoint {
  zipIndex: number;
  longitude: number;
  latitude: number;
}

/**
 * Drive minutes from each ZIP (by ZIP index) to the nearest facility of a kind, where the manifest supplies
 * a road-network table; NaN where it has no value for the ZIP.
 */
export interface DriveTimes {
  hospital: Float64Array | null;
  healthCenter: Float64Array | null;
}

/** Minutes to one kind of care per ZIP, and whether each came from a road-network table or straight-line miles. */
export interface Minutes {
  minutes: Float64Array;
  road: Uint8Array;
}

/**
 * Straight-line miles from each ZIP to the nearest care point. A point in the ZIP itself is reached by the
 * typical trip inside the ZIP, not from the ZIP's internal point: in a large rural ZCTA that point can lie
 * 40 miles from the town where the hospital and most residents are. Infinity where there is no point.
 */
export function nearestMiles(places: ZipPlace[], points: CarePoint[]): Float64Array {
  const index = new PointIndex(
    Float64Array.from(points, (p) => p.longitude),
    Float64Array.from(points, (p) => p.latitude),
  );
  const holdsPoint = new Uint8Array(places.length);
  for (const p of points) holdsPoint[p.zipIndex] = 1;
  return Float64Array.from(places, (place, i) => {
    const elsewhere = index.nearest(place.longitude, place.latitude, (id) => points[id].zipIndex !== i)?.miles ?? Infinity;
    return holdsPoint[i] ? Math.min(internalMiles(place), elsewhere) : elsewhere;
  });
}

/** Drive minutes where a road-network table gives them for the ZIP, else straight-line miles converted. */
export function toMinutes(miles: Float64Array, road: Float64Array | null): Minutes {
  const minutes = new Float64Array(miles.length);
  const fromRoad = new Uint8Array(miles.length);
  for (let i = 0; i < miles.length; i++) {
    const driven = road?.[i];
    if (driven !== undefined && Number.isFinite(driven)) {
      minutes[i] = driven;
      fromRoad[i] = 1;
    } else {
      minutes[i] = miles[i] * MINUTES_PER_STRAIGHT_MILE;
    }
  }
  return { minutes, road: fromRoad };
}

/** The nearer of two kinds of care per ZIP, keeping the basis of the nearer. */
export function nearer(a: Minutes, b: Minutes): Minutes {
  const minutes = new Float64Array(a.minutes.length);
  const road = new Uint8Array(a.minutes.length);
  for (let i = 0; i < minutes.length; i++) {
    const first = a.minutes[i] <= b.minutes[i];
    minutes[i] = first ? a.minutes[i] : b.minutes[i];
    road[i] = first ? a.road[i] : b.road[i];
  }
  return { minutes, road };
}
