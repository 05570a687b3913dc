/** A column of a printed table: the record field and its heading. */
export interface Column {
  key: string;
  heading?: string;
}

/** An aligned text table; numbers are right-aligned. Empty input prints `(no results)`. */
export function table(rows: ReadonlyArray<Record<string, unknown>>, columns: readonly Column[]): string {
  if (rows.length === 0) return '(no results)\n';
  const cells = rows.map((row) => columns.map((column) => text(row[column.key])));
  const headings = columns.map((column) => column.heading ?? column.key);
  const widths = columns.map((_, i) => Math.max(headings[i].length, ...cells.map((line) => line[i].length)));
  const numeric = columns.map((column) => rows.every((row) => typeof row[column.key] === 'number'));
  const line = (values: string[]) =>
    values
      .map((value, i) => (numeric[i] ? value.padStart(widths[i]) : value.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  return [line(headings), line(widths.map((width) => '-'.repeat(width))), ...cells.map(line)].join('\n') + '\n';
}

/** A two-column table of one record's fields. */
export function recordTable(record: Record<string, unknown>): string {
  return table(
    Object.entries(record).map(([field, value]) => ({ field, value: text(value) })),
    [{ key: 'field' }, { key: 'value' }],
  );
}

/** One RFC 4180 CSV line: fields with a comma, quote or line break are quoted, quotes doubled. */
export function csvLine(values: readonly unknown[]): string {
  const field = (value: unknown) => {
    const t = text(value);
    return /[",\r\n]/.test(t) ? `"${t.replaceAll('"', '""')}"` : t;
  };
  return `${values.map(field).join(',')}\r\n`;
}

/** RFC 4180 CSV with a header row. */
export function csv(rows: ReadonlyArray<Record<string, unknown>>, columns: readonly Column[]): string {
  return csvLine(columns.map((column) => column.key)) + rows.map((row) => csvLine(columns.map((column) => row[column.key]))).join('');
}

const TSV_ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/**
 * One tab-separated line. A tab, line break or backslash inside a value is written `\t`, `\n`, `\r`, `\\`,
 * so every record is exactly one line for `cut`, `awk -F'\t'`, `sort` and `csvkit -t`.
 */
export function tsvLine(values: readonly unknown[]): string {
  return `${values.map((value) => text(value).replace(/[\\\t\n\r]/g, (c) => TSV_ESCAPES[c])).join('\t')}\n`;
}

/** Pretty JSON for `--json`. */
export function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** A value as a cell: empty for null, JSON for objects and arrays. */
function text(value: unknown): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** What score records rest on: the distinct data-quality notes of the records shown. */
export function qualityNotes(records: ReadonlyArray<{ data_quality?: { note: string } }>): string[] {
  return [...new Set(records.map((r) => r.data_quality?.note).filter((note): note is string => note !== undefined))].map(
    (note) => `data quality: ${note}`,
  );
}
