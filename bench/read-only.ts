/** Baseline for the build benchmark: read every source of a manifest through the same reader, doing nothing else. */
import { openRecords } from '../pipeline/ingest/read.ts';
import { LAYOUTS } from '../pipeline/layouts/index.ts';
import { loadManifest } from '../pipeline/manifest.ts';

const [manifestFile, root] = process.argv.slice(2);
const manifest = loadManifest(manifestFile, new Set(LAYOUTS.keys()), root);
let rows = 0;
for (const source of manifest.sources) {
  const { batches } = await openRecords(source.path, source.key);
  for await (const batch of batches) rows += batch.length;
}
console.log(`${rows} rows read`);
