import type { JsonSchema } from '../http/openapi.ts';

/**
 * JSON Schemas of the provider, facility, autocomplete and rankings answers (openapi.json), inline in their
 * routes. Records are closed, like those of schemas.ts, so a field added to a handler without its schema shows.
 */

const string: JsonSchema = { type: 'string' };
const boolean: JsonSchema = { type: 'boolean' };
const stateCode: JsonSchema = { type: 'string', pattern: '^[A-Z]{2}$' };
const nullable = (schema: JsonSchema): JsonSchema => ({ ...schema, type: [schema.type as string, 'null'] });
const link: JsonSchema = { type: ['string', 'null'], description: 'Relative link that keeps every other parameter; null when there is none.' };

function record(properties: Record<string, JsonSchema>, description: string): JsonSchema {
  return { type: 'object', description, properties, required: Object.keys(properties), additionalProperties: false };
}

function envelope(item: JsonSchema): JsonSchema {
  return record({ count: { type: 'integer', minimum: 0 }, next: link, previous: link, results: { type: 'array', items: item } }, 'The pagination envelope (2.1).');
}

const providerFields = {
  npi: { type: 'string', pattern: '^[12][0-9]{9}$' },
  first_name: string,
  last_name: string,
  credential: { type: 'string', description: 'As the provider wrote it in NPPES (free text); empty when none.' },
  gender: { type: 'string', enum: ['M', 'F', ''], description: 'Empty when the source has none.' },
  primary_specialty: { type: 'string', description: 'NUCC specialization (or classification) of the primary taxonomy; the CMS specialty for clinicians known only from Doctors and Clinicians; empty when unknown.' },
  telehealth: boolean,
};

export const PROVIDER_SUMMARY = record(providerFields, 'A provider summary (2.6).');

export const PROVIDER_PROFILE = record({
  ...providerFields,
  medical_school: { ...nullable(string), description: 'Doctors and Clinicians; null when absent.' },
  residency: { type: 'null', description: 'Always null: no public source carries residency.' },
  graduation_year: { ...nullable({ type: 'integer' }), description: 'Doctors and Clinicians; null when absent.' },
  facility_names: { type: 'array', items: string, description: 'Facility and hospital affiliations from Doctors and Clinicians; empty when none.' },
}, 'A provider profile (2.7).');

const facilityFields = {
  id: { type: 'integer', minimum: 1 },
  facility_name: string,
  facility_type: { type: 'string', description: 'CMS hospital type when known, else the HIFLD type; Health Center for HRSA sites.' },
  city_name: string,
  state_name: string,
  state_code: stateCode,
  latitude: nullable({ type: 'number' }),
  longitude: nullable({ type: 'number' }),
  facility_rating: { ...nullable({ type: 'integer', minimum: 1, maximum: 5 }), description: 'CMS overall star rating; null when not rated.' },
  emergency_services: boolean,
  telehealth: { type: 'boolean', description: 'Always false: no facility source carries it.' },
};

export const FACILITY_SUMMARY = record(facilityFields, 'A facility summary (2.8).');

export const FACILITY_DETAIL = record({
  ...facilityFields,
  address: string,
  phone_number: string,
  website: { type: 'string', description: 'URL; empty when no source has one.' },
  staffed_beds: nullable({ type: 'integer', minimum: 0 }),
  provider_count: { type: 'integer', minimum: 0, description: 'Distinct clinicians that Doctors and Clinicians affiliates with the facility (same state).' },
}, 'A facility detail (2.9).');

export const SUGGESTIONS: JsonSchema = {
  type: 'array',
  maxItems: 10,
  items: record({
    type: { type: 'string', enum: ['zip', 'city', 'provider', 'facility'] },
    label: string,
    url: { type: 'string', description: 'The API path of the suggested record or list, relative to this server.' },
  }, 'An autocomplete suggestion (2.10).'),
};

export const STATE_RANKINGS: JsonSchema = {
  type: 'array',
  items: record({
    rank: { type: 'integer', minimum: 1 }, state: string, state_code: stateCode, avg_score: { type: 'integer', minimum: 0, maximum: 100 },
    label: string, grade: string, color: { type: 'string', pattern: '^#[0-9a-f]{6}$' }, zip_count: { type: 'integer', minimum: 1 },
  }, 'A state ranking entry (2.11).'),
};

export const HOSPITAL_RANKINGS: JsonSchema = {
  type: 'array',
  items: record({
    id: { type: 'integer', minimum: 1 }, rank: { type: 'integer', minimum: 1 }, facility_name: string, facility_type: string, city_name: string,
    state_name: string, state_code: stateCode, facility_rating: { type: 'integer', minimum: 1, maximum: 5 }, emergency_services: boolean, telehealth: boolean,
  }, 'A hospital ranking entry (2.12).'),
};

export const PROVIDERS_PAGE = envelope(PROVIDER_SUMMARY);
export const FACILITIES_PAGE = envelope(FACILITY_SUMMARY);
