/** Mean Earth radius in miles (IUGG), the same constant geokdbush and turf use for their great circles. */
export const EARTH_RADIUS_MILES = 3958.7613;
const RAD = Math.PI / 180;

/** Great-circle (haversine) distance in miles between two longitude/latitude points. */
export function haversineMiles(lon1: number, lat1: number, lon2: number, lat2: number): number {
  const dLat = (lat2 - lat1) * RAD;
  const dLon = (lon2 - lon1) * RAD;
  const a = Math.sin(dLat / 2) ** 2 + Math.cos(lat1 * RAD) * Math.cos(lat2 * RAD) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_MILES * Math.asin(Math.min(1, Math.sqrt(a)));
}

export const KM_PER_MILE = 1.609344;
