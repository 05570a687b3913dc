import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { build } from '../../pipeline/run/index.ts';
import { writeInput } from './files.ts';
import { cachedOutput } from './real-build.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
export const PUBLIC_MANIFEST = path.join(ROOT, 'raw/manifests/public.json');

/**
 * Builds the bundled public data with one source file changed in one known way: a copy of
 * raw/manifests/public.json whose source `sourceKey` names a copy of its file passed through `edit` (the text
 * of the CSV, gzipped back). Everything else is the public build's, the order of the sources too (a manifest
 * that `include`s another puts a replaced source last, and the first source with a value of a census measure
 * wins). Made once per edit, code and data, like the public build it is compared with (cachedOutput).
 */
export async function buildVariant(sourceKey: string, edit: (csv: string) => string): Promise<string> {
  const publicManifest = JSON.parse(readFileSync(PUBLIC_MANIFEST, 'utf8'));
  const spec = publicManifest.sources[sourceKey];
  const root = path.resolve(path.dirname(PUBLIC_MANIFEST), publicManifest.root);
  const text = gunzipSync(readFileSync(path.resolve(root, spec.path))).toString('utf8');
  const edited = edit(text);
  if (edited === text) throw new Error(`the edit of ${sourceKey} changed nothing`);
  const identity = createHash('sha256').update(edited).digest('hex');
  const made = await cachedOutput({ kind: `the public build with ${sourceKey} edited`, identity }, async (dir) => {
    const copy = writeInput(path.join(dir, path.basename(spec.path)), edited);
    const manifest = path.join(dir, 'manifest.json');
    const sources = { ...publicManifest.sources, [sourceKey]: { ...spec, path: copy } };
    writeFileSync(manifest, JSON.stringify({ ...publicManifest, root, sources }));
    await build({ manifest, out: path.join(dir, 'hcas.sqlite') });
  });
  return made.out;
}

/** The CSV without the rows `drop` picks (the header is kept). */
export function withoutRows(csv: string, drop: (line: string) => boolean): string {
  const [header, ...rows] = csv.split('\n');
  return [header, ...rows.filter((row) => row === '' || !drop(row))].join('\n');
}

/** The CSV with one column of the row `match` picks set to `value`. */
export function withValue(csv: string, match: (line: string) => boolean, column: string, value: string): string {
  const [header, ...rows] = csv.split('\n');
  const at = header.split(',').indexOf(column);
  if (at < 0) throw new Error(`no column ${column} in ${header}`);
  return [
    header,
    ...rows.map((row) => {
      if (!match(row)) return row;
      const cells = row.split(',');
      cells[at] = value;
      return cells.join(',');
    }),
  ].join('\n');
}
