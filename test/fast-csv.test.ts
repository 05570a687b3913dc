import { Readable } from 'node:stream';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { splitRecords } from './helpers/fast-csv.ts';
import { seeded as prng } from './helpers/seeded.ts';

async function split(text: string, chunkSize: number, options = { delimiter: ',', quote: true }) {
  const bytes = Buffer.from(text);
  const chunks: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += chunkSize) chunks.push(bytes.subarray(i, i + chunkSize));
  const out: Array<{ line: number; values: string[] }> = [];
  for await (const batch of splitRecords(Readable.from(chunks), options)) out.push(...batch);
  return out;
}

describe('fast CSV splitter agrees with csv-parse (the reference)', () => {
  const alphabet = ['a', 'b', 'é', '漢', ' ', ',', '"', '\n', '\r\n', 'x'];
  it.each([1, 2, 3, 4, 5, 6, 7, 8])('random RFC 4180 documents, seed %i, any chunk boundary', async (seed) => {
    const random = prng(seed);
    const field = () => {
      const length = Math.floor(random() * 6);
      const text = Array.from({ length }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
      const mustQuote = /[",\r\n]/.test(text);
      return mustQuote || random() < 0.3 ? `"${text.replaceAll('"', '""')}"` : text;
    };
    const rows = Array.from({ length: 30 }, () => Array.from({ length: 1 + Math.floor(random() * 5) }, field).join(','));
    const newline = random() < 0.5 ? '\n' : '\r\n';
    const text = rows.filter((r) => r !== '').join(newline) + (random() < 0.5 ? newline : '');
    // The record delimiter is given: csv-parse's auto-detection can pick a CRLF seen inside a quoted field.
    const expected = parse(text, { relax_column_count: true, skip_empty_lines: true, record_delimiter: newline }) as string[][];
    for (const chunkSize of [1, 3, 7, 64, 1 << 16]) {
      const actual = await split(text, chunkSize);
      expect(actual.map((r) => r.values)).toEqual(expected);
    }
  });

  it('numbers records by the physical line they start on, counting newlines inside quotes', async () => {
    const records = await split('h1,h2\na,"multi\nline"\n\nb,c\n', 4);
    expect(records).toEqual([
      { line: 1, values: ['h1', 'h2'], fieldCount: 2 },
      { line: 2, values: ['a', 'multi\nline'], fieldCount: 2 },
      { line: 5, values: ['b', 'c'], fieldCount: 2 },
    ]);
  });

  it('keeps a stray quote literal in unquoted formats (tab-separated Census files)', async () => {
    const records = await split('GEOID\tNAME\n01001\tO"Brien "town\n', 5, { delimiter: '\t', quote: false });
    expect(records[1].values).toEqual(['01001', 'O"Brien "town']);
  });

  it('reports an unclosed quote at the end of the file as a row, never drops it', async () => {
    const records = await split('a,b\n1,"never closed\n', 3);
    expect(records[1].values).toEqual(['1', 'never closed\n']);
  });

  it('skips fields past maxFields but still finds every record boundary, even with quoted newlines in the tail', async () => {
    const text = 'a,b,c,d\n1,2,"x\ny",4\n5,6,7,8\n';
    const out: Array<[string[], number]> = [];
    for await (const batch of splitRecords(Readable.from([Buffer.from(text + '9,"q,r"\n')]), { delimiter: ',', quote: true, maxFields: 2 }))
      out.push(...batch.map((r) => [r.values, r.fieldCount] as [string[], number]));
    expect(out).toEqual([
      [['a', 'b'], 4],
      [['1', '2'], 4],
      [['5', '6'], 4],
      [['9', 'q,r'], 2],
    ]);
  });
});
