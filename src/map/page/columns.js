/**
 * Reads the map's binary data files (the layout is in src/map/columns.ts, which writes them): the header's
 * fields, and each column as a typed array over the fetched bytes, in place. Imports nothing of the page, so
 * the tests run it in Node against the writer.
 */

const MAGIC = 'HMAP';
const ARRAYS = { i8: Int8Array, u8: Uint8Array, i16: Int16Array, u16: Uint16Array, i32: Int32Array, u32: Uint32Array };
/** Typed arrays read numbers in the processor's byte order; the files are little-endian, as every browser's processor is. */
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** The header's fields of a binary data file, with `columns`: each column by name, a typed array. `name` is for errors. */
export function readColumns(buffer, name) {
  const bytes = new Uint8Array(buffer);
  if (buffer.byteLength < 8 || String.fromCharCode(...bytes.subarray(0, 4)) !== MAGIC)
    throw new Error(`${name} is not a map data file (it does not start with ${MAGIC}): reload the page`);
  if (!LITTLE_ENDIAN) throw new Error('this browser reads numbers big-endian, and the map reads only little-endian data files');
  const headerBytes = new DataView(buffer).getUint32(4, true);
  const { columns: entries, ...header } = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + headerBytes)));
  const columns = {};
  for (const { name: column, type, offset, length } of entries) {
    const Type = ARRAYS[type];
    if (!Type || offset + length * Type.BYTES_PER_ELEMENT > buffer.byteLength)
      throw new Error(`${name}: column ${column} (${type}, ${length} values at ${offset}) is not in the file: reload the page`);
    columns[column] = new Type(buffer, offset, length);
  }
  return { ...header, columns };
}
