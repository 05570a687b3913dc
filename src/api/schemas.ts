import { ERROR_CODES, type JsonSchema } from '../http/openapi.ts';
import { exportColumns, type ExportKind, type ExportName } from '../query/exports.ts';
import { CENSUS_GROUPS } from './census.ts';
import { TIER_NAMES } from './tvi.ts';

/**
 * JSON Schemas (draft 2020-12) of every body the API sends, published in openapi.json under
 * `components/schemas` and checked against real answers by test/openapi.test.ts. Records are closed
 * (`additionalProperties: false`), so a field added to a handler without its schema fails that test.
 */

const string: JsonSchema = { type: 'string' };
const integer: JsonSchema = { type: 'integer' };
const number: JsonSchema = { type: 'number' };
const boolean: JsonSchema = { type: 'boolean' };
const zipCode: JsonSchema = { type: 'string', pattern: '^[0-9]{5}$' };
const stateCode: JsonSchema = { type: 'string', pattern: '^[A-Z]{2}$' };
const score: JsonSchema = { type: 'integer', minimum: 0, maximum: 100 };
const subScore: JsonSchema = { type: 'number', minimum: 0, maximum: 100 };
const color: JsonSchema = { type: 'string', pattern: '^#[0-9a-f]{6}$' };
const tier: JsonSchema = { type: 'string', enum: TIER_NAMES };
const nullable = (schema: JsonSchema): JsonSchema => ({ ...schema, type: [schema.type as string, 'null'] });
const link: JsonSchema = { type: ['string', 'null'], description: 'Relative link that keeps every other parameter; null when there is none.' };

/** A closed object whose every property is required. */
function record(properties: Record<string, JsonSchema>, description?: string): JsonSchema {
  return { type: 'object', ...(description && { description }), properties, required: Object.keys(properties), additionalProperties: false };
}

/** A reference to a shared schema. */
export function ref(name: string): JsonSchema {
  return { $ref: `#/components/schemas/${name}` };
}

/** The pagination envelope (interface specification 2.1) of `item` records. */
export function envelopeOf(item: JsonSchema): JsonSchema {
  return record({ count: { type: 'integer', minimum: 0 }, next: link, previous: link, results: { type: 'array', items: item } });
}

export function arrayOf(item: JsonSchema, limits: { minItems?: number; maxItems?: number } = {}): JsonSchema {
  return { type: 'array', items: item, ...limits };
}

const censusSources: JsonSchema = {
  type: 'array',
  description: 'The sources the group\'s values came from (manifest keys), with their vintages, in manifest order; empty when every value is null.',
  items: record({ key: string, vintage: nullable(string) }),
};

function censusGroup(fields: Record<string, string>): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const [field, measure] of Object.entries(fields)) {
    properties[field] = { type: ['number', 'null'], description: `ACS measure \`${measure}\`; null when the source suppressed it or has no value.` };
  }
  return record({ ...properties, sources: censusSources });
}

const EXPORT_TYPES: Record<ExportKind, JsonSchema> = {
  text: string, integer, number, boolean, json: { type: 'array', items: string },
};

/** One NDJSON line of an export (a CSV row has the same columns, in this order). */
function exportRow(name: ExportName): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const column of exportColumns(name)) {
    const type = EXPORT_TYPES[column.kind];
    properties[column.name] = column.nullable ? nullable(type) : type;
  }
  return record(properties, `One record of exports/${name}/: an NDJSON line, or a CSV row with these columns in this order.`);
}

