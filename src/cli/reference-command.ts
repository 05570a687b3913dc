import type { CommandIo } from '../../core/command.ts';
import type { Command } from 'commander';
import { getJson, openApi } from './api-client.ts';
import { listOptions, printList, type ListOptions } from './listing.ts';
import { ALL_ROUTES } from '../api/index.ts';

/** Registers a command that prints one of the reference lists (`states/`, `score-types/`). */
export function referenceCommand(name: string, path: string, description: string, fields: string[]) {
  const spec = { noun: [name, name] as [string, string], tableColumns: fields.map((key) => ({ key })), fields };
  return (program: Command, io: CommandIo): void => {
    listOptions(program.command(name).description(description))
      .addHelpText('after', `\nExamples:\n  hcas ${name}\n  hcas ${name} --csv > ${name}.csv`)
      .action(async (options: ListOptions) => {
        const api = openApi(options.db, io.env, ALL_ROUTES);
        try {
          await printList(io, spec, await getJson<Array<Record<string, unknown>>>(api, path), options);
        } finally {
          api.retire();
        }
      });
  };
}
