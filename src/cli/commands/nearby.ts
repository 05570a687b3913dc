import type { CommandIo } from '../../../core/command.ts';
import type { Command } from 'commander';
import { listOptions, runPagedList, sortOptions, type ListOptions, type ListSpec } from '../listing.ts';
import { SCORE_LIST_SORT_KEYS, SCORE_RECORD_FIELDS } from './scores.ts';

/**
 * The scored ZIP codes around a ZIP code: the health-scores list asked `near` it, so it pages like every other
 * list (`--page`, `--page-size`, `--all`) and has every field of a score record; `--limit N` reads the first N.
 */
const NEARBY: ListSpec = {
  path: 'health-scores/',
  noun: ['ZIP code', 'ZIP codes'],
  parameters: { near: 'near', radius: 'radius', scoreType: 'score_type', sort: 'sort', page: 'page', pageSize: 'page_size' },
  tableColumns: [{ key: 'zip_code' }, { key: 'city' }, { key: 'state' }, { key: 'healthscore' }, { key: 'label' }, { key: 'population' }],
  fields: SCORE_RECORD_FIELDS,
  flagNames: { near: 'the ZIP argument' },
};

/** `hcas nearby ZIP`: scored ZIPs around a ZIP, nearest first, the ZIP itself first at 0 miles. */
export function registerNearby(program: Command, io: CommandIo): void {
  const command = program
    .command('nearby')
    .description('List the scored ZIP codes within a radius of a ZIP code (great-circle miles), nearest first, a page at a time or --all')
    .argument('<zip>', '5-digit ZIP code (or ZIP+4); it is listed first, at 0 miles, when it has a score')
    .option('--radius <miles>', 'search radius in miles, at most 100 (default 10)')
    .option('--score-type <id|slug>', 'score type id (1-11) or slug, e.g. asthma (default: overall; hcas score-types lists them)')
    .option('--limit <n>', 'the nearest N ZIP codes, read page after page (any number)');
  sortOptions(command, SCORE_LIST_SORT_KEYS, 'distance_miles, nearest first');
  listOptions(command, { paged: true })
    .addHelpText(
      'after',
      [
        '',
        'The same list as hcas scores --near ZIP (API: health-scores/?near=ZIP&radius=MILES).',
        '',
        'Examples:',
        '  hcas nearby 10001',
        '  hcas nearby 10001 --radius 25 --limit 80 --csv',
        '  hcas nearby 87102 --radius 50 --sort healthscore --page-size 10',
        '  hcas nearby 87102 --radius 100 --all --fields zip_code,distance_miles,healthscore,population > around-abq.tsv',
      ].join('\n'),
    )
    .action((zip: string, options: ListOptions) => runPagedList(io, NEARBY, { ...options, near: zip }));
}
