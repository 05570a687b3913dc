/**
 * The output file: what `hcas build` writes and every reader opens unless told otherwise (relative to
 * the working directory). docs/schema.md describes its tables.
 */
export const DEFAULT_DATABASE = 'dist-api/hcas.sqlite';
