import type { CommandIo } from '../../../core/command.ts';
import type { Command } from 'commander';
import { HealthScoreRecord } from '../../answers/health-scores.ts';
import { fieldsOf } from '../../http/json-schema.ts';
import { SCORE_LIST_SORTS } from '../../api/health-scores.ts';
import { listOptions, runPagedList, sortOptions, type ListOptions, type ListSpec } from '../listing.ts';

/** The fields of a score record, as the API answers them (the list and `compare` print the same record). */
export const SCORE_RECORD_FIELDS = fieldsOf(HealthScoreRecord);

/** What a list of score records sorts by (`--sort`). */
export const SCORE_LIST_SORT_KEYS: readonly string[] = SCORE_LIST_SORTS;

const SCORES: ListSpec = {
  path: 'health-scores/',
  noun: ['ZIP code', 'ZIP codes'],
  parameters: {
    state: 'state',
    city: 'city',
    minScore: 'min_score',
    maxScore: 'max_score',
    minPopulation: 'min_population',
    scoreType: 'score_type',
    near: 'near',
    radius: 'radius',
    sort: 'sort',
    page: 'page',
    pageSize: 'page_size',
  },
  tableColumns: [
    { key: 'zip_code' },
    { key: 'city' },
    { key: 'state' },
    { key: 'healthscore' },
    { key: 'grade' },
    { key: 'label' },
    { key: 'population' },
  ],
  fields: SCORE_RECORD_FIELDS,
};

/** `hcas scores`: the health-scores list, a page or every page. */
export function registerScores(program: Command, io: CommandIo): void {
  const command = program
    .command('scores')
    .description(
      'List health scores by ZIP code, filtered by state, city, score range, residents and distance, sorted, a page at a time or --all',
    )
    .option('--state <code>', 'two-letter state code, any case (hcas states lists those with data)')
    .option('--city <name>', 'city name (case-insensitive exact match)')
    .option('--min-score <n>', 'lowest score, 0-100')
    .option('--max-score <n>', 'highest score, 0-100')
    .option('--min-population <n>', 'fewest residents of a ZIP code (leaves out the small ones)')
    .option('--score-type <id|slug>', 'score type id (1-11) or slug, e.g. asthma (default: overall; hcas score-types lists them)')
    .option('--near <zip>', 'only ZIP codes within --radius miles of this one, nearest first, with distance_miles')
    .option('--radius <miles>', 'with --near: miles, at most 100 (default 10)');
  sortOptions(command, SCORE_LIST_SORT_KEYS, 'zip_code, or distance_miles with --near');
  listOptions(command, { paged: true })
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        '  hcas scores --state NY --min-score 70',
        '  hcas scores --state NM --sort healthscore --page-size 10      # the 10 worst-served ZIP codes of New Mexico',
        '  hcas scores --state NM --sort healthscore --min-population 1000 --page-size 10',
        '  hcas scores --near 87102 --radius 25 --sort healthscore --desc',
        '  hcas scores --state RI --score-type asthma --page 2 --csv',
        '  hcas scores --state RI --all --fields zip_code,city,healthscore,population > ri.tsv',
      ].join('\n'),
    )
    .action((options: ListOptions) => runPagedList(io, SCORES, options));
}
