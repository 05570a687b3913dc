import { describe, expect, it } from 'vitest';
import { packRows, unpackRows } from '../pipeline/ingest/row-codec.ts';

/** Packs and unpacks as the reader's worker and main thread do (through structuredClone, as postMessage copies). */
const roundTrip = (rows: object[]) => {
  const packed = packRows(rows);
  return { packed, rows: packed ? unpackRows(structuredClone(packed)) : null };
};

describe('row codec (parsed rows between the reader worker and the main thread)', () => {
  it('returns provider-like rows equal to the ones packed, keys in order, text columns joined', () => {
    const rows = [
      { npi: '1234567893', firstName: 'Aisha', city: 'Los Angeles', taxonomy: '207Q00000X', taxonomies: ['207Q00000X', '208D00000X'] },
      { npi: '1245319599', firstName: '', city: 'Utqiagvik', taxonomy: null, taxonomies: [] },
      { npi: '1003000126', firstName: 'José', city: 'Añasco', taxonomy: '363L00000X', taxonomies: [''] },
    ];
    const { packed, rows: back } = roundTrip(rows);
    expect(back).toEqual(rows);
    expect(back!.map((r) => Object.keys(r as object))).toEqual(rows.map((r) => Object.keys(r)));
    expect(packed!.columns.map((c) => c.kind)).toEqual(['text', 'text', 'text', 'nullable', 'list']);
  });

  it('sends a column as plain values when its text holds a separator, or its values are numbers, booleans or mixed', () => {
    const rows = [
      { name: 'a\u001fb', items: ['x\u001ey'], year: 1999, telehealth: true, odd: '\u0000', mixed: 'x' },
      { name: 'plain', items: ['z'], year: null, telehealth: false, odd: null, mixed: 3 },
    ];
    const { packed, rows: back } = roundTrip(rows);
    expect(back).toEqual(rows);
    expect(packed!.columns.map((c) => c.kind)).toEqual(['values', 'values', 'values', 'values', 'values', 'values']);
  });

  it('keeps an empty batch, a single empty value, and refuses rows of different shapes', () => {
    expect(roundTrip([]).rows).toEqual([]);
    expect(roundTrip([{ a: '' }]).rows).toEqual([{ a: '' }]);
    expect(
      roundTrip([
        { a: '', b: [] },
        { a: '', b: [] },
      ]).rows,
    ).toEqual([
      { a: '', b: [] },
      { a: '', b: [] },
    ]);
    expect(packRows([{ a: '1' }, { b: '2' }])).toBeNull();
    expect(packRows([{ a: '1' }, { a: '2', b: '3' }])).toBeNull();
    expect(packRows([{ a: '1', b: '2' }, { a: '3' }])).toBeNull();
    // The same keys in another order: sent as they are, never put under the wrong key.
    expect(
      packRows([
        { a: '1', b: '2' },
        { b: '3', a: '4' },
      ]),
    ).toBeNull();
  });
});
