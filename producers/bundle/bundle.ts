import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { fileChecksum } from '../../pipeline/base/checksum.ts';
import { LAYOUTS } from '../../pipeline/layouts/index.ts';
import { loadManifest } from '../../pipeline/config/manifest.ts';
import { keptColumns } from './columns.ts';
import { cutFile } from './cut.ts';
import { PUBLISHERS } from './publishers.ts';

/** The layouts of provider files, which name clinicians one by one. */
export const PROVIDER_LAYOUTS: ReadonlySet<string> = new Set(['nppes', 'nppes_flat', 'doctors_clinicians']);

/**
 * The provider files the bundle holds: rosters that list every clinician of a category (the OB/GYN roster of
 * CMS Doctors and Clinicians, which the build uses as the category's source). The other provider files of the
 * originals are extracts of the national files, which name clinicians without counting them, and stay out.
 */
export const BUNDLED_ROSTERS: ReadonlySet<string> = new Set(['obgyn_roster']);

/** Whether the bundle holds a source of the originals' manifest. */
export function bundles(spec: { key: string; layout: string }): boolean {
  return !PROVIDER_LAYOUTS.has(spec.layout) || BUNDLED_ROSTERS.has(spec.key);
}

export interface BundleOptions {
  /** The manifest of the originals (raw/manifests/shared-data.json). */
  manifest: string;
  /** Folder of the originals, instead of the manifest's own `root`. */
  from?: string;
  /** The bundle folder (raw/public). */
  out: string;
  /** Where to write the bundle's manifest (raw/manifests/public.json). */
  publicManifest: string;
  log?: (line: string) => void;
}

/** One bundled file in provenance.json. */
export interface ProvenanceEntry {
  key: string;
  path: string;
  layout: string;
  rows: number;
  bytes: number;
  sha256: string;
  csv_sha256: string;
  columns: string[];
  original: { path: string; bytes: number; sha256: string; columns: number };
  dropped_columns: string[];
  trimmed: string;
  vintage: string;
  publisher: string;
  dataset: string;
  source_url: string | null;
  retrieved_from: string | null;
  licence: string | null;
}

/**
 * Cuts every file of the manifest but the provider extracts down to the columns the build reads and writes
 * `<out>/<group>/<name>.csv.gz`, `<out>/provenance.json` and the bundle's own manifest. Every data row is
 * kept, rejected ones included, so a build from the bundle reconciles exactly as one from the originals.
 */
export async function makeBundle(options: BundleOptions): Promise<ProvenanceEntry[]> {
  const log = options.log ?? (() => {});
  const raw = JSON.parse(readFileSync(options.manifest, 'utf8'));
  const root = path.resolve(options.from ?? path.join(path.dirname(options.manifest), raw.root ?? '.'));
  const manifest = loadManifest(options.manifest, new Set(LAYOUTS.keys()), root);
  const out = path.resolve(options.out);
  const entries: ProvenanceEntry[] = [];
  const bundleSources: Record<string, unknown> = {};
  for (const spec of manifest.sources.filter(bundles)) {
    const originalPath = path.relative(root, spec.path).split(path.sep).join('/');
    const bundledPath = `${path.posix.dirname(originalPath)}/${path.posix.basename(originalPath).replace(/(\.(csv|txt))?(\.gz)?$/i, '')}.csv.gz`;
    const cut = await cutFile(spec.path, spec.key, (header) => keptColumns(spec, LAYOUTS.get(spec.layout)!, header));
    mkdirSync(path.dirname(path.join(out, bundledPath)), { recursive: true });
    writeFileSync(path.join(out, bundledPath), cut.gzip);
    const original = await fileChecksum(spec.path);
    const dropped = cut.originalColumns.filter((name) => !cut.columns.includes(name));
    const publisher = PUBLISHERS[spec.key] ?? { publisher: 'unknown', dataset: spec.key };
    entries.push({
      key: spec.key,
      path: bundledPath,
      layout: spec.layout,
      rows: cut.rows,
      bytes: cut.gzip.length,
      sha256: createHash('sha256').update(cut.gzip).digest('hex'),
      csv_sha256: cut.csvSha256,
      columns: cut.columns,
      original: { path: originalPath, bytes: original.bytes, sha256: original.sha256, columns: cut.originalColumns.length },
      dropped_columns: dropped,
      trimmed: trimmedNote(cut, dropped.length, originalPath),
      vintage: spec.vintage,
      ...publisher,
      source_url: spec.sourceUrl ?? null,
      retrieved_from: spec.retrievedFrom ?? null,
      licence: spec.licence ?? null,
    });
    bundleSources[spec.key] = { ...raw.sources[spec.key], path: bundledPath };
    log(
      `  ${spec.key.padEnd(26)} ${String(cut.rows).padStart(7)} rows ${String(cut.columns.length).padStart(3)}/${String(cut.originalColumns.length).padEnd(3)} columns ${kb(original.bytes).padStart(9)} -> ${kb(cut.gzip.length).padStart(8)}`,
    );
  }
  removeStale(out, new Set(entries.map((e) => e.path)), log);
  const totalBytes = entries.reduce((sum, e) => sum + e.bytes, 0);
  const manifestRef = path.relative(out, path.resolve(options.manifest)).split(path.sep).join('/');
  writeFileSync(
    path.join(out, 'provenance.json'),
    `${JSON.stringify({ generated_by: 'node bin/run-ts.js producers/bundle/make-bundle.ts', cut_from: manifestRef, total_bytes: totalBytes, files: entries }, null, 2)}\n`,
  );
  writeFileSync(
    options.publicManifest,
    bundleManifest(raw, bundleSources, path.relative(path.dirname(path.resolve(options.publicManifest)), out)),
  );
  log(`  ${entries.length} files, ${kb(totalBytes)} in ${out}`);
  return entries;
}

