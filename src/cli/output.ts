import type { Command } from 'commander';
import type { CommandIo, OutputStream } from '../../core/command.ts';
import { CliError } from './errors.ts';
import { csvLine, json, qualityNotes, recordTable, table, tsvLine, type Column } from './format.ts';

/** What a command can print: an aligned table for people, the rest for programs. */
export const FORMATS = ['table', 'tsv', 'csv', 'json', 'ndjson'] as const;
export type Format = (typeof FORMATS)[number];

/** The output flags as commander parses them. */
export interface OutputFlags {
  table?: boolean;
  tsv?: boolean;
  csv?: boolean;
  json?: boolean;
  ndjson?: boolean;
  /** `--fields a,b,c`: the columns (or JSON keys) to print, in this order. */
  fields?: string;
}

const HELP: Record<Format, string> = {
  table: 'print an aligned table (the default on a terminal)',
  tsv: 'print tab-separated values with a header row (the default when the output is piped or redirected)',
  csv: 'print CSV (RFC 4180) with a header row',
  json: 'print JSON',
  ndjson: 'print one JSON record per line',
};

/** Adds the output flags to a command; `json` describes what `--json` prints when it is more than the records. */
export function outputOptions(command: Command, { json: jsonHelp, fields = true }: { json?: string; fields?: boolean } = {}): Command {
  for (const format of FORMATS) command.option(`--${format}`, format === 'json' && jsonHelp ? jsonHelp : HELP[format]);
  if (fields)
    command.option('--fields <names>', 'print only these fields, in this order (comma-separated field names, as --json shows them)');
  return command;
}

/**
 * The format asked for, else a table on a terminal and tab-separated values otherwise. A streamed output
 * (`--all`) cannot be a table, whose column widths wait for the last row, so it defaults to TSV too.
 */
export function chooseFormat(flags: OutputFlags, io: CommandIo, { streaming = false } = {}): Format {
  const tty = Boolean(io.stdout.isTTY);
  const chosen = FORMATS.filter((format) => flags[format]);
  if (chosen.length > 1) throw new CliError(`choose one of ${chosen.map((format) => `--${format}`).join(' and ')}`);
  if (chosen[0] === 'table' && streaming)
    throw new CliError(
      '--all streams every page, which a table cannot (its widths wait for the last row): use --tsv, --csv, --json or --ndjson',
    );
  return chosen[0] ?? (tty && !streaming ? 'table' : 'tsv');
}

/**
 * The columns to print: `--fields` (checked against the record's fields), else `defaults`. An unknown name
 * is a usage error naming the fields it may mean and listing the fields there are. Table headings are the
 * field names, so what a table shows is what `--fields` takes.
 */
export function pickColumns(fields: string | undefined, available: readonly string[], defaults: readonly Column[]): Column[] {
  if (fields === undefined) return [...defaults];
  const names = fields
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  if (names.length === 0) throw new CliError(`--fields needs at least one field name; the fields are ${available.join(', ')}`);
  const unknown = names.filter((name) => !available.includes(name));
  if (unknown.length) {
    const meant = unknown.flatMap((name) => fieldsNamed(name, available));
    const hint = meant.length ? ` (did you mean ${[...new Set(meant)].join(', ')}?)` : '';
    throw new CliError(`--fields: no field ${unknown.join(', ')}${hint}; the fields are ${available.join(', ')}`);
  }
  return names.map((key) => ({ key }));
}

/** The fields a short name such as `name` or `city` may mean: those with it as a word (`facility_name`, `city_name`). */
function fieldsNamed(name: string, available: readonly string[]): string[] {
  const word = name.toLowerCase();
  return available.filter((field) => field.split('_').includes(word));
}

/** The record with only the given columns' fields, in their order. */
export function pick(record: Record<string, unknown>, columns: readonly Column[]): Record<string, unknown> {
  return Object.fromEntries(columns.map((column) => [column.key, record[column.key]]));
}

