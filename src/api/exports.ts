import { csvField, csvRecord, textCell } from '../http/csv.ts';
import { nullable, record, type JsonSchema } from '../http/json-schema.ts';
import { param } from '../http/params.ts';
import { yieldToEventLoop } from '../http/work.ts';
import {
  type HandlerContext,
  NO_PARAMS,
  type NoParams,
  type ResponseDoc,
  route,
  type Route,
  type StaticExport,
  type StreamResult,
} from '../http/route.ts';
import type { Queries } from '../query/index.ts';
import { exportColumns, type ExportColumn, type ExportFilter, type ExportKind, type ExportName } from '../query/exports.ts';
import { scoreType, state } from './params.ts';
import { API_BASE } from './paths.ts';
import { boolean, DataQuality, integer, number, string } from '../answers/fields.ts';

const tag = { name: 'Bulk exports', description: 'Every record of a resource as streamed CSV or NDJSON.' };

/** Left to the server by `hcas export-static`. */
const EXPORT_STREAMS: StaticExport = { write: 'server', why: 'bulk exports stream, by format and filter' };

/** Rows read per batch: large enough that each write is a sizeable chunk, small enough to stay in cache. */
export const EXPORT_BATCH_ROWS = 1000;

export const EXPORT_FORMATS = {
  csv: { type: 'text/csv; charset=utf-8', extension: 'csv' },
  ndjson: { type: 'application/x-ndjson', extension: 'ndjson' },
} as const;
type Format = keyof typeof EXPORT_FORMATS;

const format = param<Format>(
  'csv or ndjson',
  (raw) => {
    const name = raw.toLowerCase();
    return name === 'csv' || name === 'ndjson' ? name : undefined;
  },
  'csv',
  { type: 'string', enum: Object.keys(EXPORT_FORMATS), default: 'csv' },
);

const healthScoresExportQuery = { format, score_type: scoreType, state };
const providersExportQuery = { format, state };
const facilitiesExportQuery = { format, state };

type ExportQuery = { format: Format; state: string | undefined; score_type?: number };

/**
 * The handler of `exports/{name}/`: every matching record, streamed in a stable order (health scores by ZIP
 * code, providers in the build's storage order, facilities by id)
 * as CSV (header row, RFC 4180 quoting, null as an empty field, booleans `true`/`false`, JSON arrays as JSON
 * text, a text cell that opens like a formula prefixed with an apostrophe) or NDJSON (one JSON object per
 * line, values as stored).
 */
function exportHandler(name: ExportName) {
  return ({ query, queries }: HandlerContext<NoParams, ExportQuery, Queries>): StreamResult => {
    const filter: ExportFilter = { state: query.state, scoreTypeId: query.score_type };
    const columns = exportColumns(name);
    const encode = query.format === 'csv' ? csvEncoder(columns) : ndjsonEncoder(columns);
    const { type, extension } = EXPORT_FORMATS[query.format];
    async function* chunks(): AsyncGenerator<string> {
      if (query.format === 'csv') yield csvRecord(columns.map((c) => c.name));
      let after: string | number | undefined = queries.exports.start(name);
      while (after !== undefined) {
        let text = '';
        const { rows, next } = queries.exports.batch(name, filter, after, EXPORT_BATCH_ROWS, (values) => (text += encode(values)));
        if (rows > 0) yield text;
        // A window without a match: other requests run before the next one is read.
        else await yieldToEventLoop();
        after = next;
      }
    }
    return {
      status: 200,
      headers: { 'Content-Type': type, 'Content-Disposition': `attachment; filename="hcas-${name}-${queries.meta.build_id}.${extension}"` },
      chunks,
    };
  };
}

function csvEncoder(columns: readonly ExportColumn[]): (values: unknown[]) => string {
  return (values) => {
    let line = '';
    for (let i = 0; i < columns.length; i++) {
      const value = values[i];
      if (i > 0) line += ',';
      if (value === null || value === undefined) continue;
      if (columns[i].kind === 'boolean') line += value ? 'true' : 'false';
      else if (typeof value === 'number') line += String(value);
      else if (columns[i].kind === 'text') line += csvField(textCell(String(value)));
      else line += csvField(String(value));
    }
    return `${line}\r\n`;
  };
}

