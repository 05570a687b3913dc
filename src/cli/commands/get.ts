import type { Command } from 'commander';
import { DEFAULT_DB, get, openApi, requestTarget } from '../api-client.ts';
import { CliError } from '../errors.ts';

/** `hcas get PATH`: the body the server would send, byte for byte, without a server. */
export function registerGet(program: Command): void {
  program
    .command('get')
    .description('Print the JSON body the server sends for PATH (same handlers, no server needed)')
    .argument('<path>', 'API path, e.g. /api/v1/states/ or health-scores/10001/ (relative to /api/v1/)')
    .option('--db <file>', 'database to read', DEFAULT_DB)
    .addHelpText('after', [
      '',
      'The output is exactly the response body (compact JSON ending in a newline). An error response is',
      'printed too, and the exit code is 1 for a 4xx or 5xx status.',
      '',
      'Examples:',
      '  hcas get /api/v1/health-scores/10001/',
      "  hcas get 'health-scores/?state=NY&min_score=70' | jq .count",
    ].join('\n'))
    .action(async (path: string, options: { db: string }) => {
      const api = openApi(options.db);
      try {
        const response = await get(api, path);
        process.stdout.write(response.body);
        if (response.status >= 400) {
          throw new CliError(`GET ${requestTarget(path)} answered ${response.status} (the error body is on stdout)`);
        }
      } finally {
        api.retire();
      }
    });
}
