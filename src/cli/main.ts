import { Command, CommanderError } from 'commander';
import { BuildError } from '../../pipeline/errors.ts';
import { CliError } from './errors.ts';
import { registerBuild } from './commands/build.ts';
import { registerSample } from './commands/sample.ts';
import { registerServe } from './commands/serve.ts';
import { registerGet } from './commands/get.ts';
import { registerScore } from './commands/score.ts';
import { registerScores } from './commands/scores.ts';
import { registerNearby } from './commands/nearby.ts';
import { registerStates } from './commands/states.ts';
import { registerScoreTypes } from './commands/score-types.ts';
import { registerCensus } from './commands/census.ts';
import { registerCompare } from './commands/compare.ts';
import { registerExport } from './commands/export.ts';
import { registerTvi } from './commands/tvi.ts';
import { registerKeys } from './commands/keys.ts';
import { registerProviders } from './commands/providers.ts';
import { registerFacilities } from './commands/facilities.ts';
import { registerAutocomplete } from './commands/autocomplete.ts';
import { registerRankings } from './commands/rankings.ts';

/** Every command registers itself here; each lives in its own module under commands/. */
const COMMANDS: Array<(program: Command) => void> = [
  registerSample, registerBuild, registerServe, registerGet, registerScore, registerScores, registerNearby, registerStates, registerScoreTypes,
  registerTvi, registerCensus, registerCompare, registerExport, registerKeys,
  registerProviders, registerFacilities, registerAutocomplete, registerRankings,
];

/** Runs the `hcas` command line; returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  const program = new Command('hcas')
    .description('Healthcare Access Scoring Service: build scores from public data and serve them as a JSON API')
    .exitOverride()
    .showHelpAfterError('(run with --help for usage and an example)');
  for (const register of COMMANDS) register(program);
  try {
    await program.parseAsync(argv);
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    if (error instanceof CliError || error instanceof BuildError) {
      process.stderr.write(`hcas: ${error.message}\n`);
      return error instanceof CliError ? error.exitCode : 1;
    }
    throw error;
  }
}