function ndjsonEncoder(columns: readonly ExportColumn[]): (values: unknown[]) => string {
  return (values) => {
    const record: Record<string, unknown> = {};
    for (let i = 0; i < columns.length; i++) {
      const value = values[i];
      const { kind } = columns[i];
      record[columns[i].name] =
        value === null ? null : kind === 'boolean' ? value === 1 : kind === 'json' ? JSON.parse(value as string) : value;
    }
    return `${JSON.stringify(record)}\n`;
  };
}

/** An export's 200: CSV or NDJSON, streamed, as an attachment. */
function exportDoc(name: string, rowSchema: string): ResponseDoc {
  const row = `#/components/schemas/${rowSchema}`;
  return {
    description: `Every matching ${name} record, streamed (chunked, no Content-Length): CSV with a header row (RFC 4180, CRLF, null as an empty field) or NDJSON (one object per line, each matching ${row}). gzip-coded when Accept-Encoding allows it.`,
    media: {
      'text/csv; charset=utf-8': { type: 'string', description: `CSV: a header row, then one row per record with the columns of ${row}` },
      // OpenAPI 3.1 has no item schema for a sequence of JSON texts; contentSchema names what each line is.
      'application/x-ndjson': {
        type: 'string',
        contentMediaType: 'application/x-ndjson',
        contentSchema: { $ref: row },
        description: `One JSON object per line, each matching ${row}`,
      },
    },
    headers: {
      'Content-Disposition': { description: 'attachment; filename="hcas-NAME-BUILD_ID.csv" (or .ndjson)', schema: { type: 'string' } },
    },
  };
}

const EXPORT_TYPES: Record<ExportKind, JsonSchema> = {
  text: string,
  integer,
  number,
  boolean,
  json: { type: 'array', items: string },
};

/** JSON columns that are not lists of names: the data quality of a score row, without the prose note of single records. */
const JSON_COLUMNS: Record<string, JsonSchema> = {
  data_quality: (() => {
    const { note: _note, ...properties } = (DataQuality as { properties: Record<string, JsonSchema> }).properties;
    return record(properties, 'What the score rests on (docs/api.md, "Data quality"), without the note.');
  })(),
};

/** One NDJSON line of an export (a CSV row has the same columns, in this order). */
function exportRow(name: ExportName): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const column of exportColumns(name)) {
    const type = JSON_COLUMNS[column.name] ?? EXPORT_TYPES[column.kind];
    properties[column.name] = column.nullable ? nullable(type) : type;
  }
  return record(properties, `One record of exports/${name}/: an NDJSON line, or a CSV row with these columns in this order.`);
}

/** The rows' schemas (openapi.json `components/schemas`). */
export const schemas: Record<string, JsonSchema> = {
  HealthScoreExportRow: exportRow('health-scores'),
  ProviderExportRow: exportRow('providers'),
  FacilityExportRow: exportRow('facilities'),
};

export const routes: readonly Route[] = [
  route({
    path: `${API_BASE}exports/health-scores/`,
    exported: EXPORT_STREAMS,
    kind: 'stream',
    summary: 'Every health score record of one score type as streamed CSV or NDJSON',
    tag,
    pathParams: NO_PARAMS,
    query: healthScoresExportQuery,
    response: exportDoc('health-scores', 'HealthScoreExportRow'),
    handle: exportHandler('health-scores'),
  }),
  route({
    path: `${API_BASE}exports/providers/`,
    exported: EXPORT_STREAMS,
    kind: 'stream',
    summary: 'Every provider (clinician) record as streamed CSV or NDJSON',
    tag,
    pathParams: NO_PARAMS,
    query: providersExportQuery,
    response: exportDoc('providers', 'ProviderExportRow'),
    handle: exportHandler('providers'),
  }),
  route({
    path: `${API_BASE}exports/facilities/`,
    exported: EXPORT_STREAMS,
    kind: 'stream',
    summary: 'Every facility record as streamed CSV or NDJSON',
    tag,
    pathParams: NO_PARAMS,
    query: facilitiesExportQuery,
    response: exportDoc('facilities', 'FacilityExportRow'),
    handle: exportHandler('facilities'),
  }),
];
