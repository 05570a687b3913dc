import type { Command } from 'commander';
import type { HealthScoreRecord } from '../../query/health-scores.ts';
import type { Envelope } from '../../http/pagination.ts';
import { DEFAULT_DATABASE, getJson, openApi } from '../api-client.ts';
import { csv, json, outputFormat, qualityFooter, table, type OutputOptions } from '../format.ts';

const TABLE_COLUMNS = [
  { key: 'zip_code' }, { key: 'city' }, { key: 'state' }, { key: 'healthscore' }, { key: 'grade' }, { key: 'label' },
];
const CSV_COLUMNS = [
  'id', 'zip_code', 'state', 'state_name', 'city', 'latitude', 'longitude', 'healthscore', 'people_score', 'provider_score',
  'hospital_score', 'travel_score', 'label', 'grade', 'color', 'score_type', 'data_quality',
].map((key) => ({ key }));

/** Command options and the API parameters they become. */
const PARAMETERS = {
  state: 'state', city: 'city', minScore: 'min_score', maxScore: 'max_score', scoreType: 'score_type', page: 'page', pageSize: 'page_size',
} as const;

type ScoresOptions = OutputOptions & { db: string } & Partial<Record<keyof typeof PARAMETERS, string>>;

/** `hcas scores`: one page of the health-scores list. */
export function registerScores(program: Command): void {
  program
    .command('scores')
    .description('List health scores by ZIP code, filtered by state, city and score range, one page at a time')
    .option('--state <code>', 'two-letter state code')
    .option('--city <name>', 'city name (case-insensitive exact match)')
    .option('--min-score <n>', 'lowest score, 0-100')
    .option('--max-score <n>', 'highest score, 0-100')
    .option('--score-type <id|slug>', 'score type id (1-11) or slug, e.g. asthma (default: overall)')
    .option('--page <n>', 'page number from 1')
    .option('--page-size <n>', 'records per page, 1-100 (default 20)')
    .option('--db <file>', 'database to read', DEFAULT_DATABASE)
    .option('--json', 'print the whole page envelope as JSON')
    .option('--csv', "print the page's records as CSV")
    .addHelpText('after', '\nExamples:\n  hcas scores --state NY --min-score 70\n  hcas scores --state RI --score-type asthma --page 2 --csv')
    .action(async (options: ScoresOptions) => {
      const format = outputFormat(options);
      const query = new URLSearchParams();
      for (const [option, parameter] of Object.entries(PARAMETERS)) {
        const value = options[option as keyof typeof PARAMETERS];
        if (value !== undefined) query.set(parameter, value);
      }
      const flags = Object.fromEntries(Object.entries(PARAMETERS).map(([option, parameter]) => [parameter, `--${option.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`]));
      const api = openApi(options.db);
      try {
        const page = await getJson<Envelope<HealthScoreRecord>>(api, `health-scores/${query.size ? `?${query}` : ''}`, flags);
        const rows = page.results as unknown as Array<Record<string, unknown>>;
        if (format === 'json') process.stdout.write(json(page));
        else if (format === 'csv') process.stdout.write(csv(rows, CSV_COLUMNS));
        else process.stdout.write(table(rows, TABLE_COLUMNS) + footer(page, Number(options.page ?? 1)) + qualityFooter(page.results));
      } finally {
        api.retire();
      }
    });
}

function footer(page: Envelope<unknown>, number: number): string {
  const more = page.next ? `; next: --page ${number + 1}` : '';
  return `${page.count} matching ZIP code${page.count === 1 ? '' : 's'}, page ${number}${more}\n`;
}
