import type { CommandIo } from '../../../core/command.ts';
import type { Command } from 'commander';
import { Suggestion } from '../../answers/autocomplete.ts';
import { fieldsOf } from '../../http/json-schema.ts';
import { getJson, withApi } from '../api-client.ts';
import { listOptions, printList, type ListOptions } from '../listing.ts';
import { routes as autocompleteRoutes } from '../../api/autocomplete.ts';

const FIELDS = fieldsOf(Suggestion);
const SUGGESTIONS = {
  noun: ['suggestion', 'suggestions'] as [string, string],
  tableColumns: FIELDS.map((key) => ({ key })),
  fields: FIELDS,
};

/** `hcas autocomplete TEXT`: the suggestions the search box would show. */
export function registerAutocomplete(program: Command, io: CommandIo): void {
  const command = program
    .command('autocomplete')
    .description('Suggest ZIP codes, cities, providers and facilities for a search text (at most 10)')
    .argument('<text>', 'search text, 1-100 characters');
  listOptions(command)
    .addHelpText('after', '\nExamples:\n  hcas autocomplete "new yo"\n  hcas autocomplete 100\n  hcas autocomplete "john sm" --json')
    .action(async (text: string, options: ListOptions) => {
      await withApi(options.db, io.env, autocompleteRoutes, async (api) => {
        const suggestions = await getJson<Suggestion[]>(api, `autocomplete/?${new URLSearchParams({ q: text })}`, {
          q: 'the text argument',
        });
        await printList(io, SUGGESTIONS, suggestions as unknown as Array<Record<string, unknown>>, options);
      });
    });
}
