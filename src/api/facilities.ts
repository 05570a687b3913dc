import { notFound } from '../http/errors.ts';
import { envelope, pageWindow } from '../http/pagination.ts';
import * as param from '../http/params.ts';
import { ok, type Context, type HandlerResult, type NoParams } from '../http/route.ts';
import * as directory from './directory-params.ts';

export const facilitiesQuery = {
  type: directory.facilityType,
  state: param.state,
  emergency: directory.boolean,
  min_rating: directory.minRating,
  search: directory.search,
  page: param.page,
  page_size: param.pageSize,
};

export const facilityPath = { id: directory.facilityId };

/** `facilities/`: a page of facility summaries, filtered, by name then id. */
export function listFacilities({ query, queries, url }: Context<NoParams, typeof facilitiesQuery>): HandlerResult {
  const filter = { type: query.type, state: query.state, emergency: query.emergency, minRating: query.min_rating, search: query.search };
  const offset = (query.page - 1) * query.page_size;
  const { count, results } = queries.facilities.list(filter, offset, query.page_size);
  const window = pageWindow(count, query.page, query.page_size);
  return ok(envelope(url, window, count, results));
}

/** `facilities/{id}/`: one facility's detail. */
export function getFacility({ params, queries }: Context<typeof facilityPath, NoParams>): HandlerResult {
  const detail = queries.facilities.detail(params.id);
  if (!detail) throw notFound(`No facility with id ${params.id}`);
  return ok(detail);
}
