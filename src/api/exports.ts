import { csvField, csvRecord } from '../http/csv.ts';
import * as param from '../http/params.ts';
import type { HandlerContext, NoParams, StreamResult } from '../http/route.ts';
import { exportColumns, type ExportColumn, type ExportFilter, type ExportName } from '../query/exports.ts';

/** Rows read per batch: large enough that each write is a sizeable chunk, small enough to stay in cache. */
export const EXPORT_BATCH_ROWS = 1000;

export const EXPORT_FORMATS = {
  csv: { type: 'text/csv; charset=utf-8', extension: 'csv' },
  ndjson: { type: 'application/x-ndjson', extension: 'ndjson' },
} as const;
type Format = keyof typeof EXPORT_FORMATS;

const format = param.param<Format>('csv or ndjson', (raw) => {
  const name = raw.toLowerCase();
  return name === 'csv' || name === 'ndjson' ? name : undefined;
}, 'csv', { type: 'string', enum: Object.keys(EXPORT_FORMATS), default: 'csv' });

export const healthScoresExportQuery = { format, score_type: param.scoreType, state: param.state };
export const providersExportQuery = { format, state: param.state };
export const facilitiesExportQuery = { format, state: param.state };

type ExportQuery = { format: Format; state: string | undefined; score_type?: number };

/**
 * The handler of `exports/{name}/`: every matching record, streamed in a stable order (health scores by ZIP
 * code, providers in the build's storage order, facilities by id)
 * as CSV (header row, RFC 4180 quoting, null as an empty field, booleans `true`/`false`, JSON arrays as JSON
 * text) or NDJSON (one JSON object per line).
 */
export function exportHandler(name: ExportName) {
  return ({ query, queries }: HandlerContext<NoParams, ExportQuery>): StreamResult => {
    const filter: ExportFilter = { state: query.state, scoreTypeId: query.score_type };
    const columns = exportColumns(name);
    const encode = query.format === 'csv' ? csvEncoder(columns) : ndjsonEncoder(columns);
    const { type, extension } = EXPORT_FORMATS[query.format];
    function* chunks(): Generator<string> {
      if (query.format === 'csv') yield csvRecord(columns.map((c) => c.name));
      let after = queries.exports.start(name);
      for (;;) {
        let text = '';
        const last = queries.exports.batch(name, filter, after, EXPORT_BATCH_ROWS, (values) => (text += encode(values)));
        if (last === undefined) return;
        yield text;
        after = last;
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
      record[columns[i].name] = value === null ? null : kind === 'boolean' ? value === 1 : kind === 'json' ? JSON.parse(value as string) : value;
    }
    return `${JSON.stringify(record)}\n`;
  };
}
