import { invalidParameter, notFound } from '../http/errors.ts';
import { DataQuality } from '../answers/fields.ts';
import { GeoJsonCollection, HealthScoreRecord, NearbyEntry, ScoreSummary } from '../answers/health-scores.ts';
import { withZipLookup } from '../answers/zip-lookup.ts';
import { arrayOf, ref, type JsonSchema } from '../http/json-schema.ts';
import { envelope, envelopeOf, page, pageSize, pageWindow } from '../http/pagination.ts';
import { integer } from '../http/params.ts';
import { type HandlerResult, NO_PARAMS, type NoParams, ok, ONCE, route, type Route, type RouteTag } from '../http/route.ts';
import { yieldToEventLoop } from '../http/work.ts';
import type { Context } from './context.ts';
import { nearPlaces, nearQuery, sortOrNear } from './near.ts';
import { city, DEFAULT_RADIUS_MILES, radiusMiles, scoreType, sortParam, state, zip } from './params.ts';
import { SCORE_SORT_KEYS } from '../query/health-scores.ts';
import { DISTANCE_KEY } from '../query/zip-list.ts';
import { API_BASE } from './paths.ts';
import { answeringZipAliases, pointingAtZipAliases } from './zip-lookup.ts';

/** The health-scores group (census/ is a module of its own under the same path). */
export const HEALTH_SCORES_TAG: RouteTag = {
  name: 'Health scores',
  description: 'Healthcare access scores per ZIP code: records, all score types, nearby ZIPs, GeoJSON and census data.',
};
const tag = HEALTH_SCORES_TAG;

/** Path parameters of every `health-scores/{zip}/...` endpoint. */
export const zipPath = { zip };

/** A score 0-100, inclusive bound of a range filter. */
const scoreBound = integer(0, 100, undefined);

/** Fewest residents of a listed ZIP code. */
const minPopulation = integer(0, 10_000_000, undefined);

/** What health-scores/ sorts by: the record's fields (ties by ZIP code), and the distance from near=. */
export const SCORE_LIST_SORTS = [...SCORE_SORT_KEYS, DISTANCE_KEY];

const listQuery = {
  state,
  city,
  min_score: scoreBound,
  max_score: scoreBound,
  min_population: minPopulation,
  score_type: scoreType,
  ...nearQuery,
  sort: sortParam(SCORE_LIST_SORTS, 'zip_code, or distance_miles with near'),
  page,
  page_size: pageSize,
};

const geojsonQuery = { state, min_score: scoreBound };

const nearbyQuery = { radius: radiusMiles(DEFAULT_RADIUS_MILES), limit: integer(1, 50, 10) };

/**
 * `health-scores/`: a page of records of one score type, filtered, in the order of `sort` (default: ZIP code,
 * or nearest first with `near`), ties by ZIP code.
 */
function listHealthScores({ query, queries, url }: Context<NoParams, typeof listQuery>): HandlerResult {
  if (query.min_score !== undefined && query.max_score !== undefined && query.min_score > query.max_score) {
    throw invalidParameter(`min_score must be at most max_score, got min_score ${query.min_score} and max_score ${query.max_score}`);
  }
  const near = nearPlaces(queries, query);
  const filter = {
    scoreTypeId: query.score_type,
    state: query.state,
    city: query.city,
    minScore: query.min_score,
    maxScore: query.max_score,
    minPopulation: query.min_population,
    near,
  };
  const sort = sortOrNear(query.sort, near, { key: 'zip_code', descending: false });
  const offset = (query.page - 1) * query.page_size;
  // The count and the page come from one pass; a page past the last one is then a 404.
  const { count, results } = queries.healthScores.list(filter, sort, offset, query.page_size);
  return ok(envelope(url, pageWindow(count, query.page, query.page_size), count, results));
}

/** Points per slice of the GeoJSON answer: each slice is about 10 ms of work, then other requests run. */
export const GEOJSON_SLICE_ROWS = 1_000;

/**
 * `health-scores/geojson/`: a FeatureCollection of ZIP points ([longitude, latitude]) with overall scores,
 * by ZIP code. A heavy route: the national answer is 6 MB, so it is made in slices that give the event loop
 * back between them, and written as JSON text slice by slice (the same bytes as one JSON.stringify).
 */
