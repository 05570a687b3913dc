/**
 * The map's binary data files (`.bin`): integer columns behind a JSON header, which the page reads as typed
 * arrays over the fetched bytes (src/map/page/columns.js), with no text to decode or parse. The layout:
 *
 * | bytes | what |
 * |---|---|
 * | 0-3 | `HMAP` (ASCII) |
 * | 4-7 | H, the header's length in bytes (uint32) |
 * | 8 to 8 + H | the header: UTF-8 JSON, the file's own fields and `columns`: `[{ name, type, offset, length }]` |
 * | from each `offset` | `length` values of `type` (`i8`, `u8`, `i16`, `u16`, `i32`, `u32`) |
 *
 * Numbers are little-endian (as every browser's typed arrays are on the processors they run on; the page checks).
 * Each column starts at a multiple of 8 bytes from the file's start, so a typed array views it in place. A
 * column's type is the narrowest that holds its values, so a build with larger values only widens a column.
 */

/** The first bytes of every binary data file. */
export const COLUMNS_MAGIC = 'HMAP';

/** The integer types a column can have, with their ranges and sizes. */
const TYPES = [
  { type: 'u8', min: 0, max: 0xff, bytes: 1 },
  { type: 'i8', min: -0x80, max: 0x7f, bytes: 1 },
  { type: 'u16', min: 0, max: 0xffff, bytes: 2 },
  { type: 'i16', min: -0x8000, max: 0x7fff, bytes: 2 },
  { type: 'u32', min: 0, max: 0xffffffff, bytes: 4 },
  { type: 'i32', min: -0x80000000, max: 0x7fffffff, bytes: 4 },
] as const;

type ColumnType = (typeof TYPES)[number]['type'];

/** One column as the header describes it. */
interface ColumnEntry {
  name: string;
  type: ColumnType;
  offset: number;
  length: number;
}

/**
 * A binary data file of `header` (the file's own fields: JSON values) and `columns` (integers, in the order
 * given). A value that is not an integer, or beyond 32 bits, is refused, naming its column.
 */
export function columnsFile(header: Record<string, unknown>, columns: Record<string, ArrayLike<number>>): Buffer {
  const typed = Object.entries(columns).map(([name, values]) => ({ name, values, ...typeOf(name, values) }));
  // The header's size depends on the offsets it lists, which depend on its size: place the columns after a
  // header sized for offsets of the widest digits, then pad the header to that size with spaces (valid JSON).
  const layout = (start: number): ColumnEntry[] => {
    let offset = start;
    return typed.map(({ name, type, bytes, values }) => {
      offset = align(offset);
      const entry = { name, type, offset, length: values.length };
      offset += bytes * values.length;
      return entry;
    });
  };
  const draft = JSON.stringify({ ...header, columns: layout(2 ** 40) });
  const headerBytes = Buffer.byteLength(draft);
  const entries = layout(8 + headerBytes);
  const json = Buffer.from(JSON.stringify({ ...header, columns: entries }));
  if (json.length > headerBytes) throw new Error('the columns header grew while it was laid out: a bug in src/map/columns.ts');
  const text = Buffer.concat([json, Buffer.alloc(headerBytes - json.length, ' ')]);
  const last = entries.at(-1);
  const size = last === undefined ? align(8 + headerBytes) : last.offset + typed[typed.length - 1].bytes * last.length;
  const file = Buffer.alloc(size);
  file.write(COLUMNS_MAGIC, 0, 'ascii');
  file.writeUInt32LE(headerBytes, 4);
  text.copy(file, 8);
  typed.forEach(({ values, bytes, type }, i) => {
    const { offset } = entries[i];
    const write = WRITERS[type];
    for (let n = 0; n < values.length; n++) write(file, values[n], offset + n * bytes);
  });
  return file;
}

function typeOf(name: string, values: ArrayLike<number>): (typeof TYPES)[number] {
  let min = 0;
  let max = 0;
  for (let n = 0; n < values.length; n++) {
    const value = values[n];
    if (!Number.isInteger(value)) throw new Error(`column ${name} of a map data file holds ${value} at ${n}: only integers fit`);
    if (value < min) min = value;
    if (value > max) max = value;
  }
  const fits = TYPES.find((each) => min >= each.min && max <= each.max);
  if (fits === undefined) throw new Error(`column ${name} of a map data file holds values from ${min} to ${max}: beyond 32 bits`);
  return fits;
}

function align(offset: number): number {
  return Math.ceil(offset / 8) * 8;
}

const WRITERS: Record<ColumnType, (file: Buffer, value: number, at: number) => void> = {
  u8: (file, value, at) => file.writeUInt8(value, at),
  i8: (file, value, at) => file.writeInt8(value, at),
  u16: (file, value, at) => file.writeUInt16LE(value, at),
  i16: (file, value, at) => file.writeInt16LE(value, at),
  u32: (file, value, at) => file.writeUInt32LE(value, at),
  i32: (file, value, at) => file.writeInt32LE(value, at),
};
