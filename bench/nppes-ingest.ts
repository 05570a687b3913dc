/**
 * The build's NPPES ingest on its own, for the build benchmark to time beside DuckDB in alternation: every
 * source the build reads up to and including NPPES (the crosswalks it maps ZIPs through, the code set that
 * names specialties, and what else sits in memory while it runs), read by ingestAll into a database opened
 * as `hcas build` opens it. Reading only the Gazetteer, the crosswalk and NPPES measured about 5% faster
 * than this, which is closer to the build. Run it with the build's runtime
 * (bench/build.ts passes the flags and environment of pipeline/cli/index.ts). Prints one JSON line: the
 * NPPES source's rows and seconds, as the build log reports them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openStore } from '../pipeline/store/open.ts';
import { ProviderStage } from '../pipeline/store/provider-stage.ts';
import { endStaging } from '../pipeline/store/providers.ts';
import { ingestAll } from '../pipeline/ingest/index.ts';
import { LAYOUT_ORDER } from '../pipeline/layouts/index.ts';
import { Reconciler } from '../pipeline/ingest/reconcile.ts';
import { LAYOUTS } from '../pipeline/layouts/index.ts';
import { loadManifest } from '../pipeline/config/manifest.ts';

/** The layouts read after NPPES (Doctors and Clinicians) are left out; the rest come in the build's order. */
const LAST_NEEDED = Math.max(LAYOUT_ORDER.indexOf('nppes'), LAYOUT_ORDER.indexOf('nppes_flat'));

const [manifestFile, root] = process.argv.slice(2);
if (!manifestFile || !root) {
  console.error('usage: node bin/run-ts.js bench/nppes-ingest.ts MANIFEST ROOT');
  process.exit(2);
}
const manifest = loadManifest(manifestFile, new Set(LAYOUTS.keys()), root);
manifest.sources = manifest.sources.filter((source) => LAYOUT_ORDER.indexOf(source.layout) <= LAST_NEEDED);
const dir = mkdtempSync(path.join(tmpdir(), 'hcas-nppes-ingest-'));
try {
  const db = openStore(path.join(dir, 'hcas.sqlite'), path.join(dir, 'stage.sqlite'));
  const reconciler = new Reconciler(path.join(dir, 'rejects.csv'));
  const lines: string[] = [];
  const stage = new ProviderStage(db);
  await ingestAll(manifest, stage, reconciler, (line) => lines.push(line));
  endStaging(stage, reconciler, () => {});
  await reconciler.close();
  db.close();
  const nppes = lines.map((line) => /^ {2}nppes +(\d+) read .* ([\d.]+)s$/.exec(line)).find((match) => match !== null);
  if (!nppes) throw new Error(`no NPPES source in ${manifestFile}; ingest said:\n${lines.join('\n')}`);
  console.log(JSON.stringify({ rows: Number(nppes[1]), seconds: Number(nppes[2]) }));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
