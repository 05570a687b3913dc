import type { CommandIo } from '../../../core/command.ts';
import type { Command } from 'commander';
import { CENSUS_GROUPS, type CensusSource } from '../../answers/census.ts';
import { getJson, withApi } from '../api-client.ts';
import { json } from '../format.ts';
import { listOptions, printList, type ListOptions } from '../listing.ts';
import { chooseFormat, emit, note } from '../output.ts';
import { routes as censusRoutes } from '../../api/census.ts';

const VALUES = {
  noun: ['census value', 'census values'] as [string, string],
  tableColumns: [{ key: 'group' }, { key: 'field' }, { key: 'value', thousands: true }],
  fields: ['group', 'field', 'value', 'group_sources'],
};

/** `hcas census ZIP`: a ZIP's census values, one line per value, then each group's sources and vintages. */
export function registerCensus(program: Command, io: CommandIo): void {
  const command = program
    .command('census')
    .description(
      'Show the ACS census values of a ZIP code by group, with the sources and vintages of each group; empty where the source has no value',
    )
    .argument('<zip>', '5-digit ZIP code (or ZIP+4)');
  listOptions(command, { json: "print the API's JSON" })
    .addHelpText('after', '\nExamples:\n  hcas census 10001\n  hcas census 10001 --json | jq .income')
    .action(async (zip: string, options: ListOptions) => {
      const format = chooseFormat(options, io);
      await withApi(options.db, io.env, censusRoutes, async (api) => {
        const body = await getJson<Record<string, Record<string, unknown>>>(api, `health-scores/${encodeURIComponent(zip)}/census/`, {
          zip: 'the ZIP argument',
        });
        if (format === 'json' && options.fields === undefined) return emit(io.stdout, json(body));
        const sourcesOf = (group: string) =>
          (body[group].sources as CensusSource[]).map((s) => `${s.key} (${s.vintage ?? 'vintage unknown'})`).join('; ');
        const rows = Object.entries(CENSUS_GROUPS).flatMap(([group, fields]) =>
          Object.keys(fields).map((field) => ({ group, field, value: body[group][field], group_sources: sourcesOf(group) })),
        );
        await printList(io, VALUES, rows, options);
        if (format === 'table')
          note(
            io,
            `sources (vintage):\n${Object.keys(CENSUS_GROUPS)
              .map((group) => `${group}: ${sourcesOf(group) || 'no values'}`)
              .join('\n')}`,
          );
      });
    });
}
