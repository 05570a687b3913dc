/** Baseline for the build benchmark: read every source of a manifest through the same reader, doing nothing else. */
import { openRecords } from '../pipeline/ingest/read.ts';
import { LAYOUTS } from '../pipeline/layouts/index.ts';
import { loadManifest } from '../pipeline/config/manifest.ts';

const [manifestFile, root] = process.argv.slice(2);
const manifest = loadManifest(manifestFile, new Set(LAYOUTS.keys()), root);
let rows = 0;
for (const source of manifest.sources) {
  const records = await openRecords(source.path, source.key);
  records.select([]);
  for await (const batch of records.batches) rows += batch.count;
}
console.log(`${rows} rows read`);
