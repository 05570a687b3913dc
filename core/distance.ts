/**
 * The one great-circle distance of the product: the build's catchments and travel costs, and the API's
 * nearby search and `distance_miles`, all measure on the same sphere.
 *
 * The radius is geokdbush's (6,371 km, the mean Earth radius it uses for its kilometre searches), so a
 * KD-tree search of `miles * KM_PER_MILE` kilometres and this function agree on who is inside the radius.
 * docs/api.md and docs/METHODOLOGY.md state it (6,371 km = 3,958.76 miles).
 */
export const EARTH_RADIUS_KM = 6371;
export const KM_PER_MILE = 1.609344;
export const EARTH_RADIUS_MILES = EARTH_RADIUS_KM / KM_PER_MILE;
const RADIANS_PER_DEGREE = Math.PI / 180;

/** Great-circle (haversine) distance in miles between two longitude/latitude points given in degrees. */
export function haversineMiles(lon1: number, lat1: number, lon2: number, lat2: number): number {
  const dLat = (lat2 - lat1) * RADIANS_PER_DEGREE;
  const dLon = (lon2 - lon1) * RADIANS_PER_DEGREE;
  const a = Math.sin(dLat / 2) ** 2 + Math.cos(lat1 * RADIANS_PER_DEGREE) * Math.cos(lat2 * RADIANS_PER_DEGREE) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_MILES * Math.asin(Math.min(1, Math.sqrt(a)));
}
