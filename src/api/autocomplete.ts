import { Suggestion } from '../answers/autocomplete.ts';
import type { Param } from '../http/params.ts';
import { NO_PARAMS, ok, route, type HandlerResult, type NoParams, type Route } from '../http/route.ts';
import type { Context } from './context.ts';
import { asciiLowerCase, MAX_TEXT_CHARACTERS, text } from './params.ts';
import { API_BASE } from './paths.ts';

/** The search text: required, 1-100 characters after trimming; any other text is fine (it may match nothing). */
const autocompleteText = text(`search text of 1 to ${MAX_TEXT_CHARACTERS} characters`, false, true, asciiLowerCase) as Param<string>;

const autocompleteQuery = { q: autocompleteText };

/** `autocomplete/`: at most 10 suggestions (ZIP codes, cities, providers, facilities) for a search text. */
function getAutocomplete({ query, queries }: Context<NoParams, typeof autocompleteQuery>): HandlerResult {
  return ok(queries.autocomplete.suggest(query.q));
}

const SUGGESTIONS = { type: 'array', maxItems: 10, items: Suggestion };

export const routes: readonly Route[] = [
  route({
    path: `${API_BASE}autocomplete/`,
    exported: { write: 'server', why: 'needs the search text q' },
    summary: 'At most 10 suggestions for a search text: ZIP codes, cities, providers and facilities',
    pathParams: NO_PARAMS,
    query: autocompleteQuery,
    response: { description: 'Suggestions: ZIP codes first, then cities by population, providers, facilities', schema: SUGGESTIONS },
    handle: getAutocomplete,
  }),
];
