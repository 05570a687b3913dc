import { referenceCommand } from '../reference-command.ts';

/** `hcas states`: states with scored ZIPs and their average score. */
export const registerStates = referenceCommand('states', 'states/', 'List the states with scored ZIP codes and their average overall score',
  [{ key: 'state_code' }, { key: 'state_name' }, { key: 'zip_count' }, { key: 'avg_healthscore' }]);
