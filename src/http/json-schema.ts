/** A JSON Schema (draft 2020-12, the dialect of OpenAPI 3.1). */
export type JsonSchema = { [keyword: string]: unknown };

/**
 * A closed object whose every property is required. Answers are described with closed records, so a field
 * added to a handler without its schema fails the test that validates real answers (test/openapi.test.ts).
 */
export function record(properties: Record<string, JsonSchema>, description?: string): JsonSchema {
  return {
    type: 'object',
    ...(description && { description }),
    properties,
    required: Object.keys(properties),
    additionalProperties: false,
  };
}

/** The same schema, also allowing null. */
export function nullable(schema: JsonSchema): JsonSchema {
  return { ...schema, type: [schema.type as string, 'null'] };
}

/** An array of `item`, optionally with a length range. */
export function arrayOf(item: JsonSchema, limits: { minItems?: number; maxItems?: number } = {}): JsonSchema {
  return { type: 'array', items: item, ...limits };
}

/** A reference to a shared schema of the document (`components/schemas`). */
export function ref(name: string): JsonSchema {
  return { $ref: `#/components/schemas/${name}` };
}
