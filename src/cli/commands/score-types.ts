import { ScoreType } from '../../answers/reference.ts';
import { fieldsOf } from '../../http/json-schema.ts';
import { referenceCommand } from '../reference-command.ts';

/** `hcas score-types`: the 11 score types. */
export const registerScoreTypes = referenceCommand('score-types', 'score-types/', 'List the 11 score types', fieldsOf(ScoreType));
