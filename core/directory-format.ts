/**
 * The provider directory and the facility index of the output file (docs/schema.md, "Provider directory"):
 * written by pipeline/emit/directory.ts and pipeline/emit/facility-index.ts, read by
 * src/query/provider-directory.ts and src/query/facilities.ts. Both sides take the names and encodings from
 * here, so the format has one definition.
 *
 * Every number array is a little-endian uint32 BLOB. Every list of keys is search keys (core/search-key.ts)
 * joined by KEY_SEPARATOR, which no key holds.
 */

/**
 * Kinds of `provider_postings` rows: for each value of a filter, the sorted ranks of the providers it matches.
 * `zip` is the practice ZIP code as written; `zcta` the scored ZIP code it lies in, whose point `near=` measures.
 */
export type PostingKind = 'state' | 'city' | 'zip' | 'zcta' | 'specialty';

/** Names of the `provider_arrays` rows: the NPI of each rank, and all ranks grouped by first name. */
export const PROVIDER_ARRAYS = { npiByRank: 'npi_by_rank', firstOrder: 'first_order' } as const;

/** Names of the `facility_index` rows: one entry per facility, in list order (name key, then id). */
export const FACILITY_INDEX = {
  id: 'id',
  type: 'type',
  state: 'state',
  emergency: 'emergency',
  rating: 'rating',
  nameKeys: 'name_keys',
  typeKeys: 'type_keys',
} as const;

/** Separates the keys of a key list. */
export const KEY_SEPARATOR = '\n';

/** The BLOB of a uint32 array (little-endian on every platform Node supports for this project). */
export function encodeUint32(array: Uint32Array): Buffer {
  return Buffer.from(array.buffer, array.byteOffset, array.byteLength);
}

/** A uint32 BLOB as an array: a view of the bytes when they are 4-aligned, else a copy. */
export function decodeUint32(data: Buffer): Uint32Array {
  if (data.byteOffset % 4 === 0) return new Uint32Array(data.buffer, data.byteOffset, data.byteLength >>> 2);
  const copy = new Uint32Array(data.byteLength >>> 2);
  new Uint8Array(copy.buffer).set(data.subarray(0, copy.byteLength));
  return copy;
}

/** A two-letter state code as one number, as the facility index stores it. */
export function stateNumber(code: string): number {
  return (code.charCodeAt(0) << 8) | code.charCodeAt(1);
}
