import type { CommandIo } from '../../../core/command.ts';
import type { Command } from 'commander';
import { ProviderSummary } from '../../answers/providers.ts';
import { fieldsOf } from '../../http/json-schema.ts';
import { DB_HELP } from '../api-client.ts';
import { PROVIDER_SORT_KEYS } from '../../query/providers.ts';
import { listOptions, runPagedList, sortOptions, type ListOptions, type ListSpec } from '../listing.ts';
import { outputOptions, type OutputFlags } from '../output.ts';
import { showRecord } from '../record.ts';
import { routes as providersRoutes } from '../../api/providers.ts';

const PROVIDERS: ListSpec = {
  path: 'providers/',
  noun: ['provider', 'providers'],
  parameters: {
    specialty: 'specialty',
    state: 'state',
    city: 'city',
    zip: 'zip',
    name: 'name',
    near: 'near',
    radius: 'radius',
    sort: 'sort',
    page: 'page',
    pageSize: 'page_size',
  },
  tableColumns: [
    { key: 'npi' },
    { key: 'last_name' },
    { key: 'first_name' },
    { key: 'credential' },
    { key: 'gender' },
    { key: 'primary_specialty' },
    { key: 'telehealth' },
    { key: 'city' },
    { key: 'state' },
    { key: 'zip_code' },
  ],
  fields: fieldsOf(ProviderSummary),
};

/** `hcas providers`: the providers list, a page or every page; `hcas provider NPI`: one profile. */
export function registerProviders(program: Command, io: CommandIo): void {
  const list = program
    .command('providers')
    .description('List providers (clinicians) by specialty, state, city, ZIP, name prefix and distance, sorted, a page at a time or --all')
    .option(
      '--specialty <name>',
      'a specialty some provider has, any case: NUCC name (Cardiovascular Disease, Family Nurse Practitioner), CMS specialty, or an alias (cardiology, primary care, obgyn, oncology, orthopedics, geriatrics); the full list: docs/api.md, "Specialties"',
    )
    .option('--state <code>', 'two-letter state code, any case (hcas states lists those with data)')
    .option('--city <name>', 'practice city name (any case)')
    .option('--zip <zip>', '5-digit practice ZIP code, exactly (for a place and its surroundings: --near)')
    .option('--name <prefix>', 'start of the first or last name (any case)')
    .option('--near <zip>', 'only providers practising within --radius miles of this ZIP code, nearest first, with distance_miles')
    .option('--radius <miles>', 'with --near: miles, at most 100 (default 10)');
  sortOptions(list, PROVIDER_SORT_KEYS, 'last_name (then first name, NPI), or distance_miles with --near');
  listOptions(list, { paged: true })
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        '  hcas providers --state NY --specialty Cardiology',
        '  hcas providers --near 87102 --radius 15 --specialty cardiology',
        '  hcas providers --state NY --specialty cardiology --page 2',
        '  hcas providers --zip 10001 --csv',
        '  hcas providers --state RI --all --ndjson > ri-providers.ndjson',
      ].join('\n'),
    )
    .action((options: ListOptions) => runPagedList(io, PROVIDERS, options));

  const one = program
    .command('provider')
    .description("Show one provider's profile by NPI")
    .argument('<npi>', '10-digit NPI')
    .option('--db <file>', DB_HELP);
  outputOptions(one, { json: 'print the profile as JSON' })
    .addHelpText('after', '\nExamples:\n  hcas provider 1842868568\n  hcas provider 1842868568 --json')
    .action((npi: string, options: OutputFlags & { db?: string }) =>
      showRecord(io, options, `providers/${encodeURIComponent(npi)}/`, { npi: 'the NPI argument' }, providersRoutes),
    );
}
