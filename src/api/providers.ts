import { npiIsValid } from '../../core/npi.ts';
import { searchKey, specialtyKey } from '../../core/search-key.ts';
import { notFound } from '../http/errors.ts';
import { ProviderProfile, ProviderSummary } from '../answers/providers.ts';
import { envelope, envelopeOf, page, pageSize, pageWindow } from '../http/pagination.ts';
import { param } from '../http/params.ts';
import { NO_PARAMS, ok, route, type HandlerResult, type NoParams, type Route } from '../http/route.ts';
import type { Context } from './context.ts';
import { city, MAX_TEXT_CHARACTERS, state, text, zipFilter } from './params.ts';
import { API_BASE } from './paths.ts';

/** A 10-digit NPI with a valid check digit (Luhn over `80840` + the NPI), path segment of `providers/{npi}/`. */
const npi = param('a 10-digit NPI with a valid check digit', (raw) => (npiIsValid(raw) ? raw : undefined), '', {
  type: 'string',
  pattern: '^[12][0-9]{9}$',
  description: 'Luhn check digit over the prefix 80840 and the first 9 digits',
});

/** A specialty name or alias; an unknown one matches nothing (200, empty), it is not an error. */
const specialty = text(
  `a specialty name of 1 to ${MAX_TEXT_CHARACTERS} characters, such as Cardiovascular Disease or cardiology`,
  true,
  false,
  specialtyKey,
);

/** The start of a first or last name. */
const name = text(
  `the start of a first or last name, 1 to ${MAX_TEXT_CHARACTERS} characters with a letter or digit`,
  true,
  false,
  searchKey,
);

const providersQuery = { specialty, state, city, zip: zipFilter, name, page, page_size: pageSize };

const npiPath = { npi };

/** `providers/`: a page of provider summaries, filtered, in directory order (last name, first name, NPI). */
function listProviders({ query, queries, url }: Context<NoParams, typeof providersQuery>): HandlerResult {
  const filter = { specialty: query.specialty, state: query.state, city: query.city, zip: query.zip, name: query.name };
  const offset = (query.page - 1) * query.page_size;
  // The count and the page come from one search; a page past the last one is then a 404.
  const { count, results } = queries.providers.list(filter, offset, query.page_size);
  const window = pageWindow(count, query.page, query.page_size);
  return ok(envelope(url, window, count, results));
}

/** `providers/{npi}/`: one provider's profile. */
function getProvider({ params, queries }: Context<typeof npiPath, NoParams>): HandlerResult {
  const profile = queries.providers.profile(params.npi);
  if (!profile) throw notFound(`No provider with NPI ${params.npi}`);
  return ok(profile);
}

export const routes: readonly Route[] = [
  route({
    path: `${API_BASE}providers/`,
    summary: 'Provider (clinician) summaries filtered by specialty, state, city, ZIP and name prefix, by last name, first name, NPI',
    pathParams: NO_PARAMS,
    query: providersQuery,
    response: { description: 'A page of provider summaries', schema: envelopeOf(ProviderSummary, 'The pagination envelope (2.1).') },
    handle: listProviders,
  }),
  route({
    path: `${API_BASE}providers/:npi/`,
    inline: true,
    summary: 'The profile of one provider by NPI: summary, medical school, graduation year, facility affiliations',
    pathParams: npiPath,
    query: NO_PARAMS,
    response: { description: 'The provider profile', schema: ProviderProfile, notFound: 'no provider with the NPI' },
    handle: getProvider,
  }),
];
