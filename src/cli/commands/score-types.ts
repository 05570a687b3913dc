import { referenceCommand } from '../reference-command.ts';

/** `hcas score-types`: the 11 score types. */
export const registerScoreTypes = referenceCommand('score-types', 'score-types/', 'List the 11 score types', ['id', 'name', 'description']);
