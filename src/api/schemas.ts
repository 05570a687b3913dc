import type { JsonSchema } from '../http/json-schema.ts';

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
