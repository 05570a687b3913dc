import { getGeojson, geojsonQuery } from '../api/geojson.ts';
import { getAllScores, getHealthScore, listHealthScores, listQuery, zipPath } from '../api/health-scores.ts';
import { getNearby, nearbyQuery } from '../api/nearby.ts';
import { getMeta, getScoreTypes, getStates } from '../api/reference.ts';
import { getBlogPost, blogPath, blogQuery, listBlogPosts } from '../api/blog.ts';
import { getCensus } from '../api/census.ts';
import { compareQuery, compareScores } from '../api/compare.ts';
import { exportHandler, facilitiesExportQuery, healthScoresExportQuery, providersExportQuery } from '../api/exports.ts';
import { getOpenApi } from '../api/openapi.ts';
import { API_BASE_PATH } from '../api/paths.ts';
import { arrayOf, envelopeOf, ref } from '../api/schemas.ts';
import { getTvi, getTviRankings, listTopVulnerable, rankingsQuery, topVulnerableQuery, tviPath } from '../api/tvi.ts';
import { getWidgetScore, widgetPath } from '../api/widget.ts';
import { autocompleteQuery, getAutocomplete } from '../api/autocomplete.ts';
import * as schema from '../api/directory-schemas.ts';
import { facilitiesQuery, facilityPath, getFacility, listFacilities } from '../api/facilities.ts';
import { getProvider, listProviders, npiPath, providersQuery } from '../api/providers.ts';
import { getHospitalRankings, getStateRankings, hospitalRankingsQuery } from '../api/rankings.ts';
import { NO_PARAMS, route, type Route } from './route.ts';
import { exportDoc, json, WIDGET_RESPONSE_HEADERS } from './route-docs.ts';

