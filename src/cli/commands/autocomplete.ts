import type { Command } from 'commander';
import type { Suggestion } from '../../query/autocomplete.ts';
import { DEFAULT_DATABASE, getJson, openApi } from '../api-client.ts';
import { csv, json, outputFormat, table, type OutputOptions } from '../format.ts';

const COLUMNS = [{ key: 'type' }, { key: 'label' }, { key: 'url' }];

/** `hcas autocomplete TEXT`: the suggestions the search box would show. */
export function registerAutocomplete(program: Command): void {
  program
    .command('autocomplete')
    .description('Suggest ZIP codes, cities, providers and facilities for a search text (at most 10)')
    .argument('<text>', 'search text, 1-100 characters')
    .option('--db <file>', 'database to read', DEFAULT_DATABASE)
    .option('--json', 'print JSON')
    .option('--csv', 'print CSV')
    .addHelpText('after', '\nExamples:\n  hcas autocomplete "new yo"\n  hcas autocomplete 100\n  hcas autocomplete "john sm" --json')
    .action(async (text: string, options: OutputOptions & { db: string }) => {
      const format = outputFormat(options);
      const api = openApi(options.db);
      try {
        const suggestions = await getJson<Suggestion[]>(api, `autocomplete/?${new URLSearchParams({ q: text })}`, { q: 'the text argument' });
        const rows = suggestions as unknown as Array<Record<string, unknown>>;
        const render = { table: () => table(rows, COLUMNS), json: () => json(suggestions), csv: () => csv(rows, COLUMNS) };
        process.stdout.write(render[format]());
      } finally {
        api.retire();
      }
    });
}
