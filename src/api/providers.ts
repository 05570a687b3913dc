import { notFound } from '../http/errors.ts';
import { envelope, pageWindow } from '../http/pagination.ts';
import * as param from '../http/params.ts';
import { ok, type Context, type HandlerResult, type NoParams } from '../http/route.ts';
import * as directory from './directory-params.ts';

export const providersQuery = {
  specialty: directory.specialty,
  state: param.state,
  city: param.city,
  zip: directory.zipFilter,
  name: directory.name,
  page: param.page,
  page_size: param.pageSize,
};

export const npiPath = { npi: directory.npi };

/** `providers/`: a page of provider summaries, filtered, in directory order (last name, first name, NPI). */
export function listProviders({ query, queries, url }: Context<NoParams, typeof providersQuery>): HandlerResult {
  const filter = { specialty: query.specialty, state: query.state, city: query.city, zip: query.zip, name: query.name };
  const offset = (query.page - 1) * query.page_size;
  // The count and the page come from one search; a page past the last one is then a 404.
  const { count, results } = queries.providers.list(filter, offset, query.page_size);
  const window = pageWindow(count, query.page, query.page_size);
  return ok(envelope(url, window, count, results));
}

/** `providers/{npi}/`: one provider's profile. */
export function getProvider({ params, queries }: Context<typeof npiPath, NoParams>): HandlerResult {
  const profile = queries.providers.profile(params.npi);
  if (!profile) throw notFound(`No provider with NPI ${params.npi}`);
  return ok(profile);
}
