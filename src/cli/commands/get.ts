import { pipeline } from 'node:stream/promises';
import type { Command } from 'commander';
import { DEFAULT_DATABASE, get, openApi, requestTarget } from '../api-client.ts';
import { CliError } from '../errors.ts';
import { limitsOptions, type LimitsCliOptions } from '../limits.ts';
import { localGate } from '../local-gate.ts';

/** `hcas get PATH`: the body the server would send, byte for byte, without a server. */
export function registerGet(program: Command): void {
  const command = program
    .command('get')
    .description('Print the JSON body the server sends for PATH (same handlers, no server needed)')
    .argument('<path>', 'API path, e.g. /api/v1/states/ or health-scores/10001/ (relative to /api/v1/)')
    .option('--db <file>', 'database to read', DEFAULT_DATABASE)
    .option('--key <key>', "answer as the server answers this API key: its plan's endpoints and quota (the call is not counted)")
    .option('--anonymous', "answer as the server answers a caller without a key who has calls left: the anonymous tier's endpoints");
  limitsOptions(command)
    .addHelpText('after', [
      '',
      'The output is exactly the response body (compact JSON ending in a newline). An error response is',
      'printed too, and the exit code is 1 for a 4xx or 5xx status.',
      'Without --key or --anonymous, the local reader sees every endpoint and nothing is counted; with them,',
      'the same 401, 403 and 429 bodies as the server (quota read from the state, never added to).',
      '',
      'Examples:',
      '  hcas get /api/v1/health-scores/10001/',
      "  hcas get 'health-scores/?state=NY&min_score=70' | jq .count",
      '  hcas get health-scores/10001/all-scores/ --anonymous      # the 403 a caller without a key gets',
    ].join('\n'))
    .action(async (path: string, options: LimitsCliOptions & { db: string; key?: string; anonymous?: boolean }) => {
      if (options.key !== undefined && options.anonymous) throw new CliError('choose one of --key and --anonymous');
      const api = openApi(options.db);
      const gate = options.key !== undefined || options.anonymous ? await localGate(options) : undefined;
      try {
        const headers: Record<string, string> = options.key === undefined ? {} : { 'x-api-key': options.key };
        const response = gate ? await gate.respond(api, { method: 'GET', url: requestTarget(path), headers }) : await get(api, path);
        // Exports stream: written as fast as stdout takes them, so memory stays flat whatever their size.
        if (response.stream) await pipeline(response.stream, process.stdout, { end: false });
        else process.stdout.write(response.body);
        if (response.status >= 400) {
          throw new CliError(`GET ${requestTarget(path)} answered ${response.status} (the error body is on stdout)`);
        }
      } finally {
        api.retire();
        await gate?.close();
      }
    });
}
