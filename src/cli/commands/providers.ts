import type { Command } from 'commander';
import type { Envelope } from '../../http/pagination.ts';
import type { ProviderProfile, ProviderSummary } from '../../query/providers.ts';
import { DEFAULT_DATABASE, getJson, openApi } from '../api-client.ts';
import { allColumns, csv, json, outputFormat, recordTable, table, type OutputOptions } from '../format.ts';
import { listQuery, pageFooter } from './list-options.ts';

const COLUMNS = [
  { key: 'npi' }, { key: 'last_name' }, { key: 'first_name' }, { key: 'credential' }, { key: 'gender' }, { key: 'primary_specialty', heading: 'specialty' }, { key: 'telehealth' },
];
const CSV_COLUMNS = ['npi', 'first_name', 'last_name', 'credential', 'gender', 'primary_specialty', 'telehealth'].map((key) => ({ key }));

/** Command options and the API parameters they become. */
const PARAMETERS = { specialty: 'specialty', state: 'state', city: 'city', zip: 'zip', name: 'name', page: 'page', pageSize: 'page_size' } as const;

/** `hcas providers`: one page of the providers list; `hcas provider NPI`: one profile. */
export function registerProviders(program: Command): void {
  program
    .command('providers')
    .description('List providers (clinicians) by specialty, state, city, ZIP and name prefix, one page at a time')
    .option('--specialty <name>', 'NUCC classification or specialization, CMS specialty, or an alias such as cardiology')
    .option('--state <code>', 'two-letter state code')
    .option('--city <name>', 'city name (any case)')
    .option('--zip <zip>', '5-digit practice ZIP code')
    .option('--name <prefix>', 'start of the first or last name (any case)')
    .option('--page <n>', 'page number from 1')
    .option('--page-size <n>', 'records per page, 1-100 (default 20)')
    .option('--db <file>', 'database to read', DEFAULT_DATABASE)
    .option('--json', 'print the whole page envelope as JSON')
    .option('--csv', "print the page's records as CSV")
    .addHelpText('after', '\nExamples:\n  hcas providers --state NY --specialty Cardiology\n  hcas providers --state NY --specialty cardiology --name smi --page 2\n  hcas providers --zip 10001 --csv')
    .action(async (options: OutputOptions & { db: string } & Partial<Record<keyof typeof PARAMETERS, string>>) => {
      const format = outputFormat(options);
      const { path, flags } = listQuery('providers/', PARAMETERS, options);
      const api = openApi(options.db);
      try {
        const page = await getJson<Envelope<ProviderSummary>>(api, path, flags);
        const rows = page.results as unknown as Array<Record<string, unknown>>;
        if (format === 'json') process.stdout.write(json(page));
        else if (format === 'csv') process.stdout.write(csv(rows, CSV_COLUMNS));
        else process.stdout.write(table(rows, COLUMNS) + pageFooter(page, Number(options.page ?? 1), 'provider'));
      } finally {
        api.retire();
      }
    });

  program
    .command('provider')
    .description("Show one provider's profile by NPI")
    .argument('<npi>', '10-digit NPI')
    .option('--db <file>', 'database to read', DEFAULT_DATABASE)
    .option('--json', 'print the profile as JSON')
    .option('--csv', 'print the profile as CSV')
    .addHelpText('after', '\nExamples:\n  hcas provider 1679576722\n  hcas provider 1679576722 --json')
    .action(async (npi: string, options: OutputOptions & { db: string }) => {
      const format = outputFormat(options);
      const api = openApi(options.db);
      try {
        const profile = await getJson<ProviderProfile & Record<string, unknown>>(api, `providers/${encodeURIComponent(npi)}/`, { npi: 'the NPI argument' });
        const render = { table: () => recordTable(profile), json: () => json(profile), csv: () => csv([profile], allColumns(profile)) };
        process.stdout.write(render[format]());
      } finally {
        api.retire();
      }
    });
}
