import { haversineMiles } from '../../core/distance.ts';
import type { ZipPlace } from '../geo/places.ts';
import { discRadiusMiles } from '../geo/residents.ts';
import type { DriveTimeRow } from '../layouts/access.ts';
import {
  MINUTES_PER_STRAIGHT_MILE,
  MINUTES_PER_STRAIGHT_MILE_BY_DENSITY,
  ROAD_TABLE_DESCRIBES_RESIDENTS as RULE,
} from '../config/scoring.ts';

/** A road-network table: drive minutes (and straight-line miles) from each ZIP to the nearest facility of a kind. */
export type RoadTable = ReadonlyMap<string, DriveTimeRow>;

/** The density class of a ZIP (an entry of MINUTES_PER_STRAIGHT_MILE_BY_DENSITY), null without a population. */
export function densityClass(place: Pick<ZipPlace, 'population' | 'landSqMi'>): { minDensity: number; minutesPerMile: number } | null {
  if (place.population === null) return null;
  const density = place.landSqMi > 0 ? place.population / place.landSqMi : Infinity;
  return MINUTES_PER_STRAIGHT_MILE_BY_DENSITY.find((c) => density >= c.minDensity) ?? null;
}

/** Drive minutes per straight-line mile for trips from this ZIP: by its population density. */
export function minutesPerStraightMile(place: Pick<ZipPlace, 'population' | 'landSqMi'>): number {
  return densityClass(place)?.minutesPerMile ?? MINUTES_PER_STRAIGHT_MILE;
}

/** Miles from the middle of a ZIP's area (the Gazetteer's internal point) to where its residents are placed. */
export function residentsOffsetMiles(place: ZipPlace): number {
  return haversineMiles(place.gazetteerLongitude, place.gazetteerLatitude, place.longitude, place.latitude);
}

/**
 * Whether a road table's row for a ZIP times the trip its residents make, given the straight-line miles from
 * the residents' point to the nearest facility of the table's kind. The tables average over the ZIP's area,
 * so a row describes the residents only where its own straight-line miles agree with theirs
 * (ROAD_TABLE_DESCRIBES_RESIDENTS): Hosp-ZIP25 gives Jackson WY (83001) 24.5 miles and 43 minutes to a
 * hospital, averaged over 481 square miles of mountains, for a town 1 mile from its own. A table without
 * miles is trusted only for a ZIP small beside the trip, with its residents near the middle of its area.
 */
export function describesResidents(place: ZipPlace, row: DriveTimeRow, residentsMiles: number): boolean {
  if (row.minutes === null || !Number.isFinite(row.minutes) || !Number.isFinite(residentsMiles)) return false;
  if (row.miles !== null) return Math.abs(row.miles - residentsMiles) <= Math.max(RULE.agreeMiles, RULE.agreeShare * residentsMiles);
  return (
    discRadiusMiles(place.landSqMi) <= Math.max(RULE.radiusMiles, RULE.radiusShare * residentsMiles) &&
    residentsOffsetMiles(place) <= Math.max(RULE.offsetMiles, RULE.offsetShare * residentsMiles)
  );
}

/**
 * A road table's minutes by ZIP index where they describe the residents' trip (NaN elsewhere, and where the
 * table has no row); null when the manifest supplies no such table.
 */
export function residentsRoadMinutes(places: ZipPlace[], table: RoadTable | null, residentsMiles: Float64Array): Float64Array | null {
  if (!table) return null;
  return Float64Array.from(places, (place, i) => {
    const row = table.get(place.zip);
    return row && describesResidents(place, row, residentsMiles[i]) ? row.minutes! : NaN;
  });
}
