import { npiIsValid } from '../../core/npi.ts';
import { searchKey, specialtyKey } from '../../core/search-key.ts';
import { notFound } from '../http/errors.ts';
import { ProviderProfile, ProviderSummary } from '../answers/providers.ts';
import { envelope, envelopeOf, page, pageSize, pageWindow } from '../http/pagination.ts';
import { param } from '../http/params.ts';
import { PROVIDER_OWN_ORDER, PROVIDER_SORT_KEYS } from '../query/providers.ts';
import { nearPlaces, nearQuery, sortOrNear } from './near.ts';
import { type HandlerResult, NO_PARAMS, type NoParams, ok, ONCE, route, type Route } from '../http/route.ts';
import type { Context } from './context.ts';
import { buildValue, city, MAX_TEXT_CHARACTERS, sortParam, state, text, zipFilter } from './params.ts';
import { API_BASE } from './paths.ts';

/** A 10-digit NPI with a valid check digit (Luhn over `80840` + the NPI), path segment of `providers/{npi}/`. */
const npi = param('a 10-digit NPI with a valid check digit', (raw) => (npiIsValid(raw) ? raw : undefined), '', {
  type: 'string',
  pattern: '^[12][0-9]{9}$',
  description: 'Luhn check digit over the prefix 80840 and the first 9 digits',
});

/** What `specialty` accepts, in words: the values are the build's (hundreds nationally), so where they are. */
export const SPECIALTY_ACCEPTS =
  'a specialty some provider of this build has, any case: a NUCC name such as Cardiovascular Disease or Family Nurse Practitioner, a CMS specialty, or an alias such as cardiology or primary care (docs/api.md, "Specialties")';

/**
 * A specialty name or alias that some provider of the build answers to (any case, accents and punctuation);
 * any other value is a 400 naming the specialties it may mean, most providers first.
 */
const specialty = buildValue(SPECIALTY_ACCEPTS, specialtyKey, {
  has: (key, queries) => queries.specialties.has(key),
  candidates: (queries) => queries.specialties.all.map((row) => ({ key: row.key, shown: row.specialty })),
  accepts: () => SPECIALTY_ACCEPTS,
});

/** The start of a first or last name. */
const name = text(
  `the start of a first or last name, 1 to ${MAX_TEXT_CHARACTERS} characters with a letter or digit`,
  true,
  false,
  searchKey,
);

const providersQuery = {
  specialty,
  state,
  city,
  zip: zipFilter,
  name,
  ...nearQuery,
  sort: sortParam(PROVIDER_SORT_KEYS, 'last_name (then first name, NPI), or distance_miles with near'),
  page,
  page_size: pageSize,
};

const npiPath = { npi };

/**
 * `providers/`: a page of provider summaries, filtered, in the order of `sort` (default: directory order, last
 * name, first name, NPI; nearest first with `near`, each record with its `distance_miles`).
 */
function listProviders({ query, queries, url }: Context<NoParams, typeof providersQuery>): HandlerResult {
  const filter = { specialty: query.specialty, state: query.state, city: query.city, zip: query.zip, name: query.name };
  const near = nearPlaces(queries, query);
  const sort = sortOrNear(query.sort, near, PROVIDER_OWN_ORDER);
  const offset = (query.page - 1) * query.page_size;
  // The count and the page come from one search; a page past the last one is then a 404.
  const { count, results } = queries.providers.list(filter, offset, query.page_size, sort, near);
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
    exported: ONCE,
    summary: 'Provider (clinician) summaries filtered by specialty, state, city, ZIP, name prefix and distance from a ZIP code, sorted',
    pathParams: NO_PARAMS,
    query: providersQuery,
    response: { description: 'A page of provider summaries', schema: envelopeOf(ProviderSummary, 'The pagination envelope (2.1).') },
    handle: listProviders,
  }),
  route({
    path: `${API_BASE}providers/:npi/`,
    exported: { write: 'per-key', keys: 'npis', providers: true },
    kind: 'lookup',
    summary: 'The profile of one provider by NPI: summary, medical school, graduation year, facility affiliations',
    pathParams: npiPath,
    query: NO_PARAMS,
    response: { description: 'The provider profile', schema: ProviderProfile, notFound: 'no provider with the NPI' },
    handle: getProvider,
  }),
];
