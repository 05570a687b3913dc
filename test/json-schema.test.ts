import { describe, expect, expectTypeOf, it } from 'vitest';
import type { HealthScoreRecord } from '../src/answers/health-scores.ts';
import { arrayOf, described, fieldsOf, nullable, openRecord, record, refTo, withOptional, type Infer } from '../src/http/json-schema.ts';
import { fieldsInOrder } from '../src/cli/listing.ts';

/**
 * One shape per answer: an answer's fields are written once, as its JSON Schema (src/answers), and its
 * TypeScript type is read from it. These types are checked by `tsc --noEmit` (npm test runs it): a schema
 * and the type read from it cannot disagree.
 */
describe('typed JSON Schemas', () => {
  const Point = record({ x: { type: 'number' }, label: nullable({ type: 'string' }), kind: { enum: ['a', 'b'] } });
  const Shape = record({
    id: { type: 'integer', minimum: 1 },
    points: arrayOf(Point),
    tag: { const: 'shape' },
    nested: refTo('Point', Point),
    either: { oneOf: [Point, { type: 'null' }] },
    note: described({ type: 'string' }, 'a note'),
  });

  it('reads the type of an answer from its schema', () => {
    type Point = { x: number; label: string | null; kind: 'a' | 'b' };
    expectTypeOf<Infer<typeof Point>>().toEqualTypeOf<Point>();
    expectTypeOf<Infer<typeof Shape>>().toEqualTypeOf<{
      id: number;
      points: Point[];
      tag: 'shape';
      nested: Point;
      either: Point | null;
      note: string;
    }>();
    expectTypeOf<Infer<typeof HealthScoreRecord>['provider_score']>().toEqualTypeOf<number | null>();
    expectTypeOf<Infer<typeof HealthScoreRecord>['data_quality']['components']['provider']>().toEqualTypeOf<
      'measured' | 'estimated' | 'sample' | 'missing'
    >();
  });

  it('writes the JSON Schema it types: closed records, nullable types, optional extras', () => {
    expect(Point).toEqual({
      type: 'object',
      properties: { x: { type: 'number' }, label: { type: ['string', 'null'] }, kind: { enum: ['a', 'b'] } },
      required: ['x', 'label', 'kind'],
      additionalProperties: false,
    });
    expect(openRecord({ a: { type: 'string' } })).toEqual({ type: 'object', properties: { a: { type: 'string' } }, required: ['a'] });
    const extra = withOptional(Point, { more: { type: 'string' } });
    expect(extra.required).toEqual(['x', 'label', 'kind']);
    expect(fieldsOf(extra)).toEqual(['x', 'label', 'kind', 'more']);
    expectTypeOf<Infer<typeof extra>>().toEqualTypeOf<Infer<typeof Point> & { more?: string }>();
  });

  it('holds a command to every field of its answer, whatever order it prints them in', () => {
    expect(fieldsInOrder(Point, ['kind', 'x', 'label'])).toEqual(['kind', 'x', 'label']);
    expect(() => fieldsInOrder(Point, ['kind', 'x'])).toThrow(/not the answer's fields x, label, kind/);
    expect(() => fieldsInOrder(Point, ['kind', 'x', 'label', 'y'])).toThrow();
  });
});
