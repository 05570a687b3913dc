/**
 * The build's NPPES ingest on its own, for the build benchmark to time beside DuckDB in alternation: the
 * manifest's Gazetteer and ZIP-ZCTA crosswalk (which NPPES staging maps ZIPs through) and its NPPES file,
 * read by ingestAll into a database opened as `hcas build` opens it. Run it with the build's runtime
 * (bench/build.ts passes the flags and environment of pipeline/cli/index.ts). Prints one JSON line: the
 * NPPES source's rows and seconds, as the build log reports them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openForIngest } from '../pipeline/build.ts';
import { ingestAll } from '../pipeline/ingest/index.ts';
import { Reconciler } from '../pipeline/ingest/reconcile.ts';
import { LAYOUTS } from '../pipeline/layouts/index.ts';
import { loadManifest } from '../pipeline/manifest.ts';

const NEEDED = new Set(['gazetteer_zcta', 'zip_zcta', 'nppes']);

const [manifestFile, root] = process.argv.slice(2);
if (!manifestFile || !root) {
  console.error('usage: node bin/run-ts.js bench/nppes-ingest.ts MANIFEST ROOT');
  process.exit(2);
}
const manifest = loadManifest(manifestFile, new Set(LAYOUTS.keys()), root);
manifest.sources = manifest.sources.filter((source) => NEEDED.has(source.layout));
const dir = mkdtempSync(path.join(tmpdir(), 'hcas-nppes-ingest-'));
try {
  const db = openForIngest(path.join(dir, 'hcas.sqlite'), path.join(dir, 'stage.sqlite'));
  const reconciler = new Reconciler(path.join(dir, 'rejects.csv'));
  const lines: string[] = [];
  await ingestAll(manifest, db, reconciler, (line) => lines.push(line));
  await reconciler.close();
  db.close();
  const nppes = lines.map((line) => /^ {2}nppes +(\d+) read .* ([\d.]+)s$/.exec(line)).find((match) => match !== null);
  if (!nppes) throw new Error(`no NPPES source in ${manifestFile}; ingest said:\n${lines.join('\n')}`);
  console.log(JSON.stringify({ rows: Number(nppes[1]), seconds: Number(nppes[2]) }));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
