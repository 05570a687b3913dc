import type { Command } from 'commander';
import type { HealthScoreRecord } from '../../query/health-scores.ts';
import { DEFAULT_DATABASE, getJson, openApi } from '../api-client.ts';
import { allColumns, csv, json, outputFormat, scoreRecordTable, type OutputOptions } from '../format.ts';

/** `hcas score ZIP`: one ZIP's overall health score record. */
export function registerScore(program: Command): void {
  program
    .command('score')
    .description('Show the overall health score record of a ZIP code')
    .argument('<zip>', '5-digit ZIP code')
    .option('--db <file>', 'database to read', DEFAULT_DATABASE)
    .option('--json', 'print the record as JSON')
    .option('--csv', 'print the record as CSV')
    .addHelpText('after', '\nExamples:\n  hcas score 10001\n  hcas score 02801 --json')
    .action(async (zip: string, options: OutputOptions & { db: string }) => {
      const format = outputFormat(options);
      const api = openApi(options.db);
      try {
        const record = await getJson<HealthScoreRecord & Record<string, unknown>>(api, `health-scores/${encodeURIComponent(zip)}/`, { zip: 'the ZIP argument' });
        const render = { table: () => scoreRecordTable(record), json: () => json(record), csv: () => csv([record], allColumns(record)) };
        process.stdout.write(render[format]());
      } finally {
        api.retire();
      }
    });
}
