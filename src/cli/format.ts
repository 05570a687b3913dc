import { CliError } from './errors.ts';

/** A column of a printed table: the record field and its heading. */
export interface Column {
  key: string;
  heading?: string;
}

export interface OutputOptions {
  json?: boolean;
  csv?: boolean;
}

/** The `--json` and `--csv` options every listing command takes. */
export function outputFormat(options: OutputOptions): 'table' | 'json' | 'csv' {
  if (options.json && options.csv) throw new CliError('choose one of --json and --csv');
  return options.json ? 'json' : options.csv ? 'csv' : 'table';
}

/** An aligned text table; numbers are right-aligned. Empty input prints `(no results)`. */
export function table(rows: ReadonlyArray<Record<string, unknown>>, columns: readonly Column[]): string {
  if (rows.length === 0) return '(no results)\n';
  const cells = rows.map((row) => columns.map((column) => text(row[column.key])));
  const headings = columns.map((column) => column.heading ?? column.key);
  const widths = columns.map((_, i) => Math.max(headings[i].length, ...cells.map((line) => line[i].length)));
  const numeric = columns.map((column) => rows.every((row) => typeof row[column.key] === 'number'));
  const line = (values: string[]) =>
    values.map((value, i) => (numeric[i] ? value.padStart(widths[i]) : value.padEnd(widths[i]))).join('  ').trimEnd();
  return [line(headings), line(widths.map((width) => '-'.repeat(width))), ...cells.map(line)].join('\n') + '\n';
}

/** A two-column table of one record's fields. */
export function recordTable(record: Record<string, unknown>): string {
  return table(Object.entries(record).map(([field, value]) => ({ field, value: text(value) })), [{ key: 'field' }, { key: 'value' }]);
}

/** RFC 4180 CSV with a header row: fields with a comma, quote or line break are quoted, quotes doubled. */
export function csv(rows: ReadonlyArray<Record<string, unknown>>, columns: readonly Column[]): string {
  const field = (value: unknown) => {
    const t = text(value);
    return /[",\r\n]/.test(t) ? `"${t.replaceAll('"', '""')}"` : t;
  };
  const lines = [columns.map((column) => field(column.key)), ...rows.map((row) => columns.map((column) => field(row[column.key])))];
  return lines.map((values) => values.join(',')).join('\r\n') + '\r\n';
}

/** Pretty JSON for `--json`. */
export function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** The columns of every field of a record, in order. */
export function allColumns(record: Record<string, unknown> | undefined): Column[] {
  return Object.keys(record ?? {}).map((key) => ({ key }));
}

function text(value: unknown): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** What score records rest on, for the end of a table: the distinct data-quality notes of the records shown. */
export function qualityFooter(records: ReadonlyArray<{ data_quality?: { note: string } }>): string {
  const notes = [...new Set(records.map((r) => r.data_quality?.note).filter((note): note is string => note !== undefined))];
  return notes.map((note) => `data quality: ${note}\n`).join('');
}

/** One record as a two-column table, its data quality as a closing line rather than a JSON cell. */
export function scoreRecordTable(record: Record<string, unknown> & { data_quality?: { note: string } }): string {
  const { data_quality: quality, ...fields } = record;
  return recordTable(fields) + qualityFooter([{ data_quality: quality }]);
}
