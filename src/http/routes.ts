import { getGeojson, geojsonQuery } from '../api/geojson.ts';
import { getAllScores, getHealthScore, listHealthScores, listQuery, zipPath } from '../api/health-scores.ts';
import { getNearby, nearbyQuery } from '../api/nearby.ts';
import { getMeta, getScoreTypes, getStates } from '../api/reference.ts';
import { NO_PARAMS, route, type Route } from './route.ts';

/** Base path of every endpoint. */
export const API_BASE = '/api/v1/';

/**
 * The whole API, one row per endpoint: path, the parameters it accepts, its handler and a summary.
 * The server, `hcas get`, the docs test and the route-walking error test all read this table.
 */
export const ROUTES: readonly Route[] = [
  route({
    path: `${API_BASE}health-scores/`,
    summary: 'Health score records of one score type, filtered by state, city and score range, by ZIP code',
    pathParams: NO_PARAMS,
    query: listQuery,
    handle: listHealthScores,
  }),
  route({
    path: `${API_BASE}health-scores/geojson/`,
    summary: 'GeoJSON points of every matching ZIP with its overall score, label and colour',
    pathParams: NO_PARAMS,
    query: geojsonQuery,
    handle: getGeojson,
  }),
  route({
    path: `${API_BASE}health-scores/:zip/`,
    summary: 'The overall health score record of one ZIP code',
    pathParams: zipPath,
    query: NO_PARAMS,
    handle: getHealthScore,
  }),
  route({
    path: `${API_BASE}health-scores/:zip/all-scores/`,
    summary: 'The 11 score types of one ZIP code, in score type id order',
    pathParams: zipPath,
    query: NO_PARAMS,
    handle: getAllScores,
  }),
  route({
    path: `${API_BASE}health-scores/:zip/nearby/`,
    summary: 'Scored ZIP codes within a radius in miles, nearest first',
    pathParams: zipPath,
    query: nearbyQuery,
    handle: getNearby,
  }),
  route({
    path: `${API_BASE}score-types/`,
    summary: 'The 11 score types: id, name, description',
    pathParams: NO_PARAMS,
    query: NO_PARAMS,
    handle: getScoreTypes,
  }),
  route({
    path: `${API_BASE}states/`,
    summary: 'Every state with scored ZIP codes, its ZIP count and average overall score',
    pathParams: NO_PARAMS,
    query: NO_PARAMS,
    handle: getStates,
  }),
  route({
    path: `${API_BASE}meta/`,
    summary: 'The dataset build: id, time, sources with vintages and row counts, reconciliation',
    pathParams: NO_PARAMS,
    query: NO_PARAMS,
    handle: getMeta,
  }),
];
