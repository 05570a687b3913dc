import type { ZipPlace } from '../geo/places.ts';
import type { PointIndex } from '../geo/point-index.ts';
import type { Facility } from './roster.ts';

/** Where each facility lies: the scored ZIP (index into places) it belongs to, and how its point was found. */
export interface FacilityPlacement {
  zipIndexOf: Map<number, number>;
  precision: Map<number, 'coordinates' | 'zip'>;
  stats: { zcta_from_zip: number; zcta_from_point: number; placed_at_zip_point: number; unlocated: number };
}

/**
 * A facility belongs to the ZCTA its ZIP code maps to (the ZIP-ZCTA crosswalk, or the same-numbered ZCTA),
 * so a hospital in town counts for the town's ZIP even where the ZCTA's internal point lies miles away;
 * a facility whose ZIP maps to no scored ZCTA belongs to the ZCTA whose point is nearest its coordinates.
 * A facility without coordinates is placed at its ZCTA's point (`location_precision = 'zip'`).
 */
export function placeFacilities(
  facilities: Facility[],
  zctaOfZip: (zip: string) => string | null,
  zipIndex: Map<string, number>,
  places: ZipPlace[],
  index: PointIndex,
): FacilityPlacement {
  const zipIndexOf = new Map<number, number>();
  const precision = new Map<number, 'coordinates' | 'zip'>();
  const stats = { zcta_from_zip: 0, zcta_from_point: 0, placed_at_zip_point: 0, unlocated: 0 };
  for (const f of facilities) {
    const own = f.zip ? zipIndex.get(zctaOfZip(f.zip) ?? '') : undefined;
    if (f.latitude === null && own !== undefined) {
      [f.latitude, f.longitude] = [places[own].latitude, places[own].longitude];
      precision.set(f.id, 'zip');
      stats.placed_at_zip_point++;
    } else if (f.latitude !== null) {
      precision.set(f.id, 'coordinates');
    }
    if (f.latitude === null || f.longitude === null) {
      stats.unlocated++;
      continue;
    }
    const zip = own ?? index.nearest(f.longitude, f.latitude)?.id;
    if (zip === undefined) continue;
    zipIndexOf.set(f.id, zip);
    if (own !== undefined) stats.zcta_from_zip++;
    else stats.zcta_from_point++;
  }
  return { zipIndexOf, precision, stats };
}
