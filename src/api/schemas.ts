import { arrayOf, nullable, record, type JsonSchema } from '../http/json-schema.ts';

/**
 * JSON Schemas (draft 2020-12) of the fields several answers share. Each endpoint module describes its own
 * answers with these and publishes its shared records (openapi.json `components/schemas`); test/openapi.test.ts
 * checks real answers against them.
 */

export const string: JsonSchema = { type: 'string' };
export const integer: JsonSchema = { type: 'integer' };
export const number: JsonSchema = { type: 'number' };
export const boolean: JsonSchema = { type: 'boolean' };
export const zipCode: JsonSchema = { type: 'string', pattern: '^[0-9]{5}$' };
export const stateCode: JsonSchema = { type: 'string', pattern: '^[A-Z]{2}$' };
export const score: JsonSchema = { type: 'integer', minimum: 0, maximum: 100 };
export const color: JsonSchema = { type: 'string', pattern: '^#[0-9a-f]{6}$' };

/** A count that is null when the build could not count (clinicians without a provider component). */
export const nullableCount: JsonSchema = nullable({ type: 'integer', minimum: 0 });

/** The provider component: null when the build publishes none (partial provider coverage; data_quality says why). */
export const providerScore: JsonSchema = nullable(score);

/** What a score rests on (decisions.md, "Scores"; docs/api.md, "Data quality"). */
export const dataQuality: JsonSchema = record(
  {
    components: record({
      people: { enum: ['measured', 'estimated'], description: '`estimated` when a census need measure took the national median.' },
      provider: {
        enum: ['measured', 'sample', 'missing'],
        description: '`sample`: from a declared uniform sample, scaled up; `missing`: the build publishes no provider component.',
      },
      hospital: { const: 'measured' },
      travel: { const: 'measured' },
    }),
    small_population: {
      type: 'boolean',
      description: "Fewer residents than the build's threshold (100): kept out of rankings, state averages and top-vulnerable lists.",
    },
    travel_times: {
      enum: ['road', 'straight_line'],
      description:
        'Whether the travel minutes come from a road-network table that describes the residents\' trip, or from straight-line miles (docs/METHODOLOGY.md, "Drive times").',
    },
    location: {
      enum: ['residents', 'area'],
      description:
        "Where the ZIP's distances are measured from, and what its latitude and longitude are: `residents`, the mean point of its residential addresses (HUD); `area`, the middle of its area (the Census Gazetteer's internal point) where no residents' point is known.",
    },
    prevalence: {
      enum: ['used', 'missing', 'none'],
      description: "The score type's CDC PLACES measure: used, missing (from the build or the ZIP), or none for this score type.",
    },
    imputed: { ...arrayOf(string), description: 'Census need measures without a value for the ZIP (the national median stands in).' },
    note: { type: 'string', description: 'What the above means, in plain words.' },
  },
  'What the score rests on: which components are measured, missing or from a declared sample, and why.',
);
