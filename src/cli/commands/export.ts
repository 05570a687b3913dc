import { createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import type { Command } from 'commander';
import { DEFAULT_DATABASE, get, openApi } from '../api-client.ts';
import { CliError } from '../errors.ts';

const RESOURCES = ['health-scores', 'providers', 'facilities'];

/** `hcas export RESOURCE`: a bulk export, streamed to stdout or a file exactly as the server streams it. */
export function registerExport(program: Command): void {
  program
    .command('export')
    .description('Write every record of health-scores, providers or facilities as CSV or NDJSON (streamed: memory stays flat)')
    .argument('<resource>', RESOURCES.join(', '))
    .option('--format <format>', 'csv or ndjson', 'csv')
    .option('--state <code>', 'only this state')
    .option('--score-type <id|slug>', 'health-scores only: score type id (1-11) or slug (default: overall)')
    .option('--out <file>', 'write to this file instead of stdout')
    .option('--db <file>', 'database to read', DEFAULT_DATABASE)
    .addHelpText('after', '\nExamples:\n  hcas export providers --format csv > providers.csv\n  hcas export health-scores --state RI --score-type asthma --format ndjson --out ri-asthma.ndjson')
    .action(async (resource: string, options: { db: string; format: string; state?: string; scoreType?: string; out?: string }) => {
      if (!RESOURCES.includes(resource)) throw new CliError(`the resource must be one of ${RESOURCES.join(', ')}, got ${resource}`);
      if (options.scoreType !== undefined && resource !== 'health-scores') throw new CliError('--score-type applies to health-scores only');
      const query = new URLSearchParams({ format: options.format });
      if (options.state !== undefined) query.set('state', options.state);
      if (options.scoreType !== undefined) query.set('score_type', options.scoreType);
      const api = openApi(options.db);
      try {
        const response = await get(api, `exports/${resource}/?${query}`);
        if (!response.stream) {
          const body = JSON.parse(response.body.toString('utf8')) as { message?: string };
          const message = (body.message ?? `the API answered ${response.status}`).replace(/\bscore_type\b/g, '--score-type').replace(/\b(format|state)\b/g, '--$1');
          throw new CliError(message);
        }
        if (options.out) await pipeline(response.stream, createWriteStream(options.out));
        else await pipeline(response.stream, process.stdout, { end: false });
      } finally {
        api.retire();
      }
    });
}
