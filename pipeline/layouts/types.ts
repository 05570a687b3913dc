/** Reads one field of the current row by layout field name: trimmed text, '' when the column is absent. */
export type FieldReader = (field: string) => string;

export interface FieldSpec {
  /** Header names this field goes by in the official layouts (matched case-insensitively). */
  aliases: string[];
  required?: boolean;
}

/** How to read one official file layout into typed rows. `parse` throws RowReject for a bad row. */
export interface Layout<Row> {
  name: string;
  description: string;
  fields: Record<string, FieldSpec>;
  /** Extra fields named only by the manifest (e.g. ACS measures), resolved like the built-in ones. */
  dynamicFields?: boolean;
  parse(read: FieldReader, header: string[], options: Record<string, unknown>): Row;
}
