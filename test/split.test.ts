import { Readable } from 'node:stream';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { DelimitedReader } from '../pipeline/ingest/delimited.ts';
import { splitRecords } from './helpers/fast-csv.ts';
import { BatchBuilder, ByteSplitter, type SplitFormat } from '../pipeline/ingest/split.ts';
import { seeded as prng } from './helpers/seeded.ts';

interface Row {
  line: number;
  values: string[];
  fieldCount: number;
}

function chunksOf(text: string, chunkSize: number): Buffer[] {
  const bytes = Buffer.from(text);
  const chunks: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += chunkSize) chunks.push(bytes.subarray(i, i + chunkSize));
  return chunks;
}

/** The byte splitter fed chunk by chunk, as the reader does: unconsumed bytes are passed again with the next chunk. */
function splitBytes(text: string, chunkSize: number, format: SplitFormat, columns: number[]): Row[] {
  const splitter = new ByteSplitter(format, columns);
  const rows: Row[] = [];
  let pending: Uint8Array = new Uint8Array(0);
  const chunks = chunksOf(text, chunkSize);
  for (let c = 0; c <= chunks.length; c++) {
    const final = c === chunks.length;
    if (!final) pending = Buffer.concat([pending, chunks[c]]);
    const out = new BatchBuilder(columns.length, 1);
    const used = splitter.split(pending, 0, pending.length, final, out);
    const batch = out.take(pending);
    for (let i = 0; i < batch.count; i++)
      rows.push({ line: batch.line(i), fieldCount: batch.fieldCount(i), values: columns.map((_, slot) => batch.value(i, slot)) });
    pending = pending.slice(used);
  }
  return rows;
}

/** One split of bytes[0, end): where it stopped and each record's line, field count and values. */
function splitWindow(bytes: Uint8Array, end: number, final: boolean): { used: number; rows: Row[] } {
  const columns = range(4);
  const out = new BatchBuilder(columns.length, 1);
  const used = new ByteSplitter({ delimiter: ',', quote: true }, columns).split(bytes, 0, end, final, out);
  const batch = out.take(bytes);
  const rows = range(batch.count).map((i) => ({
    line: batch.line(i),
    fieldCount: batch.fieldCount(i),
    values: columns.map((_, slot) => batch.value(i, slot)),
  }));
  return { used, rows };
}

function randomText(random: () => number): string {
  const pieces = ['a', '"', ',', '\n', '\r', '""', 'b'];
  return Array.from({ length: 1 + Math.floor(random() * 8) }, () => pieces[Math.floor(random() * pieces.length)]).join('');
}

