import { record, refTo, type Infer } from '../http/json-schema.ts';
import { color, componentScores, DataQuality, integer, nullableCount, score, stateCode, string, zipCode } from './fields.ts';

/** The overall score as the embeddable widget shows it (`widget-score/{zip}/`). */
export const WidgetScore = record(
  {
    zip_code: zipCode,
    city: string,
    state: stateCode,
    score,
    label: string,
    grade: string,
    color,
    summary: { type: 'string', description: 'One plain-English sentence about the score and what lies within 10 miles.' },
    nearest_hospital: {
      oneOf: [record({ id: integer, name: string, distance_miles: { type: 'number', minimum: 0 } }), { type: 'null' }],
    },
    within_10_miles: record({ hospitals: { type: 'integer', minimum: 0 }, primary_care_clinicians: nullableCount }),
    components: record(componentScores),
    data_quality: refTo('DataQuality', DataQuality),
    report_url: { type: 'string', description: 'Path of the full score record, relative to this server.' },
    map_url: { type: 'string', description: 'Path of the map opened at this ZIP code (/map/#zip=...), relative to this server.' },
    white_label: { type: 'boolean', description: "True when the caller's plan has the white-label widget: show no hcas branding." },
    attribution: record({ text: string, url: { type: 'string', description: 'Path relative to this server.' } }),
  },
  'The overall score as the embeddable widget shows it.',
);
export type WidgetScore = Infer<typeof WidgetScore>;
