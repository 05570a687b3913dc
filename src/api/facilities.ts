import { searchKey } from '../../core/search-key.ts';
import { notFound } from '../http/errors.ts';
import { FacilityDetail, FacilitySummary } from '../answers/facilities.ts';
import { envelope, envelopeOf, page, pageSize, pageWindow } from '../http/pagination.ts';
import { boolean, param, plainInteger } from '../http/params.ts';
import { type HandlerResult, NO_PARAMS, type NoParams, ok, ONCE, route, type Route } from '../http/route.ts';
import type { Context } from './context.ts';
import { buildValue, MAX_TEXT_CHARACTERS, sortParam, state, text } from './params.ts';
import { FACILITY_SORT_KEYS, HOSPITAL_GROUP, namesType } from '../query/facilities.ts';
import { API_BASE } from './paths.ts';

/** A facility id, path segment of `facilities/{id}/`. */
const facilityId = plainInteger('a facility id, an integer of 1 or more', (id) => id >= 1 && id <= 2 ** 31 - 1, 0, {
  type: 'integer',
  minimum: 1,
});

/**
 * A facility type of the build (any case, accents and punctuation), or `hospital` (`hospitals`) for every
 * hospital type; any other value is a 400 that lists them and names the one it may mean.
 */
const facilityType = buildValue(
  `${HOSPITAL_GROUP} (every hospital type) or a facility type of the build (facilities/ answers show them; the last word Hospital may be left out), any case`,
  searchKey,
  {
    has: (key, queries) =>
      key === HOSPITAL_GROUP || key === `${HOSPITAL_GROUP}s` || queries.facilities.types.some((type) => namesType(searchKey(type), key)),
    candidates: (queries) => [HOSPITAL_GROUP, ...queries.facilities.types].map((type) => ({ key: searchKey(type), shown: type })),
    accepts: (queries) =>
      `${HOSPITAL_GROUP} (every hospital type) or a facility type of this build: ${queries.facilities.types.join(', ')} (any case)`,
  },
);

/** Text the facility name contains. */
const search = text(`text of 1 to ${MAX_TEXT_CHARACTERS} characters with a letter or digit`, true, false, searchKey);

/** A CMS star rating bound, 1-5. */
const minRating = param(
  'an integer from 1 to 5',
  (raw) => (/^[1-5]$/.test(raw) ? Number(raw) : undefined),
  undefined as number | undefined,
  {
    type: 'integer',
    minimum: 1,
    maximum: 5,
  },
);

const facilitiesQuery = {
  type: facilityType,
  state,
  emergency: boolean,
  min_rating: minRating,
  search,
  sort: sortParam(FACILITY_SORT_KEYS, 'facility_name, then id'),
  page,
  page_size: pageSize,
};

const facilityPath = { id: facilityId };

/** `facilities/`: a page of facility summaries, filtered, in the order of `sort` (default: by name), ties by name then id. */
function listFacilities({ query, queries, url }: Context<NoParams, typeof facilitiesQuery>): HandlerResult {
  const filter = { type: query.type, state: query.state, emergency: query.emergency, minRating: query.min_rating, search: query.search };
  const offset = (query.page - 1) * query.page_size;
  const { count, results } = queries.facilities.list(filter, offset, query.page_size, query.sort);
  const window = pageWindow(count, query.page, query.page_size);
  return ok(envelope(url, window, count, results));
}

/** `facilities/{id}/`: one facility's detail. */
function getFacility({ params, queries }: Context<typeof facilityPath, NoParams>): HandlerResult {
  const detail = queries.facilities.detail(params.id);
  if (!detail) throw notFound(`No facility with id ${params.id}`);
  return ok(detail);
}

export const routes: readonly Route[] = [
  route({
    path: `${API_BASE}facilities/`,
    exported: ONCE,
    summary: 'Facility summaries filtered by type, state, emergency services, minimum rating and name, by name or rating',
    pathParams: NO_PARAMS,
    query: facilitiesQuery,
    response: { description: 'A page of facility summaries', schema: envelopeOf(FacilitySummary, 'The pagination envelope (2.1).') },
    handle: listFacilities,
  }),
  route({
    path: `${API_BASE}facilities/:id/`,
    exported: { write: 'per-key', keys: 'facility-ids' },
    kind: 'lookup',
    summary: 'The detail of one facility: address, phone, website, staffed beds and affiliated clinicians',
    pathParams: facilityPath,
    query: NO_PARAMS,
    response: { description: 'The facility detail', schema: FacilityDetail, notFound: 'no facility with the id' },
    handle: getFacility,
  }),
];
