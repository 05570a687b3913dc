import type { HeaderDoc, JsonSchema, ResponseDoc } from './openapi.ts';

/** A route's JSON 200 for openapi.json; `notFound` says when it answers 404 beyond a bad page. */
export function json(description: string, schema: JsonSchema, notFound?: string): ResponseDoc {
  return { description, schema, ...(notFound && { notFound }) };
}

/** An export's 200: CSV or NDJSON, streamed, as an attachment. */
export function exportDoc(name: string, rowSchema: string): ResponseDoc {
  const row = `#/components/schemas/${rowSchema}`;
  return {
    description: `Every matching ${name} record, streamed (chunked, no Content-Length): CSV with a header row (RFC 4180, CRLF, null as an empty field) or NDJSON (one object per line, each matching ${row}). gzip-coded when Accept-Encoding allows it.`,
    media: {
      'text/csv; charset=utf-8': { type: 'string', description: `CSV: a header row, then one row per record with the columns of ${row}` },
      // OpenAPI 3.1 has no item schema for a sequence of JSON texts; contentSchema names what each line is.
      'application/x-ndjson': { type: 'string', contentMediaType: 'application/x-ndjson', contentSchema: { $ref: row }, description: `One JSON object per line, each matching ${row}` },
    },
    headers: {
      'Content-Disposition': { description: 'attachment; filename="hcas-NAME-BUILD_ID.csv" (or .ndjson)', schema: { type: 'string' } },
    },
  };
}

/** Headers of the widget's 200 (decisions.md, "Widget"). */
export const WIDGET_RESPONSE_HEADERS: Record<string, HeaderDoc> = {
  'Cache-Control': { description: '`public, max-age=86400`: browsers and CDNs may keep the answer for 24 hours.', schema: { type: 'string', const: 'public, max-age=86400' } },
  'Access-Control-Allow-Origin': { description: '`*`: any page may embed the widget.', schema: { type: 'string', const: '*' } },
  Vary: { description: 'The answer differs by credentials (white-label plans).', schema: { type: 'string' } },
};
