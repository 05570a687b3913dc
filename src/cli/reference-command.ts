import type { Command } from 'commander';
import { DEFAULT_DATABASE, getJson, openApi } from './api-client.ts';
import { csv, json, outputFormat, table, type Column, type OutputOptions } from './format.ts';

/** Registers a command that prints one of the reference lists (`states/`, `score-types/`). */
export function referenceCommand(name: string, path: string, description: string, columns: Column[]) {
  return (program: Command): void => {
    program
      .command(name)
      .description(description)
      .option('--db <file>', 'database to read', DEFAULT_DATABASE)
      .option('--json', 'print JSON')
      .option('--csv', 'print CSV')
      .addHelpText('after', `\nExamples:\n  hcas ${name}\n  hcas ${name} --csv > ${name}.csv`)
      .action(async (options: OutputOptions & { db: string }) => {
        const format = outputFormat(options);
        const api = openApi(options.db);
        try {
          const rows = await getJson<Array<Record<string, unknown>>>(api, path);
          const render = { table: () => table(rows, columns), json: () => json(rows), csv: () => csv(rows, columns) };
          process.stdout.write(render[format]());
        } finally {
          api.retire();
        }
      });
  };
}
