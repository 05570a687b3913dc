import { haversineMiles } from '../../core/distance.ts';
import type { ZipPlace } from '../geo/places.ts';
import { PointIndex } from '../geo/point-index.ts';
import { MIN_TRIP_MILES } from '../config/scoring.ts';
import { internalMiles } from './network.ts';
import { minutesPerStraightMile, type RoadTable } from './road-times.ts';

/** A place where care is given: the scored ZIP it belongs to, and its point. */
export interface CarePoint {
  zipIndex: number;
  longitude: number;
  latitude: number;
}

/** The road-network tables the manifest supplies, by ZIP code: drive minutes to the nearest hospital / health centre. */
export interface DriveTimes {
  hospital: RoadTable | null;
  healthCenter: RoadTable | null;
}

/** Minutes to one kind of care per ZIP, and whether each came from a road-network table or straight-line miles. */
export interface Minutes {
  minutes: Float64Array;
  road: Uint8Array;
}

/** The nearest care point of each ZIP: its miles (Infinity where there is none) and its index in the points (-1). */
export interface NearestCare {
  miles: Float64Array;
  point: Int32Array;
}

/**
 * Straight-line miles from each ZIP's residents' point to the nearest care point, never less than
 * MIN_TRIP_MILES. Care inside the ZIP is never farther than the typical trip inside it (`internalMiles`): a
 * ZIP's residents live around the mean of their addresses, and a hospital in the ZIP serves them wherever
 * that mean falls (HUD's point for Shiprock NM lies 20 miles from the town that holds most of its residents
 * and its hospital, in tribal land whose addresses USPS places poorly). A ZIP placed only at the middle of
 * its area (no residents' point) reaches care inside it by that typical trip alone, not from a point that
 * can lie 40 miles from the town.
 */
export function nearestCare(places: ZipPlace[], points: CarePoint[]): NearestCare {
  const index = new PointIndex(
    Float64Array.from(points, (p) => p.longitude),
    Float64Array.from(points, (p) => p.latitude),
  );
  const own = new Map<number, number[]>();
  points.forEach((p, id) => {
    const list = own.get(p.zipIndex);
    if (list) list.push(id);
    else own.set(p.zipIndex, [id]);
  });
  const miles = new Float64Array(places.length).fill(Infinity);
  const point = new Int32Array(places.length).fill(-1);
  places.forEach((place, i) => {
    const elsewhere = index.nearest(place.longitude, place.latitude, (id) => points[id].zipIndex !== i);
    if (elsewhere) [miles[i], point[i]] = [Math.max(MIN_TRIP_MILES, elsewhere.miles), elsewhere.id];
    const inside = own.get(i);
    if (!inside) return;
    let nearestInside = inside[0];
    let insideMiles = internalMiles(place);
    if (place.pointSource === 'hud_residential') {
      for (const id of inside) {
        const direct = haversineMiles(place.longitude, place.latitude, points[id].longitude, points[id].latitude);
        if (direct < insideMiles) [insideMiles, nearestInside] = [direct, id];
      }
    }
    insideMiles = Math.max(MIN_TRIP_MILES, insideMiles);
    if (insideMiles <= miles[i]) [miles[i], point[i]] = [insideMiles, nearestInside];
  });
  return { miles, point };
}

/** Straight-line miles from each ZIP to the nearest care point, as `nearestCare` measures them. */
export function nearestMiles(places: ZipPlace[], points: CarePoint[]): Float64Array {
  return nearestCare(places, points).miles;
}

/**
 * Drive minutes where a road-network table describes the ZIP's residents (see road-times.ts), else
 * straight-line miles times the minutes per mile of the ZIP's urban-rural class.
 */
export function toMinutes(places: ZipPlace[], miles: Float64Array, road: Float64Array | null): Minutes {
  const minutes = new Float64Array(miles.length);
  const fromRoad = new Uint8Array(miles.length);
  for (let i = 0; i < miles.length; i++) {
    const driven = road?.[i];
    if (driven !== undefined && Number.isFinite(driven)) {
      minutes[i] = driven;
      fromRoad[i] = 1;
    } else {
      minutes[i] = miles[i] * minutesPerStraightMile(places[i]);
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
