import { arrayOf, described, nullable, record, refTo, withOptional, type Infer } from '../http/json-schema.ts';
import { color, componentColumnScores, DataQuality, integer, number, score, stateCode, string, zipCode } from './fields.ts';

/** A health score record (interface specification 2.2), with what it rests on (data_quality). */
export const HealthScoreRecord = withOptional(
  record(
    {
      id: integer,
      zip_code: zipCode,
      state: stateCode,
      state_name: string,
      city: string,
      latitude: described(
        number,
        "Where the ZIP's residents live: the mean point of its residential addresses (data_quality.location says when it is the middle of its area instead).",
      ),
      longitude: described(number, 'See latitude.'),
      population: described(
        nullable({ type: 'integer', minimum: 0 }),
        "The ZIP's residents (ACS total population); null when the ACS suppressed it.",
      ),
      healthscore: score,
      ...componentColumnScores,
      label: string,
      grade: string,
      color,
      score_type: string,
      data_quality: refTo('DataQuality', DataQuality),
    },
    'A health score record (interface specification 2.2), with what it rests on (data_quality).',
  ),
  {
    distance_miles: described(
      { type: 'number', minimum: 0 },
      'In a list asked with near=: great-circle miles from that ZIP code (2 decimals); absent otherwise.',
    ),
  },
);
export type HealthScoreRecord = Infer<typeof HealthScoreRecord>;

/** One score type's result for a ZIP (interface specification 2.3). */
export const ScoreSummary = record(
  { zip_code: zipCode, healthscore: score, label: string, grade: string, score_type: string },
  'One score type of a ZIP (2.3).',
);
export type ScoreSummary = Infer<typeof ScoreSummary>;

/** A nearby ZIP (interface specification 2.4). */
export const NearbyEntry = record(
  {
    zip_code: zipCode,
    city: string,
    state: stateCode,
    healthscore: score,
    label: string,
    distance_miles: { type: 'number', minimum: 0 },
  },
  'A nearby ZIP (2.4).',
);
export type NearbyEntry = Infer<typeof NearbyEntry>;

/** The GeoJSON of `health-scores/geojson/` (interface specification 2.5). */
export const GeoJsonCollection = record(
  {
    type: { const: 'FeatureCollection' },
    features: arrayOf(
      record({
        type: { const: 'Feature' },
        geometry: record({ type: { const: 'Point' }, coordinates: arrayOf(number, { minItems: 2, maxItems: 2 }) }),
        properties: record({ zip_code: zipCode, healthscore: score, label: string, color }),
      }),
    ),
  },
  'GeoJSON points, coordinates [longitude, latitude] (2.5).',
);