/** Writes the output, waiting while the reader is behind, so a long output never piles up in memory. */
export async function emit(out: OutputStream, text: string): Promise<void> {
  if (text !== '' && !out.write(text)) await new Promise((resolve) => out.once('drain', resolve));
}

/** A note for the person (footers, data quality, hints): on stderr, so it never mixes with the data. */
export function note(io: CommandIo, text: string): void {
  io.stderr.write(`${text}\n`);
}

/**
 * Writes records in one format as they come, page after page. `picked`: JSON keeps only the columns'
 * fields (with `--fields`); otherwise JSON prints whole records.
 */
export class RowWriter {
  private rowsWritten = 0;
  private readonly tableRows: Array<Record<string, unknown>> = [];
  private readonly format: Format;
  private readonly columns: readonly Column[];
  private readonly picked: boolean;
  private readonly out: OutputStream;

  constructor(out: OutputStream, format: Format, columns: readonly Column[], picked: boolean) {
    this.out = out;
    this.format = format;
    this.columns = columns;
    this.picked = picked;
  }

  get count(): number {
    return this.rowsWritten;
  }

  async write(records: ReadonlyArray<Record<string, unknown>>): Promise<void> {
    if (records.length === 0) return;
    const first = this.rowsWritten === 0;
    this.rowsWritten += records.length;
    const values = (record: Record<string, unknown>) => this.columns.map((column) => record[column.key]);
    const object = (record: Record<string, unknown>) => (this.picked ? pick(record, this.columns) : record);
    const header = this.columns.map((column) => column.key);
    switch (this.format) {
      case 'table':
        this.tableRows.push(...records);
        return;
      case 'tsv':
        return emit(this.out, (first ? tsvLine(header) : '') + records.map((r) => tsvLine(values(r))).join(''));
      case 'csv':
        return emit(this.out, (first ? csvLine(header) : '') + records.map((r) => csvLine(values(r))).join(''));
      case 'ndjson':
        return emit(this.out, records.map((r) => `${JSON.stringify(object(r))}\n`).join(''));
      case 'json':
        // An array written as it grows: `[`, one record per line, `]` at the end.
        return emit(this.out, records.map((r, i) => `${first && i === 0 ? '[\n' : ',\n'}  ${JSON.stringify(object(r))}`).join(''));
    }
  }

  /** Finishes the output: the table, the header of an empty TSV or CSV, the end of the JSON array. */
  async end(): Promise<void> {
    if (this.format === 'table') return emit(this.out, this.tableRows.length ? table(this.tableRows, this.columns) : '');
    if (this.rowsWritten > 0) return emit(this.out, this.format === 'json' ? '\n]\n' : '');
    const header = this.columns.map((c) => c.key);
    return emit(this.out, { tsv: tsvLine(header), csv: csvLine(header), json: '[]\n', ndjson: '' }[this.format]);
  }
}

/** Prints one record: fields down on a terminal, one header row and one row for programs, or JSON. */
export async function printRecord(
  io: CommandIo,
  record: Record<string, unknown>,
  format: Format,
  fields: string | undefined,
): Promise<void> {
  const columns = pickColumns(
    fields,
    Object.keys(record),
    Object.keys(record).map((key) => ({ key })),
  );
  const shown = pick(record, columns);
  if (format === 'table') {
    // A table shows data quality, and the ZIP code answered for a PO-box one, as closing notes, not JSON cells.
    const {
      data_quality: quality,
      zip_lookup: lookup,
      ...rest
    } = shown as { data_quality?: { note: string }; zip_lookup?: { note: string } };
    await emit(io.stdout, recordTable(rest));
    if (lookup) note(io, lookup.note);
    for (const line of qualityNotes([{ data_quality: quality }])) note(io, line);
    return;
  }
  if (format === 'json') return emit(io.stdout, json(shown));
  const writer = new RowWriter(io.stdout, format, columns, true);
  await writer.write([record]);
  await writer.end();
}
