import type { Command } from 'commander';
import type { Envelope } from '../../http/pagination.ts';
import type { FacilityDetail, FacilitySummary } from '../../query/facilities.ts';
import { DEFAULT_DATABASE, getJson, openApi } from '../api-client.ts';
import { allColumns, csv, json, outputFormat, recordTable, table, type OutputOptions } from '../format.ts';
import { listQuery, pageFooter } from './list-options.ts';

const COLUMNS = [
  { key: 'id' }, { key: 'facility_name', heading: 'name' }, { key: 'facility_type', heading: 'type' }, { key: 'city_name', heading: 'city' },
  { key: 'state_code', heading: 'state' }, { key: 'facility_rating', heading: 'rating' }, { key: 'emergency_services', heading: 'emergency' },
];
const CSV_COLUMNS = ['id', 'facility_name', 'facility_type', 'city_name', 'state_name', 'state_code', 'latitude', 'longitude', 'facility_rating', 'emergency_services', 'telehealth'].map((key) => ({ key }));

const PARAMETERS = { type: 'type', state: 'state', emergency: 'emergency', minRating: 'min_rating', search: 'search', page: 'page', pageSize: 'page_size' } as const;

/** `hcas facilities`: one page of the facilities list; `hcas facility ID`: one facility. */
export function registerFacilities(program: Command): void {
  program
    .command('facilities')
    .description('List facilities by type, state, emergency services, minimum rating and name, one page at a time')
    .option('--type <type>', 'facility type (any case), or hospital for every hospital type')
    .option('--state <code>', 'two-letter state code')
    .option('--emergency [bool]', 'with emergency services (true, false, 1 or 0; alone: true)')
    .option('--min-rating <n>', 'lowest CMS star rating, 1-5')
    .option('--search <text>', 'text the facility name contains')
    .option('--page <n>', 'page number from 1')
    .option('--page-size <n>', 'records per page, 1-100 (default 20)')
    .option('--db <file>', 'database to read', DEFAULT_DATABASE)
    .option('--json', 'print the whole page envelope as JSON')
    .option('--csv', "print the page's records as CSV")
    .addHelpText('after', '\nExamples:\n  hcas facilities --state CA --type hospital --emergency\n  hcas facilities --search mercy --min-rating 4 --csv')
    .action(async (options: OutputOptions & { db: string } & Partial<Record<keyof typeof PARAMETERS, string | boolean>>) => {
      const format = outputFormat(options);
      const { path, flags } = listQuery('facilities/', PARAMETERS, options);
      const api = openApi(options.db);
      try {
        const page = await getJson<Envelope<FacilitySummary>>(api, path, flags);
        const rows = page.results as unknown as Array<Record<string, unknown>>;
        if (format === 'json') process.stdout.write(json(page));
        else if (format === 'csv') process.stdout.write(csv(rows, CSV_COLUMNS));
        else process.stdout.write(table(rows, COLUMNS) + pageFooter(page, Number(options.page ?? 1), 'facility').replace('facilitys', 'facilities'));
      } finally {
        api.retire();
      }
    });

  program
    .command('facility')
    .description("Show one facility's detail by id")
    .argument('<id>', 'facility id')
    .option('--db <file>', 'database to read', DEFAULT_DATABASE)
    .option('--json', 'print the facility as JSON')
    .option('--csv', 'print the facility as CSV')
    .addHelpText('after', '\nExamples:\n  hcas facility 12\n  hcas facility 12 --json')
    .action(async (id: string, options: OutputOptions & { db: string }) => {
      const format = outputFormat(options);
      const api = openApi(options.db);
      try {
        const detail = await getJson<FacilityDetail & Record<string, unknown>>(api, `facilities/${encodeURIComponent(id)}/`, { id: 'the id argument' });
        const render = { table: () => recordTable(detail), json: () => json(detail), csv: () => csv([detail], allColumns(detail)) };
        process.stdout.write(render[format]());
      } finally {
        api.retire();
      }
    });
}
