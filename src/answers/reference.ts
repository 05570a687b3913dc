import { arrayOf, openRecord, record, type Infer } from '../http/json-schema.ts';
import { buildId, integer, score, stateCode, string } from './fields.ts';

/** A score type as `score-types/` publishes it (interface specification 2.15). */
export const ScoreType = record({ id: integer, name: string, description: string }, 'A score type (2.15).');
export type ScoreType = Infer<typeof ScoreType>;

/** A row of `states/` (interface specification 2.16). */
export const StateRecord = record(
  { state_code: stateCode, state_name: string, zip_count: integer, avg_healthscore: score },
  'A state (2.16).',
);
export type StateRecord = Infer<typeof StateRecord>;

/** A state ranking entry (interface specification 2.11). */
export const StateRanking = record(
  {
    rank: { type: 'integer', minimum: 1 },
    state: string,
    state_code: stateCode,
    avg_score: { type: 'integer', minimum: 0, maximum: 100 },
    label: string,
    grade: string,
    color: { type: 'string', pattern: '^#[0-9a-f]{6}$' },
    zip_count: { type: 'integer', minimum: 1 },
  },
  'A state ranking entry (2.11).',
);
export type StateRanking = Infer<typeof StateRanking>;

/**
 * What `meta/` publishes about a build; other `meta` keys (scoring config, local paths) stay internal. Open:
 * a server adds its live state.
 */
export const Meta = openRecord(
  {
    build_id: buildId,
    built_at: { type: 'string', format: 'date-time' },
    dataset: {},
    sources: arrayOf({ type: 'object' }),
    reconciliation: arrayOf({ type: 'object' }),
    row_counts: {},
    data_quality: { type: ['object', 'null'] },
    provider_coverage: { type: ['object', 'null'] },
    validation: { type: ['object', 'null'] },
  },
  'The dataset build: id (the prefix of every ETag), time, sources with vintages and row counts, reconciliation, ' +
    'what the scores rest on (data_quality, provider_coverage) and the validation report (docs/VALIDATION.md).',
);
export type Meta = Infer<typeof Meta>;
