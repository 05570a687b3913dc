import type { CommandIo } from '../../../core/command.ts';
import { createWriteStream } from 'node:fs';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Command } from 'commander';
import { countProgress, LOG_FORMAT_HELP, progressMode, type CountProgress } from '../../../core/progress.ts';
import type { Envelope } from '../../http/pagination.ts';
import { apiError, DB_HELP, get, getJson, openApi } from '../api-client.ts';
import { CliError } from '../errors.ts';
import { ALL_ROUTES } from '../../api/index.ts';

const RESOURCES = ['health-scores', 'providers', 'facilities'];
const FLAGS = { score_type: '--score-type', format: '--format', state: '--state' };

interface ExportOptions {
  db?: string;
  format: string;
  state?: string;
  scoreType?: string;
  out?: string;
  quiet?: boolean;
  logFormat?: string;
}

/** `hcas export RESOURCE`: a bulk export, streamed to stdout or a file exactly as the server streams it. */
export function registerExport(program: Command, io: CommandIo): void {
  program
    .command('export')
    .description('Write every record of health-scores, providers or facilities as CSV or NDJSON (streamed: memory stays flat)')
    .argument('<resource>', RESOURCES.join(', '))
    .option('--format <format>', 'csv or ndjson', 'csv')
    .option('--state <code>', 'only this state')
    .option('--score-type <id|slug>', 'health-scores only: score type id (1-11) or slug (default: overall)')
    .option('--out <file>', 'write to this file instead of stdout')
    .option('--quiet', 'no progress')
    .option('--log-format <text|json>', LOG_FORMAT_HELP)
    .option('--db <file>', DB_HELP)
    .addHelpText(
      'after',
      [
        '',
        'Progress (records, rate, ETA) goes to stderr when the records go to a file or a pipe: a bar on a terminal,',
        'a line every 5 seconds otherwise.',
        '',
        'Examples:',
        '  hcas export providers --format csv > providers.csv',
        '  hcas export health-scores --state RI --score-type asthma --format ndjson --out ri-asthma.ndjson',
        '  hcas export facilities --format ndjson | jq -s length',
      ].join('\n'),
    )
    .action(async (resource: string, options: ExportOptions) => {
      if (!RESOURCES.includes(resource)) throw new CliError(`the resource must be one of ${RESOURCES.join(', ')}, got ${resource}`);
      if (options.scoreType !== undefined && resource !== 'health-scores') throw new CliError('--score-type applies to health-scores only');
      const mode = progressMode(options);
      const query = new URLSearchParams({ format: options.format });
      if (options.state !== undefined) query.set('state', options.state);
      if (options.scoreType !== undefined) query.set('score_type', options.scoreType);
      const api = openApi(options.db, io.env, ALL_ROUTES);
      try {
        const response = await get(api, `exports/${resource}/?${query}`);
        if (!response.stream) {
          const body = JSON.parse(response.body.toString('utf8')) as { message?: string };
          throw apiError(response.status, body.message, FLAGS);
        }
        // Progress only when the records go elsewhere than the terminal it would be drawn on.
        const showProgress = mode !== 'silent' && (options.out !== undefined || !io.stdout.isTTY);
        const progress = showProgress ? countProgress('records', { mode, stream: io.stderr })(`export ${resource}`) : null;
        const total = progress ? await recordCount(resource, query, api) : null;
        const counter = countRecords(options.format === 'csv' ? 1 : 0, total, progress);
        try {
          if (options.out) await pipeline(response.stream, counter, createWriteStream(options.out));
          else await pipeline(response.stream, counter, io.stdout, { end: false });
        } finally {
          progress?.done();
        }
      } finally {
        api.retire();
      }
    });
}

/** How many records the export holds: the `count` of the same list, for the progress's share and ETA. */
async function recordCount(
  resource: string,
  exportQuery: URLSearchParams,
  api: Awaited<ReturnType<typeof openApi>>,
): Promise<number | null> {
  const query = new URLSearchParams({ page_size: '1' });
  for (const name of ['state', 'score_type']) if (exportQuery.has(name)) query.set(name, exportQuery.get(name)!);
  try {
    return (await getJson<Envelope<unknown>>(api, `${resource}/?${query}`, FLAGS)).count;
  } catch {
    return null; // progress without a total still shows the count and the rate
  }
}

/** Passes the bytes through, counting records as lines (minus the CSV header) for the progress. */
function countRecords(headerLines: number, total: number | null, progress: CountProgress | null): Transform {
  let lines = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      if (progress) {
        for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) lines++;
        progress.update(Math.max(0, lines - headerLines), total);
      }
      done(null, chunk);
    },
  });
}
