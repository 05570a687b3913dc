import { StateRecord } from '../../answers/reference.ts';
import { fieldsOf } from '../../http/json-schema.ts';
import { referenceCommand } from '../reference-command.ts';

/** `hcas states`: the states with scored ZIP codes. */
export const registerStates = referenceCommand(
  'states',
  'states/',
  'List the states with scored ZIP codes and their average overall score',
  fieldsOf(StateRecord),
);
