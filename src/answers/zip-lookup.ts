import { nullable, record, withOptional, type Schema } from '../http/json-schema.ts';
import { string, zipCode } from './fields.ts';

/** `zip_lookup` of an answer given for another ZIP code than the one asked (docs/api.md, "ZIP codes"). */
export const ZipLookup = record(
  { requested: zipCode, answered: zipCode, zip_type: nullable(string), note: string },
  'Present only when the ZIP code asked has no area of its own (a PO-box or single-address ZIP code): the answer is the record of the ZIP code it lies in.',
);

/** A closed record schema that may also carry `zip_lookup`. */
export function withZipLookup<T>(schema: Schema<T>) {
  return withOptional(schema, { zip_lookup: ZipLookup });
}
