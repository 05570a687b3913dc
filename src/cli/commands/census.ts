import type { Command } from 'commander';
import { CENSUS_GROUPS, type CensusSource } from '../../api/census.ts';
import { DEFAULT_DATABASE, getJson, openApi } from '../api-client.ts';
import { csv, json, outputFormat, table, type OutputOptions } from '../format.ts';

const COLUMNS = [{ key: 'group' }, { key: 'field' }, { key: 'value' }];
const CSV_COLUMNS = [...COLUMNS, { key: 'group_sources' }];

/** `hcas census ZIP`: a ZIP's census values, one line per value, then each group's sources and vintages. */
export function registerCensus(program: Command): void {
  program
    .command('census')
    .description('Show the ACS census values of a ZIP code by group, with the sources and vintages of each group; empty where the source has no value')
    .argument('<zip>', '5-digit ZIP code')
    .option('--db <file>', 'database to read', DEFAULT_DATABASE)
    .option('--json', "print the API's JSON")
    .option('--csv', "print CSV: group, field, value and the group's sources")
    .addHelpText('after', '\nExamples:\n  hcas census 10001\n  hcas census 10001 --json | jq .income')
    .action(async (zip: string, options: OutputOptions & { db: string }) => {
      const format = outputFormat(options);
      const api = openApi(options.db);
      try {
        const body = await getJson<Record<string, Record<string, unknown>>>(api, `health-scores/${encodeURIComponent(zip)}/census/`, { zip: 'the ZIP argument' });
        if (format === 'json') {
          process.stdout.write(json(body));
          return;
        }
        const sourcesOf = (group: string) => (body[group].sources as CensusSource[]).map((s) => `${s.key} (${s.vintage ?? 'vintage unknown'})`).join('; ');
        const rows = Object.entries(CENSUS_GROUPS).flatMap(([group, fields]) =>
          Object.keys(fields).map((field) => ({ group, field, value: body[group][field], group_sources: sourcesOf(group) })));
        if (format === 'csv') {
          process.stdout.write(csv(rows, CSV_COLUMNS));
          return;
        }
        const footer = Object.keys(CENSUS_GROUPS).map((group) => `${group}: ${sourcesOf(group) || 'no values'}`).join('\n');
        process.stdout.write(`${table(rows, COLUMNS)}\nSources (vintage):\n${footer}\n`);
      } finally {
        api.retire();
      }
    });
}
