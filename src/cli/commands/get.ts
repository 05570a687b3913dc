import type { CommandIo } from '../../../core/command.ts';
import { pipeline } from 'node:stream/promises';
import type { Command } from 'commander';
import type { Api } from '../../api/index.ts';
import type { ApiResponse } from '../../http/response.ts';
import { DB_HELP, openApi, requestTarget } from '../api-client.ts';
import { CliError, EXIT, exitCodeOfStatus } from '../errors.ts';
import { limitsOptions, type LimitsCliOptions } from '../limits-options.ts';
import type { LocalGate } from '../local-gate.ts';
import { note } from '../output.ts';
import { ALL_ROUTES } from '../../api/index.ts';

/** As `curl -L` does by default, give up after this many redirects (the API sends at most one). */
const MAX_REDIRECTS = 5;

type GetOptions = LimitsCliOptions & { db?: string; key?: string; anonymous?: boolean };

/** `hcas get PATH`: the body the server would send, byte for byte, without a server. */
export function registerGet(program: Command, io: CommandIo): void {
  const command = program
    .command('get')
    .description('Print the JSON body the server sends for PATH (same handlers, no server needed)')
    .argument('<path>', 'API path, e.g. /api/v1/states/ or health-scores/10001/ (relative to /api/v1/)')
    .option('--db <file>', DB_HELP)
    .option('--key <key>', "answer as the server answers this API key: its plan's endpoints and quota (the call is not counted)")
    .option('--anonymous', "answer as the server answers a caller without a key who has calls left: the anonymous tier's endpoints");
  limitsOptions(command)
    .addHelpText(
      'after',
      [
        '',
        'The output is exactly the response body (compact JSON ending in a newline). A path without its trailing',
        'slash is followed to the path with it, as `curl -L` does, and stderr says so. An error response is printed',
        'too; the exit status is 1 for 404 (and 401, 403, 429), 2 for 400, 3 for a server error.',
        'Without --key or --anonymous, the local reader sees every endpoint and nothing is counted; with them,',
        'the same 401, 403 and 429 bodies as the server (quota read from --state-file, never added to).',
        '',
        'Examples:',
        '  hcas get /api/v1/health-scores/10001/',
        "  hcas get 'health-scores/?state=NY&min_score=70' | jq .count",
        "  hcas get 'exports/providers/?format=ndjson&state=RI' | head -2",
        '  hcas get health-scores/10001/ --anonymous      # what a caller without a key gets',
      ].join('\n'),
    )
    .action(async (path: string, options: GetOptions) => {
      if (options.key !== undefined && options.anonymous) throw new CliError('choose one of --key and --anonymous');
      if (options.stateFile !== undefined && options.key === undefined) {
        throw new CliError('--state-file is read only to check a --key: add --key KEY, or leave out --state-file');
      }
      if (options.plans !== undefined && options.key === undefined && !options.anonymous) {
        throw new CliError(
          '--plans applies with --key or --anonymous (without them the local reader sees every endpoint): add one, or leave out --plans',
        );
      }
      const api = openApi(options.db, io.env, ALL_ROUTES);
      // The gate and its key state load only when asked for (a plain `hcas get` is the one-shot bench/cli.ts times).
      const gate =
        options.key !== undefined || options.anonymous ? await (await import('../local-gate.ts')).localGate(options, io.env) : undefined;
      try {
        const headers: Record<string, string> = options.key === undefined ? {} : { 'x-api-key': options.key };
        const { response, url } = await follow(io, api, gate, requestTarget(path), headers);
        // Exports stream: written as fast as stdout takes them, so memory stays flat whatever their size.
        if (response.stream) await pipeline(response.stream, io.stdout, { end: false });
        else io.stdout.write(response.body);
        if (response.status >= 400) {
          throw new CliError(`GET ${url} answered ${response.status} (the error body is on stdout)`, exitCodeOfStatus(response.status));
        }
      } finally {
        api.retire();
        await gate?.close();
      }
    });
}

/** The answer to a GET of `url`, following the trailing-slash redirect (a 301 with `Location`) and saying so on stderr. */
async function follow(
  io: CommandIo,
  api: Api,
  gate: LocalGate | undefined,
  first: string,
  headers: Record<string, string>,
): Promise<{ response: ApiResponse; url: string }> {
  let url = first;
  for (let hops = 0; ; hops++) {
    const request = { method: 'GET', url, headers };
    const response = gate ? await gate.respond(api, request) : await api.respond(request);
    const location = response.headers.Location ?? response.headers.location;
    if (response.status < 300 || response.status >= 400 || location === undefined) return { response, url };
    if (hops === MAX_REDIRECTS) throw new CliError(`GET ${first} redirected more than ${MAX_REDIRECTS} times`, EXIT.data);
    note(io, `hcas: ${url} answered ${response.status}; following it to ${location}`);
    url = String(location);
  }
}
