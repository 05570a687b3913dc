import { ok, type Context, type HandlerResult, type NoParams } from '../http/route.ts';
import { autocompleteText } from './directory-params.ts';

export const autocompleteQuery = { q: autocompleteText };

/** `autocomplete/`: at most 10 suggestions (ZIP codes, cities, providers, facilities) for a search text. */
export function getAutocomplete({ query, queries }: Context<NoParams, typeof autocompleteQuery>): HandlerResult {
  return ok(queries.autocomplete.suggest(query.q));
}
