import { referenceCommand } from '../reference-command.ts';

/** `hcas states`: the states with scored ZIP codes. */
export const registerStates = referenceCommand(
  'states',
  'states/',
  'List the states with scored ZIP codes and their average overall score',
  ['state_code', 'state_name', 'zip_count', 'avg_healthscore'],
);
