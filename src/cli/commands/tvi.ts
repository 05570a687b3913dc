import type { CommandIo } from '../../../core/command.ts';
import type { Command } from 'commander';
import { TviListEntry } from '../../answers/tvi.ts';
import { fieldsOf } from '../../http/json-schema.ts';
import { CliError } from '../errors.ts';
import { TVI_SORT_KEYS } from '../../query/tvi.ts';
import { listOptions, runPagedList, sortOptions, type ListOptions, type ListSpec } from '../listing.ts';
import { showRecord } from '../record.ts';
import { routes as tviRoutes } from '../../api/tvi.ts';

const FIELDS = fieldsOf(TviListEntry);
const TOP: ListSpec = {
  path: 'tvi/top-vulnerable/',
  noun: ['ZIP code', 'ZIP codes'],
  parameters: { state: 'state', tier: 'tier', sort: 'sort', page: 'page', pageSize: 'page_size' },
  tableColumns: FIELDS.map((key) => ({ key })),
  fields: FIELDS,
};
/** The options that only the --top list takes, as commander names them and as typed. */
const TOP_ONLY: Record<string, string> = {
  state: '--state',
  tier: '--tier',
  sort: '--sort',
  desc: '--desc',
  page: '--page',
  pageSize: '--page-size',
  all: '--all',
};

/** `hcas tvi ZIP`: one ZIP's Transportation Vulnerability Index; `hcas tvi --top`: the most vulnerable ZIPs. */
export function registerTvi(program: Command, io: CommandIo): void {
  const command = program
    .command('tvi')
    .description('Show the Transportation Vulnerability Index of a ZIP code, or with --top the most vulnerable ZIP codes')
    .argument('[zip]', '5-digit ZIP code (or ZIP+4)')
    .option('--top', 'list ZIP codes by TVI, most vulnerable first')
    .option('--state <code>', 'with --top: two-letter state code, any case (hcas states lists those with data)')
    .option('--tier <name>', 'with --top: CRITICAL, HIGH, MODERATE, LOW or MINIMAL');
  sortOptions(command, TVI_SORT_KEYS, '-tvi_score, most vulnerable first');
  listOptions(command, { paged: true })
    .addHelpText(
      'after',
      '\nExamples:\n  hcas tvi 10001\n  hcas tvi --top --state NY --tier critical --csv > ny-critical.csv\n  hcas tvi --top --state NM --sort zero_vehicle_pct --desc --page-size 10\n  hcas tvi --top --all --ndjson > tvi.ndjson',
    )
    .action(async (zip: string | undefined, options: ListOptions & { top?: boolean }) => {
      if (zip !== undefined && options.top) {
        // `--top 5` reads as "the top five": --top takes no number, and 5 is no ZIP code to suggest.
        if (/^\d{1,4}$/.test(zip))
          throw new CliError(`--top takes no number: for the ${zip} most vulnerable ZIP codes, hcas tvi --top --page-size ${zip}`);
        throw new CliError(`give a ZIP code or --top, not both: hcas tvi ${zip}, or hcas tvi --top`);
      }
      if (zip === undefined) return runPagedList(io, TOP, options);
      const listOnly = Object.entries(TOP_ONLY)
        .filter(([option]) => options[option] !== undefined)
        .map(([, flag]) => flag);
      if (listOnly.length)
        throw new CliError(
          `${listOnly.join(' and ')} ${listOnly.length === 1 ? 'applies' : 'apply'} to the --top list only, not to one ZIP code: hcas tvi --top ${listOnly.join(' ')} ...`,
        );
      return showRecord(io, options, `tvi/${encodeURIComponent(zip)}/`, { zip: 'the ZIP argument' }, tviRoutes);
    });
}
