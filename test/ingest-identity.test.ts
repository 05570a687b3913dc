/**
 * The fast reader (byte splitter, worker thread, parsing in the worker) must change nothing but speed: the
 * same sources ingested through it and through the reference reader (the string splitter it replaced) give
 * the same staged tables row by row, the same in-memory data, the same tallies and a byte-identical
 * rejects file. Checked on a generated sample (with its deliberately broken NPPES rows), on the same
 * NPPES file as a zip, and on the real public files in ../shared/data when they are there.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { ProviderStage } from '../pipeline/store/provider-stage.ts';
import { endStaging } from '../pipeline/store/providers.ts';
import { createSchema } from '../pipeline/store/schema.ts';
import { ingestAll } from '../pipeline/ingest/index.ts';
import { Reconciler } from '../pipeline/ingest/reconcile.ts';
import type { IngestOptions } from '../pipeline/ingest/source.ts';
import { LAYOUTS } from '../pipeline/layouts/index.ts';
import { loadManifest } from '../pipeline/config/manifest.ts';
import { writeSample } from '../producers/sample/index.ts';
import { tempDir, writeInput } from './helpers/files.ts';
import { openReference } from './helpers/reference-reader.ts';

// writeSample writes a whole synthetic nation, the files raw/manifests/synthetic.json names.
const SAMPLE_MANIFEST = path.resolve(import.meta.dirname, '../raw/manifests/synthetic.json');
const SHARED_MANIFEST = path.resolve(import.meta.dirname, '../raw/manifests/shared-data.json');
const haveSharedData = existsSync(path.resolve(import.meta.dirname, '../../shared/data/census'));

/** Everything ingest produces, in plain comparable form: staged tables, in-memory data, tallies, rejects. */
async function ingest(manifestFile: string, root: string | undefined, options: IngestOptions) {
  const dir = tempDir('hcas-identity-');
  const manifest = loadManifest(manifestFile, new Set(LAYOUTS.keys()), root);
  const db = new Database(':memory:');
  db.prepare('ATTACH DATABASE ? AS stage').run(path.join(dir, 'stage.sqlite'));
  createSchema(db); // NPPES rows land in the output's providers table
  const rejectsFile = path.join(dir, 'rejects.csv');
  const reconciler = new Reconciler(rejectsFile);
  const stage = new ProviderStage(db);
  const data = {
    ...(await ingestAll(manifest, stage, reconciler, () => {}, options)),
    providerCounts: endStaging(stage, reconciler, () => {}),
  };
  await reconciler.close();
  const table = (name: string) => db.prepare(`SELECT * FROM ${name} ORDER BY rowid`).raw().all();
  const plain = (value: unknown): unknown =>
    value instanceof Map ? [...value].map(([k, v]) => [k, plain(v)]) : Array.isArray(value) ? value.map(plain) : value;
  const result = {
    providers: table('providers'),
    stageClinicians: table('stage_clinicians'),
    data: Object.fromEntries(
      Object.entries(data)
        .filter(([key]) => key !== 'sourcesByLayout')
        .map(([key, value]) => [key, plain(value)]),
    ),
    tallies: [...reconciler.tallies.values()],
    rejects: readFileSync(rejectsFile, 'utf8'),
  };
  db.close();
  return result;
}

function expectSame(fast: Awaited<ReturnType<typeof ingest>>, reference: Awaited<ReturnType<typeof ingest>>) {
  // Identical results, the expected case, are recognised whole in a fraction of a second (strictly equal is
  // equal); vitest's comparison took seconds each on these hundreds of thousands of rows, and only serves to
  // name a difference.
  if (isDeepStrictEqual(fast, reference)) return;
  // Table by table first, so a difference names where it is before the whole is compared.
  expect(fast.tallies).toEqual(reference.tallies);
  expect(fast.rejects).toBe(reference.rejects);
  expect(fast.providers.length).toBe(reference.providers.length);
  expect(fast.providers).toEqual(reference.providers);
  expect(fast.stageClinicians).toEqual(reference.stageClinicians);
  for (const key of Object.keys(reference.data)) expect(fast.data[key], key).toEqual(reference.data[key]);
}

describe('the fast reader ingests exactly what the reference reader does', () => {
  it('on a generated sample, in the worker thread, and from a zip of the NPPES file', async () => {
    const root = path.join(tempDir(), 'raw');
    const sample = await writeSample({ outDir: root, providers: 5_000, facilities: 400, seed: 11 });
    expect(sample.brokenRows.length).toBeGreaterThan(0);
    const reference = await ingest(SAMPLE_MANIFEST, root, { open: openReference });
    expect(reference.rejects).toMatch(/,invalid,/);
    expectSame(await ingest(SAMPLE_MANIFEST, root, { threads: 'worker' }), reference);
    // Rows parsed in the worker cross packed (row-codec.ts); rows parsed on the main thread cross as raw bytes.
    expectSame(await ingest(SAMPLE_MANIFEST, root, { threads: 'worker', parseIn: 'worker' }), reference);
    expectSame(await ingest(SAMPLE_MANIFEST, root, { threads: 'worker', parseIn: 'main' }), reference);
    expectSame(await ingest(SAMPLE_MANIFEST, root, { threads: 'main' }), reference);

    // The real NPPES file ships as a .zip: the same rows through the zip reader.
    const manifest = JSON.parse(readFileSync(SAMPLE_MANIFEST, 'utf8'));
    const nppes = manifest.sources.nppes.path as string;
    const zipped = nppes.replace(/\.csv\.gz$/, '.zip');
    writeInput(path.join(root, zipped), gunzipSync(readFileSync(path.join(root, nppes))).toString('utf8'));
    manifest.sources.nppes.path = zipped;
    const zipManifest = path.join(root, '..', 'zip-manifest.json');
    writeFileSync(zipManifest, JSON.stringify(manifest));
    const fromZip = await ingest(zipManifest, root, { threads: 'worker' });
    expect(fromZip.rejects).toBe(reference.rejects.replaceAll(nppes, zipped));
    if (!isDeepStrictEqual(fromZip.providers, reference.providers)) expect(fromZip.providers).toEqual(reference.providers);
  }, 240_000);

  it.skipIf(!haveSharedData)(
    'on the real public files in ../shared/data (their quirks included)',
    async () => {
      const reference = await ingest(SHARED_MANIFEST, undefined, { open: openReference });
      expectSame(await ingest(SHARED_MANIFEST, undefined, {}), reference);
    },
    240_000,
  );
});
