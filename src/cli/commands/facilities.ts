import type { CommandIo } from '../../../core/command.ts';
import type { Command } from 'commander';
import { FacilitySummary } from '../../answers/facilities.ts';
import { fieldsOf } from '../../http/json-schema.ts';
import { DB_HELP } from '../api-client.ts';
import { FACILITY_SORT_KEYS } from '../../query/facilities.ts';
import { listOptions, runPagedList, sortOptions, type ListOptions, type ListSpec } from '../listing.ts';
import { outputOptions, type OutputFlags } from '../output.ts';
import { showRecord } from '../record.ts';
import { routes as facilitiesRoutes } from '../../api/facilities.ts';

/** A facility's columns on a terminal (the hospital ranking prints the same, after its rank). */
export const FACILITY_COLUMNS = [
  { key: 'id' },
  { key: 'facility_name' },
  { key: 'facility_type' },
  { key: 'city_name' },
  { key: 'state_code' },
  { key: 'facility_rating' },
  { key: 'emergency_services' },
];

const FACILITIES: ListSpec = {
  path: 'facilities/',
  noun: ['facility', 'facilities'],
  parameters: {
    type: 'type',
    state: 'state',
    emergency: 'emergency',
    minRating: 'min_rating',
    search: 'search',
    sort: 'sort',
    page: 'page',
    pageSize: 'page_size',
  },
  tableColumns: FACILITY_COLUMNS,
  fields: fieldsOf(FacilitySummary),
};

/** `hcas facilities`: the facilities list, a page or every page; `hcas facility ID`: one facility. */
export function registerFacilities(program: Command, io: CommandIo): void {
  const list = program
    .command('facilities')
    .description('List facilities by type, state, emergency services, minimum rating and name, a page at a time or --all')
    .option(
      '--type <type>',
      'facility type of the build (any case), or hospital for every hospital type; a type it lacks is refused with the list of its types',
    )
    .option('--state <code>', 'two-letter state code, any case (hcas states lists those with data)')
    .option('--emergency [bool]', 'with emergency services (true, false, 1 or 0; alone: true)')
    .option('--min-rating <n>', 'lowest CMS star rating, 1-5')
    .option('--search <text>', 'text the facility name contains');
  sortOptions(list, FACILITY_SORT_KEYS, 'facility_name, then id');
  listOptions(list, { paged: true })
    .addHelpText(
      'after',
      '\nExamples:\n  hcas facilities --state CA --type hospital --emergency\n  hcas facilities --state NM --type hospital --sort facility_rating --desc\n  hcas facilities --search mercy --min-rating 4 --csv\n  hcas facilities --type hospital --all --fields id,facility_name,state_code > hospitals.tsv',
    )
    .action((options: ListOptions) => runPagedList(io, FACILITIES, options));

  const one = program
    .command('facility')
    .description("Show one facility's detail by id")
    .argument('<id>', 'facility id')
    .option('--db <file>', DB_HELP);
  outputOptions(one, { json: 'print the facility as JSON' })
    .addHelpText('after', '\nExamples:\n  hcas facility 4202\n  hcas facility 4202 --json')
    .action((id: string, options: OutputFlags & { db?: string }) =>
      showRecord(io, options, `facilities/${encodeURIComponent(id)}/`, { id: 'the id argument' }, facilitiesRoutes),
    );
}