/** Every shared schema, by name. */
export const SCHEMAS: Record<string, JsonSchema> = {
  Error: record({ error: { type: 'string', enum: ERROR_CODES }, message: string, status: { type: 'integer', minimum: 400, maximum: 599 } }, 'The one error body (interface specification 2.18).'),
  HealthScoreRecord: record({
    id: integer, zip_code: zipCode, state: stateCode, state_name: string, city: string, latitude: number, longitude: number,
    healthscore: score, people_score: score, provider_score: score, hospital_score: score, travel_score: score,
    label: string, grade: string, color, score_type: string,
  }, 'A health score record (interface specification 2.2).'),
  ScoreSummary: record({ zip_code: zipCode, healthscore: score, label: string, grade: string, score_type: string }, 'One score type of a ZIP (2.3).'),
  NearbyEntry: record({ zip_code: zipCode, city: string, state: stateCode, healthscore: score, label: string, distance_miles: { type: 'number', minimum: 0 } }, 'A nearby ZIP (2.4).'),
  GeoJsonCollection: record({
    type: { const: 'FeatureCollection' },
    features: arrayOf(record({
      type: { const: 'Feature' },
      geometry: record({ type: { const: 'Point' }, coordinates: arrayOf(number, { minItems: 2, maxItems: 2 }) }),
      properties: record({ zip_code: zipCode, healthscore: score, label: string, color }),
    })),
  }, 'GeoJSON points, coordinates [longitude, latitude] (2.5).'),
  ScoreType: record({ id: integer, name: string, description: string }, 'A score type (2.15).'),
  StateRecord: record({ state_code: stateCode, state_name: string, zip_count: integer, avg_healthscore: score }, 'A state (2.16).'),
  Meta: {
    type: 'object',
    description: 'The dataset build: id (the prefix of every ETag), time, sources with vintages and row counts, reconciliation.',
    properties: {
      build_id: { type: 'string', pattern: '^[0-9a-f]{16}$' }, built_at: { type: 'string', format: 'date-time' }, dataset: {},
      sources: arrayOf({ type: 'object' }), reconciliation: arrayOf({ type: 'object' }), row_counts: {},
    },
    required: ['build_id', 'built_at', 'dataset', 'sources', 'reconciliation', 'row_counts'],
  },
  TviRecord: record({
    zip_code: zipCode, tvi_score: score, tvi_tier: tier, vehicle_score: subScore, transit_score: subScore, facility_distance_score: subScore,
    population_vulnerability_score: subScore, health_outcome_score: subScore,
    health_outcome_basis: { type: 'string', enum: ['places', 'disability_fallback'], description: 'What the health outcome sub-score ranks: CDC PLACES prevalence, or the disability share where PLACES has no value.' },
    zero_vehicle_pct: nullable({ type: 'number', minimum: 0, maximum: 100 }), nearest_hospital_miles: nullable({ type: 'number', minimum: 0 }),
    population: nullable({ type: 'integer', minimum: 0 }),
  }, 'The Transportation Vulnerability Index of a ZIP (2.13); sub-scores are percentile ranks, higher = more vulnerable.'),
  TviListEntry: record({
    zip_code: zipCode, city: string, state: stateCode, tvi_score: score, tvi_tier: tier,
    zero_vehicle_pct: nullable({ type: 'number', minimum: 0, maximum: 100 }), nearest_hospital_miles: nullable({ type: 'number', minimum: 0 }),
  }, 'A ZIP in the most-vulnerable list (2.14).'),
  TviRankings: record({
    metros: arrayOf(record({
      rank: { type: 'integer', minimum: 1 }, cbsa_code: { type: 'string', pattern: '^[0-9]{5}$' }, cbsa_title: string,
      cbsa_type: { type: 'string', enum: ['Metro', 'Micro'] }, tvi_score: { type: 'number', minimum: 0, maximum: 100 }, tvi_tier: tier,
      zip_count: { type: 'integer', minimum: 1 }, population: { type: 'integer', minimum: 0 },
    })),
    zip_codes: arrayOf(record({ rank: { type: 'integer', minimum: 1 }, zip_code: zipCode, city: string, state: stateCode, tvi_score: score, tvi_tier: tier })),
  }, 'Metro/micro areas (population-weighted TVI, one decimal) and ZIP codes, most vulnerable first.'),
  Census: record({
    zip_code: zipCode, city: string, state: stateCode,
    ...Object.fromEntries(Object.entries(CENSUS_GROUPS).map(([group, fields]) => [group, censusGroup(fields)])),
  }, 'ACS values of a ZIP by group; each field name carries its unit (_pct 0-100, _usd, _years; counts otherwise).'),
  WidgetScore: record({
    zip_code: zipCode, city: string, state: stateCode, score, label: string, grade: string, color,
    summary: { type: 'string', description: 'One plain-English sentence about the score and what lies within 10 miles.' },
    nearest_hospital: { oneOf: [record({ id: integer, name: string, distance_miles: { type: 'number', minimum: 0 } }), { type: 'null' }] },
    within_10_miles: record({ hospitals: { type: 'integer', minimum: 0 }, primary_care_clinicians: { type: 'integer', minimum: 0 } }),
    components: record({ people: score, provider: score, hospital: score, travel: score }),
    report_url: { type: 'string', description: 'Path of the full score record, relative to this server.' },
    white_label: { type: 'boolean', description: 'True when the caller\'s plan has the white-label widget: show no hcas branding.' },
    attribution: record({ text: string, url: { type: 'string', description: 'Path relative to this server.' } }),
  }, 'The overall score as the embeddable widget shows it.'),
  BlogPostSummary: record({ id: integer, title: string, slug: string, excerpt: string, published_at: { type: 'string', format: 'date-time' } }, 'A blog post summary (2.17).'),
  BlogPost: record({ id: integer, title: string, slug: string, excerpt: string, published_at: { type: 'string', format: 'date-time' }, html: string }, 'A blog post with its body as HTML.'),
  HealthScoreExportRow: exportRow('health-scores'),
  ProviderExportRow: exportRow('providers'),
  FacilityExportRow: exportRow('facilities'),
  OpenApiDocument: { type: 'object', required: ['openapi', 'info', 'paths'], properties: { openapi: { const: '3.1.0' }, info: { type: 'object' }, paths: { type: 'object' } }, description: 'This document.' },
};
