import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { cachedFolder } from './helpers/build-cache.ts';
import { cachedBuild } from './helpers/real-build.ts';
import { BUNDLED_ROSTERS, bundles, makeBundle, PROVIDER_LAYOUTS, type ProvenanceEntry } from '../producers/bundle/bundle.ts';
import { openRecords } from '../pipeline/ingest/read.ts';
import { LAYOUTS } from '../pipeline/layouts/index.ts';
import { loadManifest } from '../pipeline/config/manifest.ts';
import { SHARED_DATA, tempDir } from './helpers/files.ts';
import { needsSharedData } from './helpers/shared-data.ts';

const REPO = path.resolve(import.meta.dirname, '..');
const BUNDLE = path.join(REPO, 'raw/public');
const PUBLIC_MANIFEST = path.join(REPO, 'raw/manifests/public.json');
const SHARED_MANIFEST = path.join(REPO, 'raw/manifests/shared-data.json');
const provenance = JSON.parse(readFileSync(path.join(BUNDLE, 'provenance.json'), 'utf8')) as {
  total_bytes: number;
  files: ProvenanceEntry[];
};
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const readJson = (file: string) => JSON.parse(readFileSync(file, 'utf8'));

/** Header and data-row count of a file, read the way the build reads it. */
async function readWithBuildReader(file: string): Promise<{ header: string[]; rows: number }> {
  const source = await openRecords(file, 'test');
  source.select([]);
  let rows = 0;
  for await (const batch of source.batches) rows += batch.count;
  return { header: source.header, rows };
}

