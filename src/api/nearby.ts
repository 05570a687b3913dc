import * as param from '../http/params.ts';
import { ok, type Context, type HandlerResult } from '../http/route.ts';
import { noScore, zipPath } from './health-scores.ts';

export const nearbyQuery = { radius: param.radiusMiles, limit: param.nearbyLimit };

/**
 * `health-scores/{zip}/nearby/`: scored ZIPs within `radius` miles (great-circle), nearest first, ties by
 * ZIP code, the target excluded; `distance_miles` rounded to 2 decimals.
 */
export function getNearby({ params, query, queries }: Context<typeof zipPath, typeof nearbyQuery>): HandlerResult {
  const entries = queries.nearby.nearby(params.zip, query.radius, query.limit);
  if (!entries) throw noScore(params.zip);
  return ok(entries);
}
