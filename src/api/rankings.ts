import * as param from '../http/params.ts';
import { ok, type Context, type HandlerResult, type NoParams } from '../http/route.ts';

export const hospitalRankingsQuery = { state: param.state };

/**
 * `rankings/hospitals/`: hospitals with a CMS star rating, best first: rating, then emergency services, then
 * staffed beds (unknown last), then name and id. Unrated hospitals and health centers are not ranked.
 */
export function getHospitalRankings({ query, queries }: Context<NoParams, typeof hospitalRankingsQuery>): HandlerResult {
  return ok(queries.facilities.hospitalRankings(query.state));
}

/** `rankings/states/`: states by the mean overall score of their ZIPs, highest first (rank 1). */
export function getStateRankings({ queries }: Context<NoParams, NoParams>): HandlerResult {
  return ok(queries.stateRankings);
}
