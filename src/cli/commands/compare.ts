import type { Command } from 'commander';
import type { HealthScoreRecord } from '../../query/health-scores.ts';
import { DEFAULT_DATABASE, getJson, openApi } from '../api-client.ts';
import { CliError } from '../errors.ts';
import { csv, json, outputFormat, qualityFooter, table, type OutputOptions } from '../format.ts';

const FIELDS = ['healthscore', 'grade', 'label', 'people_score', 'provider_score', 'hospital_score', 'travel_score', 'city', 'state'];

/** `hcas compare ZIP ZIP...`: score records side by side, one column per ZIP. */
export function registerCompare(program: Command): void {
  program
    .command('compare')
    .description('Compare the scores of 2 to 10 ZIP codes side by side')
    .argument('<zips...>', '5-digit ZIP codes')
    .option('--score-type <id|slug>', 'score type id (1-11) or slug (default: overall)')
    .option('--db <file>', 'database to read', DEFAULT_DATABASE)
    .option('--json', "print the API's JSON")
    .option('--csv', 'print CSV, one row per ZIP code')
    .addHelpText('after', '\nExamples:\n  hcas compare 10001 94110 02801\n  hcas compare 10001 94110 --score-type asthma --csv')
    .action(async (zips: string[], options: OutputOptions & { db: string; scoreType?: string }) => {
      const format = outputFormat(options);
      if (zips.length < 2 || zips.length > 10) throw new CliError(`give 2 to 10 ZIP codes to compare, got ${zips.length}`);
      const query = new URLSearchParams({ zips: zips.join(',') });
      if (options.scoreType !== undefined) query.set('score_type', options.scoreType);
      const api = openApi(options.db);
      try {
        const records = await getJson<HealthScoreRecord[]>(api, `compare/?${query}`, { zips: 'the ZIP codes', score_type: '--score-type' });
        const rows = records as unknown as Array<Record<string, unknown>>;
        if (format === 'json') process.stdout.write(json(records));
        else if (format === 'csv') process.stdout.write(csv(rows, ['zip_code', ...FIELDS].map((key) => ({ key }))));
        else {
          // Fields down, ZIP codes across: the way a comparison reads.
          const columns = [{ key: 'field' }, ...records.map((r) => ({ key: r.zip_code }))];
          process.stdout.write(table(FIELDS.map((field) => ({ field, ...Object.fromEntries(rows.map((r) => [r.zip_code as string, r[field]])) })), columns) + qualityFooter(records));
        }
      } finally {
        api.retire();
      }
    });
}
