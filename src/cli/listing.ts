import type { Command } from 'commander';
import type { CommandIo } from '../../core/command.ts';
import { fieldsOf, type JsonSchema } from '../http/json-schema.ts';
import type { Api } from '../api/index.ts';
import type { Envelope } from '../http/pagination.ts';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../http/pagination.ts';
import { DB_HELP, getJson, openApi } from './api-client.ts';
import { CliError, notFound } from './errors.ts';
import { json, qualityNotes, type Column } from './format.ts';
import { chooseFormat, emit, note, outputOptions, pick, pickColumns, RowWriter, type Format, type OutputFlags } from './output.ts';

/** A list command: which endpoint, how its options become parameters, and how its records print. */
export interface ListSpec {
  /** API path relative to /api/v1/, e.g. `providers/`. */
  path: string;
  /** What the records are, for notes: `provider`, `providers`. */
  noun: [one: string, many: string];
  /** Command options (camelCase, as commander names them) and the API parameters they become. */
  parameters: Readonly<Record<string, string>>;
  /** The columns of the terminal table. */
  tableColumns: readonly Column[];
  /** Every field of a record, in the API's order: the columns of TSV and CSV, and what --fields may name. */
  fields: readonly string[];
}

export type ListOptions = OutputFlags & { db?: string; all?: boolean } & Record<string, unknown>;

/**
 * The fields of the answer `schema` (src/answers) in a presentation order of their own: checked when the
 * command loads, so a field added to the answer cannot be missing from the command's columns.
 */
export function fieldsInOrder(schema: JsonSchema, order: readonly string[]): string[] {
  const fields = fieldsOf(schema);
  if (order.length !== fields.length || !fields.every((field) => order.includes(field)))
    throw new Error(`the columns ${order.join(', ')} are not the answer's fields ${fields.join(', ')}`);
  return [...order];
}

/** Adds `--db` and the output flags; with `paged`, also `--page`, `--page-size` and `--all`. */
export function listOptions(command: Command, { paged = false, json: jsonHelp }: { paged?: boolean; json?: string } = {}): Command {
  if (paged) {
    command
      .option('--page <n>', 'page number from 1')
      .option('--page-size <n>', `records per page, 1-${MAX_PAGE_SIZE} (default 20)`)
      .option('--all', 'every page, streamed as it is read (with --tsv, --csv, --json as one array, or --ndjson)');
  }
  command.option('--db <file>', DB_HELP);
  return outputOptions(command, {
    json: jsonHelp ?? (paged ? 'print the page envelope as JSON (with --all: one array of every record)' : 'print JSON'),
  });
}

/**
 * The API path of a list from the command's options (`pageSize` -> `page_size`), and the option flag of
 * each API parameter, so an API error names `--page-size`, not `page_size`.
 */
