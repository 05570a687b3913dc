import { HospitalRanking } from '../answers/facilities.ts';
import { StateRanking } from '../answers/reference.ts';
import { arrayOf } from '../http/json-schema.ts';
import { type HandlerResult, NO_PARAMS, type NoParams, ok, ONCE, route, type Route } from '../http/route.ts';
import type { Context } from './context.ts';
import { state } from './params.ts';
import { API_BASE } from './paths.ts';

const hospitalRankingsQuery = { state };

/**
 * `rankings/hospitals/`: hospitals with a CMS star rating, best first: rating, then emergency services, then
 * staffed beds (unknown last), then name and id. Unrated hospitals and health centers are not ranked.
 */
function getHospitalRankings({ query, queries }: Context<NoParams, typeof hospitalRankingsQuery>): HandlerResult {
  return ok(queries.facilities.hospitalRankings(query.state));
}

/** `rankings/states/`: states by the mean overall score of their ZIPs, highest first (rank 1). */
function getStateRankings({ queries }: Context<NoParams, NoParams>): HandlerResult {
  return ok(queries.stateRankings);
}

const STATE_RANKINGS = arrayOf(StateRanking);

const HOSPITAL_RANKINGS = arrayOf(HospitalRanking);

export const routes: readonly Route[] = [
  route({
    path: `${API_BASE}rankings/states/`,
    exported: ONCE,
    kind: 'lookup',
    summary: 'States by average overall health score, highest first',
    pathParams: NO_PARAMS,
    query: NO_PARAMS,
    response: { description: 'Every state with scored ZIP codes, rank 1 first', schema: STATE_RANKINGS },
    handle: getStateRankings,
  }),
  route({
    path: `${API_BASE}rankings/hospitals/`,
    exported: ONCE,
    summary: 'Hospitals with a CMS star rating, best first, optionally in one state',
    pathParams: NO_PARAMS,
    query: hospitalRankingsQuery,
    response: { description: 'Rated hospitals, rank 1 first', schema: HOSPITAL_RANKINGS },
    handle: getHospitalRankings,
  }),
];
