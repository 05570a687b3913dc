import { Option, type Command } from 'commander';
import type { LimitsFlags } from '../auth/config.ts';
import { CliError } from './errors.ts';

// The flags alone, apart from src/cli/limits.ts (which opens the key state): `hcas get` registers them on
// every run but reads the state only with --key or --anonymous, and a one-shot command's startup is mostly
// the modules it loads (bench/cli.ts).

/** The limits flags of `serve`, `get` and `keys`, as commander parses them. */
export interface LimitsCliOptions extends LimitsFlags {
  /** `--state-file FILE`, passed on to src/auth as `state`. */
  stateFile?: string;
  /** False with `--no-limits`. */
  limits?: boolean;
}

/**
 * Adds `--state-file` (and `--plans`, `--trust-proxy` for the server, as asked) to a command. `--state` is a
 * two-letter state code everywhere else (providers, facilities, scores, export), so here it is refused with
 * the new name rather than read as a file.
 */
export function limitsOptions(command: Command, { server = false, plans = true } = {}): Command {
  command.option(
    '--state-file <file>',
    'key and counter state (default: Redis when REDIS_URL is set, else $HCAS_STATE or var/state.sqlite)',
  );
  command.addOption(
    new Option('--state <file>').hideHelp().argParser((value: string) => {
      const inPath = command.name() === 'get' ? `; to ask for one state, put it in the path: hcas get 'providers/?state=${value}'` : '';
      throw new CliError(`${commandPath(command)} has no --state: the key and counter state file is --state-file FILE${inPath}`);
    }),
  );
  if (plans) command.option('--plans <a|b|file>', 'plan file: preset a (default, or $HCAS_PLANS), preset b, or a JSON file');
  if (server)
    command.option(
      '--trust-proxy <addrs>',
      'proxies whose X-Forwarded-For is believed, e.g. 127.0.0.1,::1,10.0.0.0/8 (default: none, or $HCAS_TRUST_PROXY)',
    );
  // src/auth reads the file as `state` (LimitsFlags); the flag is spelt --state-file on the command line.
  command.hook('preAction', (_, action) => {
    const file = action.getOptionValue('stateFile') as string | undefined;
    if (file !== undefined) action.setOptionValue('state', file);
  });
  return command;
}

/** `hcas keys list`: the command as typed. */
function commandPath(command: Command): string {
  const names: string[] = [];
  for (let at: Command | null = command; at; at = at.parent) names.unshift(at.name());
  return names.join(' ');
}