export function listQuery(
  path: string,
  parameters: Readonly<Record<string, string>>,
  given: object,
): { path: string; query: URLSearchParams; flags: Record<string, string> } {
  const options = given as Record<string, unknown>;
  const query = new URLSearchParams();
  const flags: Record<string, string> = {};
  for (const [option, parameter] of Object.entries(parameters)) {
    const value = options[option];
    if (value === true) query.set(parameter, 'true');
    else if (typeof value === 'string') query.set(parameter, value);
    flags[parameter] = `--${option.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
  }
  return { path: `${path}${query.size ? `?${query}` : ''}`, query, flags };
}

/** The columns of a format: the table's own unless `--fields` names others; files get every field. */
function columnsFor(spec: ListSpec, format: Format, fields: string | undefined): Column[] {
  return pickColumns(fields, spec.fields, format === 'table' ? spec.tableColumns : spec.fields.map((key) => ({ key })));
}

/**
 * Runs a paginated list command: one page (the API's envelope with `--json`), or with `--all` every page
 * streamed as it is read. Footers and data-quality notes go to stderr; no match exits 1.
 */
export async function runPagedList(io: CommandIo, spec: ListSpec, options: ListOptions): Promise<void> {
  if (options.all && (options.page !== undefined || options.pageSize !== undefined)) {
    throw new CliError(`--all prints every page: leave out ${options.page !== undefined ? '--page' : '--page-size'}`);
  }
  const format = chooseFormat(options, io, { streaming: Boolean(options.all) });
  const columns = columnsFor(spec, format, options.fields);
  const { path, query, flags } = listQuery(spec.path, spec.parameters, options);
  const writer = new RowWriter(io.stdout, format, columns, options.fields !== undefined);
  const api = openApi(options.db, io.env);
  try {
    if (options.all) {
      const count = await writeAllPages(api, spec.path, query, flags, writer);
      await writer.end();
      if (count === 0) throw notFound(`no ${spec.noun[1]} match`);
      return;
    }
    const page = await getJson<Envelope<Record<string, unknown>>>(api, path, flags);
    if (format === 'json') {
      // One page as JSON is the API's envelope, as `hcas get` prints it (pretty).
      await emit(io.stdout, json(options.fields === undefined ? page : { ...page, results: page.results.map((r) => pick(r, columns)) }));
    } else {
      await writer.write(page.results);
      await writer.end();
    }
    if (format === 'table') for (const line of qualityNotes(page.results)) note(io, line);
    const number = Number(options.page ?? 1);
    if (page.count === 0) throw notFound(`no ${spec.noun[1]} match`);
    if (format === 'table' || page.next) note(io, footer(spec, page, number, Number(options.pageSize ?? DEFAULT_PAGE_SIZE)));
  } finally {
    api.retire();
  }
}

/** Streams every page of a list through `writer`; returns how many records there were. */
async function writeAllPages(
  api: Api,
  path: string,
  query: URLSearchParams,
  names: Record<string, string>,
  writer: RowWriter,
): Promise<number> {
  query.set('page_size', String(MAX_PAGE_SIZE));
  let count = 0;
  for (let page = 1; ; page++) {
    query.set('page', String(page));
    const envelope = await getJson<Envelope<Record<string, unknown>>>(api, `${path}?${query}`, names);
    count = envelope.count;
    await writer.write(envelope.results);
    if (!envelope.next) return count;
  }
}

/** `20 of 36,646 matching providers, page 1 of 1,833; next: --page 2, every page: --all` */
function footer(spec: ListSpec, page: Envelope<unknown>, number: number, pageSize: number): string {
  const thousands = (n: number) => n.toLocaleString('en-US');
  const noun = page.count === 1 ? spec.noun[0] : spec.noun[1];
  if (!page.next && number === 1) return `${thousands(page.count)} matching ${noun}`;
  const pages = Math.ceil(page.count / pageSize);
  const more = page.next ? `; next: --page ${number + 1}, every page: --all` : '';
  return `${thousands(page.results.length)} of ${thousands(page.count)} matching ${noun}, page ${number} of ${thousands(pages)}${more}`;
}

/**
 * Prints a list that is one answer (no pages): nearby ZIPs, states, rankings, suggestions. An empty list
 * prints its header (TSV, CSV) or `[]` (JSON) and exits 1.
 */
export async function printList(
  io: CommandIo,
  spec: Pick<ListSpec, 'tableColumns' | 'fields' | 'noun'>,
  records: ReadonlyArray<Record<string, unknown>>,
  options: ListOptions,
): Promise<void> {
  const format = chooseFormat(options, io);
  const columns = pickColumns(options.fields, spec.fields, format === 'table' ? spec.tableColumns : spec.fields.map((key) => ({ key })));
  if (format === 'json' && options.fields === undefined) await emit(io.stdout, json(records));
  else {
    const writer = new RowWriter(io.stdout, format, columns, options.fields !== undefined);
    await writer.write(records);
    await writer.end();
  }
  if (records.length === 0) throw notFound(`no ${spec.noun[1]} found`);
}
