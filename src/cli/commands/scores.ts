import type { CommandIo } from '../../../core/command.ts';
import type { Command } from 'commander';
import { HealthScoreRecord } from '../../answers/health-scores.ts';
import { fieldsOf } from '../../http/json-schema.ts';
import { listOptions, runPagedList, type ListOptions, type ListSpec } from '../listing.ts';

/** The fields of a score record, as the API answers them (the list and `compare` print the same record). */
export const SCORE_RECORD_FIELDS = fieldsOf(HealthScoreRecord);

const SCORES: ListSpec = {
  path: 'health-scores/',
  noun: ['ZIP code', 'ZIP codes'],
  parameters: {
    state: 'state',
    city: 'city',
    minScore: 'min_score',
    maxScore: 'max_score',
    scoreType: 'score_type',
    page: 'page',
    pageSize: 'page_size',
  },
  tableColumns: [{ key: 'zip_code' }, { key: 'city' }, { key: 'state' }, { key: 'healthscore' }, { key: 'grade' }, { key: 'label' }],
  fields: SCORE_RECORD_FIELDS,
};

/** `hcas scores`: the health-scores list, a page or every page. */
export function registerScores(program: Command, io: CommandIo): void {
  const command = program
    .command('scores')
    .description('List health scores by ZIP code, filtered by state, city and score range, a page at a time or --all')
    .option('--state <code>', 'two-letter state code')
    .option('--city <name>', 'city name (case-insensitive exact match)')
    .option('--min-score <n>', 'lowest score, 0-100')
    .option('--max-score <n>', 'highest score, 0-100')
    .option('--score-type <id|slug>', 'score type id (1-11) or slug, e.g. asthma (default: overall)');
  listOptions(command, { paged: true })
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        '  hcas scores --state NY --min-score 70',
        '  hcas scores --state RI --score-type asthma --page 2 --csv',
        '  hcas scores --state RI --all --fields zip_code,city,healthscore > ri.tsv',
      ].join('\n'),
    )
    .action((options: ListOptions) => runPagedList(io, SCORES, options));
}
