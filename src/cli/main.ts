import { Command, CommanderError } from 'commander';
import type { CommandEntry } from '../../core/command.ts';
import { FixableError } from '../../core/errors.ts';

/**
 * Runs the `hcas` command line over a command table (bin/hcas.js passes the pipeline's and the API's);
 * returns the exit code. Only the module of the command named in `argv` is loaded; help, a missing or an
 * unknown command loads them all, so commander can list them or suggest one.
 */
export async function main(argv: string[], commands: readonly CommandEntry[]): Promise<number> {
  const program = new Command('hcas')
    .description('Healthcare Access Scoring Service: build scores from public data and serve them as a JSON API')
    .exitOverride()
    .showHelpAfterError('(run with --help for usage and an example)');
  const named = commands.filter((entry) => entry.names.includes(argv[2]));
  for (const entry of named.length > 0 ? named : commands) (await entry.load())(program);
  try {
    await program.parseAsync(argv);
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    if (error instanceof FixableError) {
      process.stderr.write(`hcas: ${error.message}\n`);
      return error.exitCode;
    }
    throw error;
  }
}
