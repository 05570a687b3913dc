/** A JSON Schema (draft 2020-12, the dialect of OpenAPI 3.1). */
export type JsonSchema = { [keyword: string]: unknown };

declare const VALUE: unique symbol;

/**
 * A JSON Schema that also carries, for the compiler only, the TypeScript type of the values it accepts: an
 * answer's fields are written once, as its schema, and its type is read from it (`Infer`), so a field added
 * to one cannot be missing from the other.
 */
export type Schema<T> = JsonSchema & { readonly [VALUE]?: T };

/** Primitive JSON Schema type names and the values they accept. */
interface Primitives {
  string: string;
  integer: number;
  number: number;
  boolean: boolean;
  null: null;
  object: Record<string, unknown>;
  array: unknown[];
}

/**
 * The TypeScript type of what `S` accepts: the type a builder recorded (`record`, `arrayOf`, `nullable`,
 * `refTo`), else read from the keywords of a literal schema: `const`, `enum`, `oneOf`, or `type` (one name or a
 * list).
 */
export type Infer<S> = S extends { readonly [VALUE]?: infer T } ? (unknown extends T ? FromKeywords<S> : T) : FromKeywords<S>;

type FromKeywords<S> = S extends { const: infer C }
  ? C
  : S extends { enum: ReadonlyArray<infer E> }
    ? E
    : S extends { oneOf: ReadonlyArray<infer Each> }
      ? Infer<Each>
      : S extends { type: 'array'; items: infer Item }
        ? Array<Infer<Item>>
        : S extends { type: infer T }
          ? T extends keyof Primitives
            ? Primitives[T]
            : T extends ReadonlyArray<infer Each>
              ? Each extends keyof Primitives
                ? Primitives[Each]
                : never
              : unknown
          : unknown;

/** The type of a record's properties: each property's own. */
type RecordOf<P> = { -readonly [K in keyof P]: Infer<P[K]> };

/**
 * A closed object whose every property is required. Answers are described with closed records, so a field
 * added to a handler without its schema fails the test that validates real answers (test/openapi.test.ts).
 */
export function record<const P extends Record<string, JsonSchema>>(properties: P, description?: string): Schema<RecordOf<P>> {
  return {
    type: 'object',
    ...(description && { description }),
    properties,
    required: Object.keys(properties),
    additionalProperties: false,
  };
}

/** An object with these properties, every one required, that may carry others (an answer that grows at run time). */
export function openRecord<const P extends Record<string, JsonSchema>>(properties: P, description?: string): Schema<RecordOf<P>> {
  return { type: 'object', ...(description && { description }), properties, required: Object.keys(properties) };
}

/** The record with more properties, which answers may leave out (such as `zip_lookup`). */
export function withOptional<T, const P extends Record<string, JsonSchema>>(
  schema: Schema<T>,
  optional: P,
): Schema<T & Partial<RecordOf<P>>> {
  const plain: JsonSchema = schema;
  return { ...plain, properties: { ...(plain.properties as Record<string, JsonSchema>), ...optional } };
}

/** The same schema, also allowing null. */
export function nullable<const S extends JsonSchema>(schema: S): Schema<Infer<S> | null> {
  return { ...schema, type: [schema.type as string, 'null'] };
}

/** An array of `item`, optionally with a length range. */
export function arrayOf<const S extends JsonSchema>(
  item: S,
  limits: { minItems?: number; maxItems?: number } = {},
): Schema<Array<Infer<S>>> {
  return { type: 'array', items: item, ...limits };
}

/** The schema with a description (for a shared field that means something particular here). */
export function described<const S extends JsonSchema>(schema: S, description: string): S & { description: string } {
  return { ...schema, description };
}

/** A reference to a shared schema of the document (`components/schemas`). */
export function ref(name: string): JsonSchema {
  return { $ref: `#/components/schemas/${name}` };
}

/** A reference to the shared schema `name`, which is `shape`: the answer's type follows it. */
export function refTo<S extends JsonSchema>(name: string, _shape: S): Schema<Infer<S>> {
  return ref(name);
}

/** The property names of a record schema, in its order: the columns of a table of such records. */
export function fieldsOf(schema: JsonSchema): string[] {
  return Object.keys((schema as { properties: Record<string, JsonSchema> }).properties);
}
