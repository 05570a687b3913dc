/** A column of a printed table: the record field and its heading. */
export interface Column {
  key: string;
  heading?: string;
  /** Numbers written with thousands separators (29,079), as the footers write counts; for people, not IDs. */
  thousands?: boolean;
  /** Right-align the column (numbers are right-aligned anyway; this is for numbers written as text, `1,234`). */
  right?: boolean;
}

/** An aligned text table; numbers are right-aligned. Empty input prints `(no results)`. */
export function table(rows: ReadonlyArray<Record<string, unknown>>, columns: readonly Column[]): string {
  if (rows.length === 0) return '(no results)\n';
  const cells = rows.map((row) =>
    columns.map((column) => {
      const value = row[column.key];
      return column.thousands && typeof value === 'number' ? value.toLocaleString('en-US', { maximumFractionDigits: 20 }) : text(value);
    }),
  );
  const headings = columns.map((column) => column.heading ?? column.key);
  const widths = columns.map((_, i) => Math.max(headings[i].length, ...cells.map((line) => line[i].length)));
  const numeric = columns.map((column) => column.right || rows.every((row) => typeof row[column.key] === 'number'));
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

/** How many ZIP codes a data-quality line names before it says how many more. */
const NAMED_ZIPS = 5;

/**
 * What score records rest on, each sentence of their data-quality notes once: a sentence every record shares
 * is one line; the others name the ZIP codes they apply to (a note says "this ZIP", which a list cannot).
 */
export function qualityNotes(records: ReadonlyArray<{ zip_code?: unknown; data_quality?: { note: string } }>): string[] {
  const noted = records.filter((r) => r.data_quality !== undefined);
  if (noted.length <= 1) return noted.map((r) => `data quality: ${r.data_quality!.note}`);
  const zipsOf = new Map<string, string[]>();
  for (const record of noted) {
    for (const sentence of record.data_quality!.note.split(/(?<=\.) (?=[A-Z])/)) {
      const zips = zipsOf.get(sentence) ?? [];
      zips.push(String(record.zip_code ?? ''));
      zipsOf.set(sentence, zips);
    }
  }
  return [...zipsOf].map(([sentence, zips]) => {
    const one = zips.length === 1;
    const text = sentence
      .replace("this ZIP's", one ? 'its' : "each ZIP code's")
      .replace('this ZIP is', one ? 'it is' : 'each is')
      .replace('for this ZIP', one ? 'for it' : 'for each');
    if (zips.length === noted.length) return `data quality: ${text}`;
    const more = zips.length > NAMED_ZIPS ? ` and ${(zips.length - NAMED_ZIPS).toLocaleString('en-US')} more` : '';
    return `data quality, ${zips.slice(0, NAMED_ZIPS).join(', ')}${more}: ${text}`;
  });
}