async function splitReference(text: string, chunkSize: number, format: SplitFormat): Promise<Row[]> {
  const rows: Row[] = [];
  for await (const batch of splitRecords(Readable.from(chunksOf(text, chunkSize)), format)) rows.push(...batch);
  return rows;
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

describe('byte splitter agrees with csv-parse and with the string splitter it replaced', () => {
  const alphabet = ['a', 'b', 'é', '漢', ' ', ',', '"', '\n', '\r\n', '\r', 'x', '""'];
  it.each(range(12).map((i) => i + 1))(
    'random documents with quotes, newlines, CR, stray quotes, seed %i, any chunk boundary',
    async (seed) => {
      const random = prng(seed);
      const field = () => {
        const length = Math.floor(random() * 6);
        const text = Array.from({ length }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
        if (/[",\r\n]/.test(text) || random() < 0.3) return `"${text.replaceAll('"', '""')}"` + (random() < 0.1 ? 'tail' : '');
        return text;
      };
      const rows = Array.from({ length: 30 }, () => Array.from({ length: 1 + Math.floor(random() * 6) }, field).join(','));
      const newline = random() < 0.5 ? '\n' : '\r\n';
      const text = (random() < 0.3 ? '\uFEFF' : '') + rows.join(newline) + (random() < 0.5 ? newline : random() < 0.5 ? ',' : '');
      const format = { delimiter: ',', quote: true };
      for (const chunkSize of [1, 2, 3, 7, 64, 1 << 16]) {
        // The string splitter misses a BOM split across its first chunks (never the case with real chunk sizes).
        if (text.startsWith('\uFEFF') && chunkSize < 3) continue;
        const reference = await splitReference(text, chunkSize, format);
        const columns = range(8);
        const actual = splitBytes(text, chunkSize, format, columns);
        expect(actual.map((r) => [r.line, r.fieldCount])).toEqual(reference.map((r) => [r.line, r.fieldCount]));
        expect(actual.map((r) => r.values.slice(0, r.fieldCount))).toEqual(reference.map((r) => r.values));
        // Selecting a few columns, in any order, gives those columns.
        const picked = splitBytes(text, chunkSize, format, [3, 0]);
        expect(picked.map((r) => r.values)).toEqual(reference.map((r) => [r.values[3] ?? '', r.values[0] ?? '']));
      }
    },
  );

  it.each(range(6).map((i) => i + 1))(
    'runs of empty quoted fields (most of an NPPES row), broken anywhere, seed %i, any chunk boundary',
    async (seed) => {
      // The splitter skips runs of `"",` by comparing words of four bytes; a run may end in any field, any
      // odd byte or the end of a chunk, and a near miss (`""x`, `"""`, `"",` then a newline) is no empty field.
      const random = prng(100 + seed);
      const oddities = ['"x"', '""x', '"""', '"a""b"', '"\n"', '', 'y', '"é"'];
      const field = () => (random() < 0.85 ? '""' : oddities[Math.floor(random() * oddities.length)]);
      const rows = Array.from({ length: 25 }, () => Array.from({ length: 1 + Math.floor(random() * 40) }, field).join(','));
      const newline = random() < 0.5 ? '\n' : '\r\n';
      const text = rows.join(newline) + (random() < 0.5 ? newline : random() < 0.5 ? ',' : '');
      const format = { delimiter: ',', quote: true };
      for (const chunkSize of [1, 2, 3, 4, 5, 7, 11, 13, 64, 1 << 16]) {
        const reference = await splitReference(text, chunkSize, format);
        const actual = splitBytes(text, chunkSize, format, range(1000)); // an unclosed quote joins rows
        expect(actual.map((r) => [r.line, r.fieldCount])).toEqual(reference.map((r) => [r.line, r.fieldCount]));
        expect(actual.map((r) => r.values.slice(0, r.fieldCount))).toEqual(reference.map((r) => r.values));
        // Columns selected after a run are found in the right place.
        const picked = splitBytes(text, chunkSize, format, [37, 9, 21]);
        expect(picked.map((r) => r.values)).toEqual(reference.map((r) => [r.values[37] ?? '', r.values[9] ?? '', r.values[21] ?? '']));
      }
    },
  );

  it('reads nothing past the end it is given, whatever bytes follow in the buffer', () => {
    // Reading past `end` was also slow: V8 compiles a typed-array read that may fall outside the array into
    // a slower form for the whole function (the splitter ran at half speed on the reader's own batches).
    const random = prng(7);
    for (const text of [
      'a,"b"',
      'a,"b"\r',
      'a,b\r',
      '"x""',
      'a,""',
      'a,',
      '\uFEFF',
      '"q"\r\nz',
      ...range(10).flatMap((n) => ['"",'.repeat(n), `${'"",'.repeat(n)}"`, `${'"",'.repeat(n)}""`]),
      ...range(200).map(() => randomText(random)),
    ]) {
      const exact = Buffer.from(text);
      for (const padding of ['"', '\n', '""', ',', '\r\n', '"",x']) {
        const padded = Buffer.concat([exact, Buffer.from(padding)]);
        for (const final of [true, false]) {
          const alone = splitWindow(exact, exact.length, final);
          expect(splitWindow(padded, exact.length, final), `${JSON.stringify(text)} + ${JSON.stringify(padding)}`).toEqual(alone);
        }
      }
    }
  });

  it('matches csv-parse on well-formed documents', async () => {
    const random = prng(99);
    for (let doc = 0; doc < 20; doc++) {
      const rows = Array.from({ length: 40 }, () =>
        Array.from({ length: 4 }, () => {
          const text = Array.from({ length: Math.floor(random() * 5) }, () => alphabet.slice(0, 10)[Math.floor(random() * 10)]).join('');
          return /[",\r\n]/.test(text) || random() < 0.3 ? `"${text.replaceAll('"', '""')}"` : text;
        }).join(','),
      );
      const text = rows.join('\n') + '\n';
      const expected = parse(text, { relax_column_count: true, skip_empty_lines: true, record_delimiter: '\n' }) as string[][];
      expect(splitBytes(text, 5, { delimiter: ',', quote: true }, range(4)).map((r) => r.values)).toEqual(expected);
    }
  });

  it('numbers records by the physical line they start on, counting newlines inside quotes and skipping blank lines', () => {
    const rows = splitBytes('h1,h2\na,"multi\nline"\n\nb,c\r\n\r\nd,e', 4, { delimiter: ',', quote: true }, [0, 1]);
    expect(rows).toEqual([
      { line: 1, values: ['h1', 'h2'], fieldCount: 2 },
      { line: 2, values: ['a', 'multi\nline'], fieldCount: 2 },
      { line: 5, values: ['b', 'c'], fieldCount: 2 },
      { line: 7, values: ['d', 'e'], fieldCount: 2 },
    ]);
  });

  it('keeps quotes literal in unquoted (tab-separated) files, and an unclosed quote takes the rest of the file', () => {
    expect(splitBytes('GEOID\tNAME\n01001\tO"Brien "town\n', 3, { delimiter: '\t', quote: false }, [0, 1])[1].values).toEqual([
      '01001',
      'O"Brien "town',
    ]);
    expect(splitBytes('a,b\n1,"never closed\n2,3\n', 3, { delimiter: ',', quote: true }, [0, 1])[1].values).toEqual([
      '1',
      'never closed\n2,3\n',
    ]);
  });

  it('counts every field of a wide row while copying none it was not asked for', () => {
    const wide = Array.from({ length: 330 }, (_, i) => (i % 7 === 0 ? `"v${i}"` : '""')).join(',');
    const rows = splitBytes(`${wide}\n${wide.split(',').slice(0, 40).join(',')}\n`, 100, { delimiter: ',', quote: true }, [329, 0, 7]);
    expect(rows.map((r) => [r.fieldCount, r.values])).toEqual([
      [330, ['v329', 'v0', 'v7']],
      [40, ['', 'v0', 'v7']],
    ]);
  });

  it('reads the header whole and sniffs the delimiter, through a BOM', async () => {
    const reader = await DelimitedReader.open(Readable.from(chunksOf('\uFEFF"a"|b |"c|d"\n1|2|3\n', 2)));
    expect(reader.header).toEqual(['a', 'b', 'c|d']);
    expect(reader.format).toEqual({ delimiter: '|', quote: true });
    reader.select([2, 0]);
    const values: string[][] = [];
    for await (const batch of reader.batches())
      for (let i = 0; i < batch.count; i++) values.push([batch.value(i, 0), batch.value(i, 1), String(batch.line(i))]);
    expect(values).toEqual([['3', '1', '2']]);
  });
});