async function getGeojson({ query, queries }: Context<NoParams, typeof geojsonQuery>): Promise<HandlerResult> {
  const filter = { scoreTypeId: queries.scoreTypes.overall.id, state: query.state, minScore: query.min_score };
  const parts = ['{"type":"FeatureCollection","features":['];
  let separator = '';
  for (const points of queries.healthScores.pointSlices(filter, GEOJSON_SLICE_ROWS)) {
    for (const point of points) {
      const feature = {
        type: 'Feature',
        geometry: { type: 'Point', coordinates: [point.longitude, point.latitude] },
        properties: { zip_code: point.zip_code, healthscore: point.healthscore, label: point.label, color: point.color },
      };
      parts.push(separator + JSON.stringify(feature));
      separator = ',';
    }
    await yieldToEventLoop();
  }
  parts.push(']}\n');
  return ok(Buffer.from(parts.join('')));
}

/** `health-scores/{zip}/`: the overall record of one ZIP. */
function getHealthScore({ params, queries }: Context<typeof zipPath, NoParams>): HandlerResult {
  const found = queries.healthScores.byZip(params.zip, queries.scoreTypes.overall.id);
  if (!found) throw noScore(params.zip);
  return ok(found);
}

/** `health-scores/{zip}/all-scores/`: one summary per score type, in score type id order. */
function getAllScores({ params, queries }: Context<typeof zipPath, NoParams>): HandlerResult {
  const summaries = queries.healthScores.allScores(params.zip);
  if (summaries.length === 0) throw noScore(params.zip);
  return ok(summaries);
}

/**
 * `health-scores/{zip}/nearby/`: scored ZIPs within `radius` miles (great-circle), nearest first, ties by
 * ZIP code, the target excluded; `distance_miles` rounded to 2 decimals.
 */
function getNearby({ params, query, queries }: Context<typeof zipPath, typeof nearbyQuery>): HandlerResult {
  const entries = queries.nearby.nearby(params.zip, query.radius, query.limit);
  if (!entries) throw noScore(params.zip);
  return ok(entries);
}

/** The 404 of a ZIP without a score; the wording is part of the interface specification (section 7). */
export function noScore(zipCode: string): Error {
  return notFound(`No health score for ZIP code ${zipCode}`);
}

/** The answers' shared schemas (openapi.json `components/schemas`). */
export const schemas: Record<string, JsonSchema> = {
  HealthScoreRecord: withZipLookup(HealthScoreRecord),
  DataQuality,
  ScoreSummary,
  NearbyEntry,
  GeoJsonCollection,
};

const noScoreFor = 'no health score for the ZIP code';

export const routes: readonly Route[] = [
  route({
    path: `${API_BASE}health-scores/`,
    exported: ONCE,
    summary: 'Health score records of one score type, filtered by state, city, score range, residents and distance, sorted',
    tag,
    pathParams: NO_PARAMS,
    query: listQuery,
    response: { description: 'A page of health score records', schema: envelopeOf(ref('HealthScoreRecord')) },
    handle: listHealthScores,
  }),
  route({
    path: `${API_BASE}health-scores/geojson/`,
    exported: ONCE,
    summary: 'GeoJSON points of every matching ZIP with its overall score, label and colour',
    tag,
    pathParams: NO_PARAMS,
    query: geojsonQuery,
    response: { description: 'A GeoJSON FeatureCollection of Point features', schema: ref('GeoJsonCollection') },
    heavy: true,
    handle: getGeojson,
  }),
  route({
    path: `${API_BASE}health-scores/:zip/`,
    exported: { write: 'per-key', keys: 'zips' },
    kind: 'lookup',
    summary: 'The overall health score record of one ZIP code',
    tag,
    pathParams: zipPath,
    query: NO_PARAMS,
    response: { description: 'The overall health score record', schema: ref('HealthScoreRecord'), notFound: noScoreFor },
    handle: answeringZipAliases(getHealthScore),
  }),
  route({
    path: `${API_BASE}health-scores/:zip/all-scores/`,
    exported: { write: 'per-key', keys: 'zips' },
    kind: 'lookup',
    summary: 'The 11 score types of one ZIP code, in score type id order',
    tag,
    pathParams: zipPath,
    query: NO_PARAMS,
    response: {
      description: 'One summary per score type, in id order',
      schema: arrayOf(ref('ScoreSummary'), { minItems: 1 }),
      notFound: noScoreFor,
    },
    handle: pointingAtZipAliases(getAllScores, 'all-scores/'),
  }),
  route({
    path: `${API_BASE}health-scores/:zip/nearby/`,
    exported: { write: 'server', why: 'answers depend on radius and limit' },
    summary: 'Scored ZIP codes within a radius in miles, nearest first',
    tag,
    pathParams: zipPath,
    query: nearbyQuery,
    response: { description: 'Nearby ZIP codes, nearest first', schema: arrayOf(ref('NearbyEntry')), notFound: noScoreFor },
    handle: pointingAtZipAliases(getNearby, 'nearby/'),
  }),
];