describe('the public bundle in raw/public', () => {
  it.each(provenance.files.map((entry) => [entry.key, entry] as const))(
    '%s: provenance matches the file (sha256, bytes, rows, columns)',
    async (_key, entry) => {
      const file = path.join(BUNDLE, entry.path);
      const bytes = readFileSync(file);
      expect(sha256(bytes)).toBe(entry.sha256);
      expect(bytes.length).toBe(entry.bytes);
      expect(sha256(gunzipSync(bytes))).toBe(entry.csv_sha256);
      // The header the build sees is the kept columns, so the delimiter sniffing and the layout aliases still work.
      expect(await readWithBuildReader(file)).toEqual({ header: entry.columns, rows: entry.rows });
      for (const field of ['vintage', 'publisher', 'dataset', 'retrieved_from', 'licence'] as const)
        expect(entry[field], field).toMatch(/\S/);
      expect(entry.original.sha256).toMatch(/^[0-9a-f]{64}$/);
    },
  );

  it('holds exactly the files provenance.json lists, no provider file but the complete rosters, and weighs under 20 MB', () => {
    const files = readdirSync(BUNDLE, { recursive: true, encoding: 'utf8' })
      .map((f) => f.split(path.sep).join('/'))
      .filter((f) => statSync(path.join(BUNDLE, f)).isFile());
    expect(files.filter((f) => f.endsWith('.gz')).sort()).toEqual(provenance.files.map((e) => e.path).sort());
    const rosters = provenance.files.filter((e) => PROVIDER_LAYOUTS.has(e.layout));
    expect(rosters.map((e) => e.key)).toEqual([...BUNDLED_ROSTERS]);
    expect(files.filter((f) => /npi|nppes|dac_|clinician/i.test(f))).toEqual(rosters.map((e) => e.path));
    const weight = files.reduce((sum, f) => sum + statSync(path.join(BUNDLE, f)).size, 0);
    expect(weight).toBeLessThan(20 * 2 ** 20);
    expect(provenance.total_bytes).toBe(provenance.files.reduce((sum, e) => sum + e.bytes, 0));
  });

  it('public.json names every bundled file, only those, no provider extract, and publishes the provider component', () => {
    const manifest = loadManifest(PUBLIC_MANIFEST, new Set(LAYOUTS.keys()));
    expect(manifest.providers.onPartialCoverage).toBe('refuse');
    expect(manifest.sources.filter((s) => !bundles(s))).toEqual([]);
    expect(manifest.sources.filter((s) => s.layout === 'clinician_counts').length).toBeGreaterThan(0);
    for (const source of manifest.sources) expect(existsSync(source.path), source.path).toBe(true);
    const byKey = new Map(provenance.files.map((e) => [e.key, e]));
    expect(manifest.sources.map((s) => s.key).sort()).toEqual([...byKey.keys()].sort());
    for (const source of manifest.sources) {
      expect(path.relative(BUNDLE, source.path).split(path.sep).join('/')).toBe(byKey.get(source.key)!.path);
      expect(source.layout).toBe(byKey.get(source.key)!.layout);
    }
  });

  it('public.json keeps the keys, layouts, columns, options and provenance of shared-data.json for the same files', () => {
    const bundle = readJson(PUBLIC_MANIFEST).sources as Record<string, Record<string, unknown>>;
    const shared = readJson(SHARED_MANIFEST).sources as Record<string, Record<string, unknown>>;
    const bundled = Object.keys(shared).filter((key) => bundles({ key, layout: shared[key].layout as string }));
    expect(Object.keys(bundle)).toEqual(bundled);
    for (const key of bundled) expect({ ...bundle[key], path: null }, key).toEqual({ ...shared[key], path: null });
    // Every file of shared-data.json, providers included, says where it came from and on what terms.
    for (const [key, spec] of Object.entries(shared)) {
      for (const field of ['source_url', 'licence', 'retrieved_from']) expect(typeof spec[field], `${key}.${field}`).toBe('string');
    }
  });

  it("the build records each source's provenance fields in meta, and refuses a non-string one naming the key", () => {
    const manifest = loadManifest(PUBLIC_MANIFEST, new Set(LAYOUTS.keys()));
    const gazetteer = manifest.sources.find((s) => s.key === 'gazetteer')!;
    expect(gazetteer).toMatchObject({
      sourceUrl: expect.stringMatching(/^https:\/\/www\.census\.gov\//),
      licence: expect.stringMatching(/public domain/i),
      retrievedFrom: expect.any(String),
    });
    const bad = path.join(tempDir(), 'bad.json');
    writeFileSync(bad, JSON.stringify({ sources: { gazetteer: { layout: 'gazetteer_zcta', path: 'x.txt', licence: 5 } } }));
    expect(() => loadManifest(bad, new Set(LAYOUTS.keys()))).toThrow(/"sources\.gazetteer\.licence": expected a string, got 5/);
  });
});

const haveData = needsSharedData("the public bundle's equivalence test");

describe.skipIf(!haveData)('the public bundle against the originals in ../shared/data', () => {
  const dir = haveData ? tempDir('hcas-bundle-') : '';
  type Built = { db: Database.Database; rejects: string[][] };
  let fromBundle: Built;
  let fromOriginals: Built;

  /** shared-data.json without its provider extracts, with the same providers policy as public.json. */
  function originalsManifest(): string {
    const manifest = readJson(SHARED_MANIFEST);
    for (const [key, spec] of Object.entries<{ layout: string }>(manifest.sources))
      if (!bundles({ key, layout: spec.layout })) delete manifest.sources[key];
    manifest.root = SHARED_DATA;
    manifest.providers = readJson(PUBLIC_MANIFEST).providers;
    const file = path.join(dir, 'originals.json');
    writeFileSync(file, JSON.stringify(manifest));
    return file;
  }

  /** A build's database and its rejected rows (source, line, kind). */
  function opened({ out, rejectsFile }: { out: string; rejectsFile: string }): Built {
    // source,file,line,kind,code,reason: the source key never needs quotes, the file path may.
    const rejects = readFileSync(rejectsFile, 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((line) => /^([^,]*),(?:"(?:[^"]|"")*"|[^,]*),(\d+),([a-z]+),/.exec(line)!.slice(1));
    return { db: new Database(out, { readonly: true }), rejects };
  }

  beforeAll(async () => {
    // Both made once per code and data; the bundle's build is the public build other test files read too.
    fromOriginals = opened(await cachedBuild(originalsManifest()));
    fromBundle = opened(await cachedBuild(PUBLIC_MANIFEST));
  }, 600_000);

  it('cutting the originals again gives the committed bundle (same CSV content, rows and columns)', async () => {
    // Cut once per code and data, as the builds are (build-cache.ts: producers/, raw/ and ../shared/data are
    // in its key); what the cut says it wrote and the manifest it wrote are kept, not the files themselves.
    const cut = await cachedFolder({ kind: 'the public bundle cut again from ../shared/data' }, async (folder) => {
      const out = path.join(folder, 'recut');
      const entries = await makeBundle({
        manifest: SHARED_MANIFEST,
        from: SHARED_DATA,
        out,
        publicManifest: path.join(folder, 'public.json'),
      });
      writeFileSync(path.join(folder, 'entries.json'), JSON.stringify(entries));
      rmSync(out, { recursive: true, force: true });
    });
    const entries = readJson(path.join(cut, 'entries.json')) as ProvenanceEntry[];
    const strip = (e: ProvenanceEntry) => ({ ...e, sha256: null, bytes: null });
    // The gzip bytes depend on the zlib Node was built with; the CSV inside does not.
    expect(entries.map(strip)).toEqual(provenance.files.map(strip));
    expect(readFileSync(path.join(cut, 'public.json'), 'utf8').replace(/"root": "[^"]*"/, '')).toBe(
      readFileSync(PUBLIC_MANIFEST, 'utf8').replace(/"root": "[^"]*"/, ''),
    );
  }, 120_000);

  it('builds the same content as the originals, table by table', () => {
    const tables = (db: Database.Database) =>
      (
        db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name <> 'meta' ORDER BY name").all() as Array<{ name: string }>
      ).map((t) => t.name);
    expect(tables(fromBundle.db)).toEqual(tables(fromOriginals.db));
    for (const table of ['zips', 'health_scores', 'census', 'facilities', 'tvi', 'zip_access', 'states', 'zip_reference'])
      expect(tables(fromBundle.db)).toContain(table);
    for (const table of tables(fromOriginals.db))
      expect(tableDigest(fromBundle.db, table), table).toEqual(tableDigest(fromOriginals.db, table));
  }, 120_000);

  it('reconciles every source the same way: read, landed, rejected (and why), and rejects the same lines', () => {
    const meta = (db: Database.Database, key: string) =>
      JSON.parse((db.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: string }).value);
    // Reasons by code, kind and count: the example is one row's own reason, whose values may differ (field counts).
    const tallies = (db: Database.Database) =>
      (meta(db, 'reconciliation') as Array<{ file: string; reasons: Record<string, { example: string }> }>).map(
        ({ file: _file, reasons, ...tally }) => ({
          ...tally,
          reasons: Object.fromEntries(Object.entries(reasons).map(([code, { example: _example, ...group }]) => [code, group])),
        }),
      );
    expect(tallies(fromBundle.db)).toEqual(tallies(fromOriginals.db));
    for (const key of ['row_counts', 'facility_merge', 'provider_coverage', 'validation', 'data_quality', 'places'])
      expect(meta(fromBundle.db, key), key).toEqual(meta(fromOriginals.db, key));
    // Same source, line and kind for every rejected row; the reason differs only in the field counts of short rows.
    expect(fromBundle.rejects).toEqual(fromOriginals.rejects);
    expect(fromBundle.rejects.length).toBeGreaterThan(0);
  });
});

/**
 * Row count and a digest of every row of a table, in a deterministic order. Rows of plain values are hashed
 * as their JSON text, a megabyte at a time (one hash call per value took 2.8 s for a build, 1.7 s this way);
 * a row holding a blob (the KD-tree) is hashed value by value, its bytes as they are.
 */
function tableDigest(db: Database.Database, table: string): { rows: number; sha256: string } {
  const columns = db.prepare(`SELECT * FROM "${table}" LIMIT 0`).columns().length;
  const order = Array.from({ length: columns }, (_, i) => i + 1).join(', ');
  const hash = createHash('sha256');
  let rows = 0;
  let text = '';
  for (const row of db.prepare(`SELECT * FROM "${table}" ORDER BY ${order}`).raw().iterate() as Iterable<unknown[]>) {
    rows++;
    if (!row.some((value) => Buffer.isBuffer(value))) {
      text += `${JSON.stringify(row)}\n`;
      if (text.length >= 1 << 20) {
        hash.update(text);
        text = '';
      }
      continue;
    }
    hash.update(text);
    text = '';
    for (const value of row) {
      if (Buffer.isBuffer(value)) hash.update(`blob ${value.length}:`).update(value);
      else hash.update(`${JSON.stringify(value)},`);
    }
    hash.update('\n');
  }
  hash.update(text);
  return { rows, sha256: hash.digest('hex') };
}
