import type { Command } from 'commander';
import type { CommandIo } from '../../core/command.ts';
import { fieldsOf, type JsonSchema } from '../http/json-schema.ts';
import type { RoutedApi } from '../api/api.ts';
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
  /** How errors name a parameter that no option of the same name gives (`near`: the ZIP argument). */
  flagNames?: Readonly<Record<string, string>>;
}

export type ListOptions = OutputFlags & { db?: string; all?: boolean; sort?: string; desc?: boolean } & Record<string, unknown>;

/** Fields a record has only in a list asked near a place: a column of files only when `--near` is given. */
const NEAR_ONLY_FIELDS = ['distance_miles'];

/**
 * Adds `--sort FIELD` and `--desc` for a list's sort keys (the API's `sort`, `-FIELD` when descending), with
 * the keys and the default order in the help.
 */
export function sortOptions(command: Command, keys: readonly string[], defaultOrder: string): Command {
  return command
    .option('--sort <field>', `order by one of ${keys.join(', ')} (default: ${defaultOrder}); ties by the default order`)
    .option('--desc', 'with --sort: descending, highest (or last) first; rows without a value stay last');
}

/** The API's `sort` of `--sort` and `--desc`: `-healthscore` for `--sort healthscore --desc`. */
function sortOf(options: ListOptions): string | undefined {
  if (options.desc && options.sort === undefined)
    throw new CliError('--desc reverses --sort: give --sort FIELD too (--help lists the fields)');
  if (options.sort === undefined) return undefined;
  return options.desc && !options.sort.startsWith('-') ? `-${options.sort}` : options.sort;
}

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
function columnsFor(spec: ListSpec, format: Format, options: ListOptions): Column[] {
  const near = options.near !== undefined;
  const files = spec.fields.filter((key) => near || !NEAR_ONLY_FIELDS.includes(key)).map((key) => ({ key }));
  const table = near
    ? [...spec.tableColumns, ...NEAR_ONLY_FIELDS.filter((key) => spec.fields.includes(key)).map((key) => ({ key }))]
    : spec.tableColumns;
  return pickColumns(options.fields, spec.fields, format === 'table' ? table : files);
}

/**
 * Runs a paginated list command: one page (the API's envelope with `--json`), or with `--all` every page
 * streamed as it is read. Footers and data-quality notes go to stderr; no match exits 1.
 */
export async function runPagedList(io: CommandIo, spec: ListSpec, options: ListOptions): Promise<void> {
  if (options.all && (options.page !== undefined || options.pageSize !== undefined)) {
    throw new CliError(`--all prints every page: leave out ${options.page !== undefined ? '--page' : '--page-size'}`);
  }
  const limit = limitOf(options);
  const format = chooseFormat(options, io, { streaming: Boolean(options.all) });
  const columns = columnsFor(spec, format, options);
  const sort = sortOf(options);
  const listed = listQuery(spec.path, spec.parameters, sort === undefined ? options : { ...options, sort });
  const { path, query } = listed;
  const flags = { ...listed.flags, ...spec.flagNames };
  const writer = new RowWriter(io.stdout, format, columns, options.fields !== undefined);
  // Loaded here, not at the top: the record commands beside the list commands (`hcas provider NPI`) then load
  // only their own endpoint group (bench/cli.ts).
  const { ALL_ROUTES } = await import('../api/index.ts');
  const api = openApi(options.db, io.env, ALL_ROUTES);
  try {
    if (options.all || limit !== undefined) {
      const count = await writeAllPages(api, spec.path, query, flags, writer, limit);
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
  api: RoutedApi,
  path: string,
  query: URLSearchParams,
  names: Record<string, string>,
  writer: RowWriter,
  limit = Infinity,
): Promise<number> {
  query.set('page_size', String(Math.min(MAX_PAGE_SIZE, limit)));
  let count = 0;
  let written = 0;
  for (let page = 1; ; page++) {
    query.set('page', String(page));
    const envelope = await getJson<Envelope<Record<string, unknown>>>(api, `${path}?${query}`, names);
    count = envelope.count;
    const rows = envelope.results.slice(0, limit - written);
    await writer.write(rows);
    written += rows.length;
    if (!envelope.next || written >= limit) return count;
  }
}

/** `--limit N` (a command that has it): the first N records, read page after page; undefined without it. */
function limitOf(options: ListOptions): number | undefined {
  if (options.limit === undefined) return undefined;
  const limit = String(options.limit);
  if (!/^[1-9][0-9]{0,6}$/.test(limit)) throw new CliError(`--limit must be a whole number of records from 1, got ${limit}`);
  for (const [flag, given] of [
    ['--all', options.all],
    ['--page', options.page],
    ['--page-size', options.pageSize],
  ] as const) {
    if (given !== undefined) throw new CliError(`--limit reads the first records page after page: leave out ${flag}`);
  }
  return Number(limit);
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
