import { record, type Infer } from '../http/json-schema.ts';
import { string } from './fields.ts';

/** An autocomplete suggestion (interface specification 2.10); `url` is the API path of the thing suggested. */
export const Suggestion = record(
  {
    type: { type: 'string', enum: ['zip', 'city', 'provider', 'facility'] },
    label: string,
    url: { type: 'string', description: 'The API path of the suggested record or list, relative to this server.' },
  },
  'An autocomplete suggestion (2.10).',
);
export type Suggestion = Infer<typeof Suggestion>;
export type SuggestionType = Suggestion['type'];
