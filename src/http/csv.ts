/** One RFC 4180 field: quoted when it holds a comma, a quote or a line break, quotes doubled. */
export function csvField(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One RFC 4180 record with its CRLF line end. */
export function csvRecord(fields: readonly string[]): string {
  return `${fields.map(csvField).join(',')}\r\n`;
}

/**
 * Characters that make a spreadsheet read a cell as a formula (`=`, `+`, `-`, `@`) or act on it (tab,
 * carriage return), when they open a text cell.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * A text cell a spreadsheet will show as text: one that opens like a formula gets a leading apostrophe
 * (OWASP, "CSV Injection"), so `=HYPERLINK(...)` in a record never runs on an analyst's machine. Only for
 * text columns: numbers (`-71.3`) are written as numbers and never pass through here.
 */
export function textCell(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text;
}
