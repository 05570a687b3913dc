import { record, type JsonSchema } from '../http/json-schema.ts';
import type { Param } from '../http/params.ts';
import { NO_PARAMS, ok, route, type HandlerResult, type NoParams, type Route } from '../http/route.ts';
import type { Context } from './context.ts';
import { asciiLowerCase, MAX_TEXT_CHARACTERS, text } from './params.ts';
import { API_BASE } from './paths.ts';
import { string } from './schemas.ts';

/** The search text: required, 1-100 characters after trimming; any other text is fine (it may match nothing). */
const autocompleteText = text(`search text of 1 to ${MAX_TEXT_CHARACTERS} characters`, false, true, asciiLowerCase) as Param<string>;

const autocompleteQuery = { q: autocompleteText };

/** `autocomplete/`: at most 10 suggestions (ZIP codes, cities, providers, facilities) for a search text. */
function getAutocomplete({ query, queries }: Context<NoParams, typeof autocompleteQuery>): HandlerResult {
  return ok(queries.autocomplete.suggest(query.q));
}

const SUGGESTIONS: JsonSchema = {
  type: 'array',
  maxItems: 10,
  items: record(
    {
      type: { type: 'string', enum: ['zip', 'city', 'provider', 'facility'] },
      label: string,
      url: { type: 'string', description: 'The API path of the suggested record or list, relative to this server.' },
    },
    'An autocomplete suggestion (2.10).',
  ),
};

export const routes: readonly Route[] = [
  route({
    path: `${API_BASE}autocomplete/`,
    summary: 'At most 10 suggestions for a search text: ZIP codes, cities, providers and facilities',
    pathParams: NO_PARAMS,
    query: autocompleteQuery,
    response: { description: 'Suggestions: ZIP codes first, then cities by population, providers, facilities', schema: SUGGESTIONS },
    handle: getAutocomplete,
  }),
];
