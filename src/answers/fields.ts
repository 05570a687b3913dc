import { CLINICIAN_BASES } from '../../core/clinician-basis.ts';
import { COMPONENTS, componentColumn, isNullable, type Component, type NullableComponent } from '../../core/components.ts';
import { arrayOf, described, nullable, record, type Infer } from '../http/json-schema.ts';

/**
 * The fields several answers share, as JSON Schemas (draft 2020-12). Each answer's shape in src/answers is
 * written once, from these: the API publishes it (openapi.json), the query layer's and the CLI's types are
 * read from it, and test/openapi.test.ts checks real answers against it.
 */

export const string = { type: 'string' } as const;
export const integer = { type: 'integer' } as const;
export const number = { type: 'number' } as const;
export const boolean = { type: 'boolean' } as const;
export const zipCode = { type: 'string', pattern: '^[0-9]{5}$' } as const;
export const stateCode = { type: 'string', pattern: '^[A-Z]{2}$' } as const;
export const score = { type: 'integer', minimum: 0, maximum: 100 } as const;
export const color = { type: 'string', pattern: '^#[0-9a-f]{6}$' } as const;
/** A build id: the first 16 hex digits of a SHA-256. */
export const buildId = { type: 'string', pattern: '^[0-9a-f]{16}$' } as const;

/** A count that is null when the build could not count (clinicians without a provider component). */
export const nullableCount = nullable({ type: 'integer', minimum: 0 });

/** The provider component: null when the build publishes none (partial provider coverage; data_quality says why). */
export const providerScore = nullable(score);

/** Each component's score under its column (`people_score`, ...), in the components' order (core/components.ts). */
export const componentColumnScores = Object.fromEntries(
  COMPONENTS.map((c) => [componentColumn(c), isNullable(c) ? providerScore : score]),
) as { [C in Component as `${C}_score`]: C extends NullableComponent ? typeof providerScore : typeof score };
/** Each component's score under its name (`people`, ...), in the components' order (the widget's `components`). */
export const componentScores = Object.fromEntries(COMPONENTS.map((c) => [c, isNullable(c) ? providerScore : score])) as {
  [C in Component]: C extends NullableComponent ? typeof providerScore : typeof score;
};

/** What a score rests on (decisions.md, "Scores"; docs/api.md, "Data quality"). */
export const DataQuality = record(
  {
    components: record({
      people: { enum: ['measured', 'estimated'], description: '`estimated` when a census need measure took the national median.' },
      provider: {
        enum: ['measured', 'estimated', 'sample', 'missing'],
        description:
          '`measured`: from rosters or counts of clinicians; `estimated`: part of it from estimated categories (`clinicians`); `sample`: from a declared uniform sample, scaled up; `missing`: no provider component here (the build publishes none, or no source counts primary care in this ZIP).',
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
    imputed: described(arrayOf(string), 'Census need measures without a value for the ZIP (the national median stands in).'),
    clinicians: described(
      arrayOf(
        record({
          category: string,
          weight: number,
          basis: {
            enum: CLINICIAN_BASES,
            description:
              "Where the ZIP's clinicians of the category come from: `roster`, a file of every clinician (national NPPES); `sample`, a declared uniform sample of one, scaled up; `count`, clinicians counted for the county, tract or ZIP; `estimate`, a share of a total that includes them; `none`, no source (left out of the provider component).",
          },
        }),
      ),
      'The clinician categories the score type weighs, each with its weight and where this ZIP\'s clinicians of it come from (docs/METHODOLOGY.md, "Provider").',
    ),
    note: { type: 'string', description: 'What the above means, in plain words.' },
  },
  'What the score rests on: which components are measured, missing or from a declared sample, and why.',
);
export type DataQuality = Infer<typeof DataQuality>;
