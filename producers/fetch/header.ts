import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createGunzip } from 'node:zlib';
import type { Readable } from 'node:stream';
import { BuildError } from '../../pipeline/base/errors.ts';
import { detectDelimiter } from '../../pipeline/ingest/read.ts';
import type { Layout } from '../../pipeline/layouts/types.ts';

/**
 * The column names of a downloaded file as the build will see them: the first line of a .csv/.txt (or the
 * .gz of one), split on the delimiter the build's reader would pick, or the first row of a Census API JSON.
 */
export async function readHeader(file: string): Promise<string[]> {
  if (/\.json$/i.test(file)) {
    let rows: unknown;
    try {
      rows = JSON.parse(await readFile(file, 'utf8'));
    } catch (error) {
      const start = (await readFile(file, 'utf8')).slice(0, 80);
      throw new BuildError(`${file} is not JSON (${(error as Error).message}); it starts ${JSON.stringify(start)}`);
    }
    if (!Array.isArray(rows) || !Array.isArray(rows[0]))
      throw new BuildError(`${file} is not a Census API export: expected an array of arrays with the header row first`);
    return (rows[0] as unknown[]).map((name) => clean(String(name)));
  }
  const raw = createReadStream(file, { highWaterMark: 1 << 16 });
  const stream: Readable = /\.gz$/i.test(file) ? raw.pipe(createGunzip()) : raw;
  raw.once('error', (error) => stream.destroy(error));
  const line = await firstLine(stream);
  return splitHeader(line).map(clean);
}

async function firstLine(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  let length = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      const newline = chunk.indexOf(10);
      chunks.push(newline >= 0 ? chunk.subarray(0, newline) : chunk);
      length += chunk.length;
      if (newline >= 0 || length > 4 << 20) break;
    }
  } finally {
    stream.destroy();
  }
  return Buffer.concat(chunks).toString('utf8').replace(/\r$/, '');
}

/** Splits one header line, honouring double quotes (NPPES quotes every name). */
export function splitHeader(line: string): string[] {
  const delimiter = detectDelimiter(line);
  const fields: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"' && field.trim() === '' && delimiter !== '\t') {
      quoted = true;
    } else if (c === delimiter) {
      fields.push(field);
      field = '';
    } else field += c;
  }
  fields.push(field);
  return fields;
}

function clean(name: string): string {
  return name.replace(/^\uFEFF/, '').trim();
}

/** What the build will need from a file: its layout's required fields, the columns the manifest maps, and any extra names. */
export interface ColumnNeeds {
  layout: Layout<unknown>;
  columns: Record<string, string>;
  expectColumns: string[];
}

/** The columns the build needs that the header lacks, each with the field it serves and the names tried. */
export function missingColumns(header: string[], needs: ColumnNeeds): Array<{ field: string | null; wanted: string[] }> {
  const present = new Set(header.map((name) => name.toLowerCase()));
  const missing: Array<{ field: string | null; wanted: string[] }> = [];
  const fields = new Set([
    ...Object.entries(needs.layout.fields)
      .filter(([, spec]) => spec.required)
      .map(([name]) => name),
    ...Object.keys(needs.columns),
  ]);
  for (const field of fields) {
    const override = needs.columns[field];
    const wanted = override ? [override] : (needs.layout.fields[field]?.aliases ?? []);
    if (!wanted.some((name) => present.has(name.toLowerCase()))) missing.push({ field, wanted });
  }
  for (const name of needs.expectColumns) if (!present.has(name.toLowerCase())) missing.push({ field: null, wanted: [name] });
  return missing;
}