function trimmedNote(cut: { shortRows: number; movedRows: number }, dropped: number, originalPath: string): string {
  const notes = [dropped ? `dropped ${dropped} column(s) the build does not read` : 'kept every column'];
  if (/\.txt(\.gz)?$/i.test(originalPath)) notes.push('tab-separated text rewritten as CSV');
  notes.push('blanks around values removed (the build trims every value)');
  if (cut.shortRows) notes.push(`${cut.shortRows} row(s) shorter than the header kept short, so the build still rejects them`);
  if (cut.movedRows) notes.push(`${cut.movedRows} row(s) start on another line than in the original (a dropped column held line breaks)`);
  return notes.join('; ');
}

/** The bundle's manifest: the same keys, layouts, columns and options as the originals', paths into the bundle. */
function bundleManifest(raw: Record<string, unknown>, sources: Record<string, unknown>, root: string): string {
  const head = {
    name: 'US public data (bundled extract, raw/public)',
    synthetic: false,
    notice:
      'Real public data: the Census 2023 ZCTA Gazetteer, ACS 5-year tables, CDC PLACES, HEROP drive times, CMS, HIFLD, CovidCareMap and HRSA facilities, and real clinician counts per county (County Health Rankings: primary care physicians, primary care NPs and PAs, mental health providers, dentists), physicians per census tract (Dartmouth Atlas, 2010) and the CMS roster of OB/GYNs, cut to the columns the build reads (raw/public/provenance.json). No NPPES or Doctors and Clinicians extract: they name clinicians without counting them.',
    generated_by: 'node bin/run-ts.js producers/bundle/make-bundle.ts (do not edit by hand)',
    root: root.split(path.sep).join('/'),
    max_reject_ratio: raw.max_reject_ratio,
    ...(raw.providers === undefined ? {} : { providers: raw.providers }),
  };
  // One source per line, like the hand-written manifests: JSON with indent 1, its structural newlines folded.
  const line = (value: unknown) => JSON.stringify(value, null, 1).replace(/\n\s*/g, ' ');
  const headLines = Object.entries(head).map(([key, value]) => `  ${JSON.stringify(key)}: ${line(value)},`);
  const sourceLines = Object.entries(sources).map(([key, value]) => `    ${JSON.stringify(key)}: ${line(value)}`);
  return `{\n${headLines.join('\n')}\n  "sources": {\n${sourceLines.join(',\n')}\n  }\n}\n`;
}

/** Deletes bundled files no manifest source produces any more, so the bundle holds only what provenance.json lists. */
function removeStale(out: string, written: Set<string>, log: (line: string) => void): void {
  if (!existsSync(out)) return;
  for (const file of readdirSync(out, { recursive: true, encoding: 'utf8' })) {
    const relative = file.split(path.sep).join('/');
    if (relative.endsWith('.csv.gz') && !written.has(relative)) {
      rmSync(path.join(out, file));
      log(`  removed ${relative}: no source of the manifest produces it`);
    }
  }
}

function kb(bytes: number): string {
  return `${(bytes / 1024).toFixed(0)} KB`;
}