/** Base path of every endpoint. */
export const API_BASE = API_BASE_PATH;

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
    response: json('A page of health score records', envelopeOf(ref('HealthScoreRecord'))),
    handle: listHealthScores,
  }),
  route({
    path: `${API_BASE}health-scores/geojson/`,
    summary: 'GeoJSON points of every matching ZIP with its overall score, label and colour',
    pathParams: NO_PARAMS,
    query: geojsonQuery,
    response: json('A GeoJSON FeatureCollection of Point features', ref('GeoJsonCollection')),
    handle: getGeojson,
  }),
  route({
    path: `${API_BASE}health-scores/:zip/`,
    summary: 'The overall health score record of one ZIP code',
    pathParams: zipPath,
    query: NO_PARAMS,
    response: json('The overall health score record', ref('HealthScoreRecord'), 'no health score for the ZIP code'),
    handle: getHealthScore,
  }),
  route({
    path: `${API_BASE}health-scores/:zip/all-scores/`,
    summary: 'The 11 score types of one ZIP code, in score type id order',
    pathParams: zipPath,
    query: NO_PARAMS,
    response: json('One summary per score type, in id order', arrayOf(ref('ScoreSummary'), { minItems: 1 }), 'no health score for the ZIP code'),
    handle: getAllScores,
  }),
  route({
    path: `${API_BASE}health-scores/:zip/nearby/`,
    summary: 'Scored ZIP codes within a radius in miles, nearest first',
    pathParams: zipPath,
    query: nearbyQuery,
    response: json('Nearby ZIP codes, nearest first', arrayOf(ref('NearbyEntry')), 'no health score for the ZIP code'),
    handle: getNearby,
  }),
  route({
    path: `${API_BASE}score-types/`,
    summary: 'The 11 score types: id, name, description',
    pathParams: NO_PARAMS,
    query: NO_PARAMS,
    response: json('Every score type', arrayOf(ref('ScoreType'))),
    handle: getScoreTypes,
  }),
  route({
    path: `${API_BASE}states/`,
    summary: 'Every state with scored ZIP codes, its ZIP count and average overall score',
    pathParams: NO_PARAMS,
    query: NO_PARAMS,
    response: json('Every state with scored ZIP codes', arrayOf(ref('StateRecord'))),
    handle: getStates,
  }),
  route({
    path: `${API_BASE}meta/`,
    summary: 'The dataset build: id, time, sources with vintages and row counts, reconciliation',
    pathParams: NO_PARAMS,
    query: NO_PARAMS,
    response: json('The dataset build', ref('Meta')),
    handle: getMeta,
  }),
  route({
    path: `${API_BASE}health-scores/:zip/census/`,
    summary: 'ACS census values of one ZIP code by group (demographics, income, insurance, housing, transportation), with source vintages',
    pathParams: zipPath,
    query: NO_PARAMS,
    response: json('Census values by group; null where the source suppressed a value or has none', ref('Census'), 'the ZIP code is not scored'),
    handle: getCensus,
  }),
  route({
    path: `${API_BASE}tvi/top-vulnerable/`,
    summary: 'ZIP codes by Transportation Vulnerability Index, most vulnerable first, filtered by state and tier',
    pathParams: NO_PARAMS,
    query: topVulnerableQuery,
    response: json('A page of TVI list entries, highest tvi_score first, ties by ZIP code', envelopeOf(ref('TviListEntry'))),
    handle: listTopVulnerable,
  }),
  route({
    path: `${API_BASE}tvi/rankings/`,
    summary: 'The metro/micro areas and ZIP codes most vulnerable by TVI, ranked from 1',
    pathParams: NO_PARAMS,
    query: rankingsQuery,
    response: json('Metro areas and ZIP codes, most vulnerable first', ref('TviRankings')),
    handle: getTviRankings,
  }),
  route({
    path: `${API_BASE}tvi/:zip/`,
    summary: 'The Transportation Vulnerability Index of one ZIP code: score, tier and five sub-scores',
    pathParams: tviPath,
    query: NO_PARAMS,
    response: json('The TVI record', ref('TviRecord'), 'no TVI for the ZIP code'),
    handle: getTvi,
  }),
  route({
    path: `${API_BASE}widget-score/:zip/`,
    summary: 'The overall score of one ZIP code in the compact shape of the embeddable widget (CORS, cacheable 24 hours)',
    pathParams: widgetPath,
    query: NO_PARAMS,
    response: { ...json('The widget score', ref('WidgetScore'), 'no health score for the ZIP code'), headers: WIDGET_RESPONSE_HEADERS },
    handle: getWidgetScore,
  }),
  route({
    path: `${API_BASE}compare/`,
    summary: 'The score records of 2 to 10 ZIP codes side by side, in the order given',
    pathParams: NO_PARAMS,
    query: compareQuery,
    response: json('One score record per ZIP code, in the order of zips', arrayOf(ref('HealthScoreRecord'), { minItems: 2, maxItems: 10 }), 'a ZIP code of zips has no score (the message names every such ZIP)'),
    handle: compareScores,
  }),
  route({
    path: `${API_BASE}blog/`,
    summary: 'Published blog posts, newest first',
    pathParams: NO_PARAMS,
    query: blogQuery,
    response: json('A page of blog post summaries', envelopeOf(ref('BlogPostSummary'))),
    handle: listBlogPosts,
  }),
  route({
    path: `${API_BASE}blog/:slug/`,
    summary: 'One published blog post with its HTML body',
    pathParams: blogPath,
    query: NO_PARAMS,
    response: json('The post', ref('BlogPost'), 'no published post has the slug (drafts and scheduled posts are not published)'),
    handle: getBlogPost,
  }),
  route({
    path: `${API_BASE}providers/`,
    summary: 'Provider (clinician) summaries filtered by specialty, state, city, ZIP and name prefix, by last name, first name, NPI',
    pathParams: NO_PARAMS,
    query: providersQuery,
    response: json('A page of provider summaries', schema.PROVIDERS_PAGE),
    handle: listProviders,
  }),
  route({
    path: `${API_BASE}providers/:npi/`,
    summary: 'The profile of one provider by NPI: summary, medical school, graduation year, facility affiliations',
    pathParams: npiPath,
    query: NO_PARAMS,
    response: json('The provider profile', schema.PROVIDER_PROFILE, 'no provider with the NPI'),
    handle: getProvider,
  }),
  route({
    path: `${API_BASE}facilities/`,
    summary: 'Facility summaries filtered by type, state, emergency services, minimum rating and name, by name then id',
    pathParams: NO_PARAMS,
    query: facilitiesQuery,
    response: json('A page of facility summaries', schema.FACILITIES_PAGE),
    handle: listFacilities,
  }),
  route({
    path: `${API_BASE}facilities/:id/`,
    summary: 'The detail of one facility: address, phone, website, staffed beds and affiliated clinicians',
    pathParams: facilityPath,
    query: NO_PARAMS,
    response: json('The facility detail', schema.FACILITY_DETAIL, 'no facility with the id'),
    handle: getFacility,
  }),
  route({
    path: `${API_BASE}autocomplete/`,
    summary: 'At most 10 suggestions for a search text: ZIP codes, cities, providers and facilities',
    pathParams: NO_PARAMS,
    query: autocompleteQuery,
    response: json('Suggestions: ZIP codes first, then cities by population, providers, facilities', schema.SUGGESTIONS),
    handle: getAutocomplete,
  }),
  route({
    path: `${API_BASE}rankings/states/`,
    summary: 'States by average overall health score, highest first',
    pathParams: NO_PARAMS,
    query: NO_PARAMS,
    response: json('Every state with scored ZIP codes, rank 1 first', schema.STATE_RANKINGS),
    handle: getStateRankings,
  }),
  route({
    path: `${API_BASE}rankings/hospitals/`,
    summary: 'Hospitals with a CMS star rating, best first, optionally in one state',
    pathParams: NO_PARAMS,
    query: hospitalRankingsQuery,
    response: json('Rated hospitals, rank 1 first', schema.HOSPITAL_RANKINGS),
    handle: getHospitalRankings,
  }),
  route({
    path: `${API_BASE}exports/health-scores/`,
    summary: 'Every health score record of one score type as streamed CSV or NDJSON',
    pathParams: NO_PARAMS,
    query: healthScoresExportQuery,
    response: exportDoc('health-scores', 'HealthScoreExportRow'),
    handle: exportHandler('health-scores'),
  }),
  route({
    path: `${API_BASE}exports/providers/`,
    summary: 'Every provider (clinician) record as streamed CSV or NDJSON',
    pathParams: NO_PARAMS,
    query: providersExportQuery,
    response: exportDoc('providers', 'ProviderExportRow'),
    handle: exportHandler('providers'),
  }),
  route({
    path: `${API_BASE}exports/facilities/`,
    summary: 'Every facility record as streamed CSV or NDJSON',
    pathParams: NO_PARAMS,
    query: facilitiesExportQuery,
    response: exportDoc('facilities', 'FacilityExportRow'),
    handle: exportHandler('facilities'),
  }),
  route({
    // The one path without a trailing slash: a document name, as OpenAPI tooling expects it.
    path: `${API_BASE}openapi.json`,
    summary: 'This API as an OpenAPI 3.1 document, generated from the route table',
    pathParams: NO_PARAMS,
    query: NO_PARAMS,
    response: json('The OpenAPI document', ref('OpenApiDocument')),
    handle: () => getOpenApi(ROUTES),
  }),
];
