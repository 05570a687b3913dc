import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileChecksum } from '../../pipeline/base/checksum.ts';
import { BuildError } from '../../pipeline/base/errors.ts';
import { LAYOUTS } from '../../pipeline/layouts/index.ts';
import { checkColumns, downloadSource, type FetchedFile, type SourceContext } from './download-source.ts';
import type { HttpOptions } from './http.ts';
import { readFetchLog } from './log.ts';
import { type ByteProgressFactory, silentByteProgress } from '../../core/progress.ts';
import { loadSources, type SourceEntry } from './sources.ts';

export interface FetchOptions {
  /** The source list (raw/national/sources.json). */
  sources: string;
  /** Folder for the downloads, fetched.json and manifest.json. */
  out: string;
  /** Download only these sources; the others keep what earlier runs fetched. */
  only?: string[];
  env?: NodeJS.ProcessEnv;
  http?: HttpOptions;
  progress?: ByteProgressFactory;
  log?: (line: string) => void;
  now?: () => Date;
}

export interface FetchSummary {
  manifest: string;
  /** Manifest keys of the files downloaded or supplied. */
  fetched: string[];
  /** Manifest keys taken from a bundled extract instead, by the source they stand in for. */
  fallbacks: Record<string, string[]>;
  /** Sources left out, with what to do about each. */
  notIncluded: Record<string, string>;
}

/** One source's place in the manifest: its own file, a bundled extract standing in, or a reason it is absent. */
type Outcome =
  | { kind: 'file'; file: FetchedFile; entry: SourceEntry }
  | { kind: 'fallback'; entry: SourceEntry; reason: string; sources: Record<string, Record<string, unknown>> }
  | { kind: 'absent'; entry: SourceEntry; reason: string };

/**
 * `hcas fetch`: downloads the official national files a source list names into `out`, checks each against
 * its layout, and writes `out/manifest.json` for `hcas build`. Sources that fail are reported together at
 * the end; the manifest is written only when every source has a file, a stand-in, or may be left out.
 */
export async function fetchNational(options: FetchOptions): Promise<FetchSummary> {
  const env = options.env ?? process.env;
  const log = options.log ?? (() => {});
  const list = loadSources(options.sources, new Set(LAYOUTS.keys()));
  const keys = list.sources.map((s) => s.key);
  for (const key of options.only ?? []) {
    if (!keys.includes(key)) throw new BuildError(`--only: no source "${key}" in ${options.sources}; its sources: ${keys.join(', ')}`);
  }
  const outDir = path.resolve(options.out);
  mkdirSync(outDir, { recursive: true });
  const context: SourceContext = {
    outDir,
    sourcesFile: options.sources,
    env,
    log,
    http: options.http ?? {},
    progress: options.progress ?? silentByteProgress,
    fetchLog: readFetchLog(outDir),
    now: options.now ?? (() => new Date()),
  };
  const outcomes: Outcome[] = [];
  const failures: string[] = [];
  for (const entry of list.sources) {
    try {
      outcomes.push(await obtain(entry, context, !options.only || options.only.includes(entry.key)));
    } catch (error) {
      if (!(error instanceof BuildError)) throw error;
      failures.push(error.message);
      log(`  ${entry.key.padEnd(26)} FAILED`);
    }
  }
  if (failures.length > 0) {
    throw new BuildError(
      `${failures.length} of ${list.sources.length} sources failed, so ${path.join(options.out, 'manifest.json')} was not written:\n  ${failures.join('\n  ')}`,
    );
  }
  const required = outcomes.filter(
    (o): o is Extract<Outcome, { kind: 'absent' }> =>
      o.kind === 'absent' && o.entry.required && (!options.only || options.only.includes(o.entry.key)),
  );
  if (required.length > 0) {
    throw new BuildError(
      `the build cannot run without ${required.map((o) => o.entry.key).join(', ')}: ${required.map((o) => o.reason).join(' ')}`,
    );
  }
  const manifest = path.join(outDir, 'manifest.json');
  writeManifest(manifest, list.manifest, outcomes, options.sources, context.now());
  return {
    manifest,
    fetched: outcomes.flatMap((o) => (o.kind === 'file' ? [o.entry.key] : [])),
    fallbacks: Object.fromEntries(outcomes.flatMap((o) => (o.kind === 'fallback' ? [[o.entry.key, Object.keys(o.sources)]] : []))),
    notIncluded: Object.fromEntries(outcomes.flatMap((o) => (o.kind === 'absent' ? [[o.entry.key, o.reason]] : []))),
  };
}

/** Downloads the source when it can (and may), else takes the user's own file, else the bundled extract. */
async function obtain(entry: SourceEntry, context: SourceContext, mayDownload: boolean): Promise<Outcome> {
  const unset = Object.keys(entry.env).filter((name) => !context.env[name]);
  const downloadable = Boolean(entry.url || entry.discover);
  if (downloadable && unset.length === 0) {
    if (mayDownload) return { kind: 'file', entry, file: await downloadSource(entry, context) };
    const earlier = await earlierFile(entry, context);
    if (earlier) return { kind: 'file', entry, file: earlier };
  }
  if (entry.manual) {
    const file = path.join(context.outDir, entry.manual.path);
    if (existsSync(file)) {
      await checkColumns(entry, file, context.sourcesFile);
      const sum = await fileChecksum(file);
      context.log(`  ${entry.key.padEnd(26)} your file ${entry.manual.path} (${sum.bytes} bytes)`);
      return {
        kind: 'file',
        entry,
        file: {
          key: entry.key,
          path: file,
          bytes: sum.bytes,
          sha256: sum.sha256,
          vintage: entry.vintage.replace('{file}', path.basename(file)),
          retrievedFrom: `supplied by hand (${entry.sourceUrl})`,
          retrievedAt: statSync(file).mtime.toISOString(),
        },
      };
    }
  }
  const why = whyNotFetched(entry, unset, downloadable && !mayDownload, context.outDir);
  if (entry.fallback) {
    const sources = readFallback(entry, context.sourcesFile);
    if (sources) {
      // Every file the manifest names carries its checksum, the bundled ones too.
      for (const spec of Object.values(sources)) Object.assign(spec, await fileChecksum(spec.path as string));
      context.log(`  ${entry.key.padEnd(26)} the bundled extract stands in (${Object.keys(sources).join(', ')}); ${why}`);
      return { kind: 'fallback', entry, reason: why, sources };
    }
  }
  context.log(`  ${entry.key.padEnd(26)} not included: ${why}`);
  return { kind: 'absent', entry, reason: why };
}

/** Why a source has no file of its own, and what would give it one. */
function whyNotFetched(entry: SourceEntry, unset: string[], skippedByOnly: boolean, outDir: string): string {
  if (unset.length > 0)
    return `${unset.map((name) => `${name} is not set (${entry.env[name]})`).join('; ')}; set it and run hcas fetch again.`;
  if (skippedByOnly) return `not downloaded yet: run hcas fetch --only ${entry.key}`;
  if (entry.manual)
    return `to use the official file: ${entry.manual.instructions} Save it as ${path.join(outDir, entry.manual.path)} and run hcas fetch again.`;
  return entry.note || 'no official file that the build can read';
}

/** The file an earlier run recorded for the source, if it is still there (for sources outside --only). */
async function earlierFile(entry: SourceEntry, context: SourceContext): Promise<FetchedFile | null> {
  const record = context.fetchLog.records[entry.key];
  if (!record?.file) return null;
  const file = path.join(context.outDir, record.file.path);
  if (!existsSync(file) || statSync(file).size !== record.file.bytes) return null;
  await checkColumns(entry, file, context.sourcesFile);
  context.log(`  ${entry.key.padEnd(26)} kept from an earlier run (${record.file.path})`);
  const from = record.download?.final_url ?? record.url;
  return {
    key: entry.key,
    path: file,
    bytes: record.file.bytes,
    sha256: record.file.sha256,
    vintage: record.vintage,
    retrievedFrom: record.file.member ? `${from} (member ${record.file.member})` : from,
    retrievedAt: record.download?.retrieved_at ?? '',
  };
}

/**
 * The fallback manifest's entries for the source (the bundled extract of raw/public), their paths made
 * absolute; null when that manifest is not in this checkout.
 */
function readFallback(entry: SourceEntry, sourcesFile: string): Record<string, Record<string, unknown>> | null {
  const { manifest, keys } = entry.fallback!;
  if (!existsSync(manifest)) return null;
  let raw: { root?: unknown; sources?: Record<string, { path?: unknown }> };
  try {
    raw = JSON.parse(readFileSync(manifest, 'utf8'));
  } catch (error) {
    throw new BuildError(`source "${entry.key}": its fallback manifest ${manifest} is not readable JSON (${(error as Error).message})`);
  }
  const root = path.resolve(path.dirname(manifest), typeof raw.root === 'string' ? raw.root : '.');
  const sources: Record<string, Record<string, unknown>> = {};
  for (const key of keys) {
    const spec = raw.sources?.[key];
    if (typeof spec?.path !== 'string')
      throw new BuildError(
        `source "${entry.key}": fallback key "${key}" is not a source of ${manifest}; fix sources.${entry.key}.fallback.keys in ${sourcesFile}`,
      );
    const file = path.resolve(root, spec.path);
    if (!existsSync(file)) return null;
    sources[key] = { ...spec, path: file };
  }
  return sources;
}

function writeManifest(file: string, top: Record<string, unknown>, outcomes: Outcome[], sourcesFile: string, now: Date): void {
  const dir = path.dirname(file);
  const relative = (target: string) => path.relative(dir, target).split(path.sep).join('/');
  const sources: Record<string, unknown> = {};
  const notIncluded: Record<string, string> = {};
  for (const outcome of outcomes) {
    const { entry } = outcome;
    if (outcome.kind === 'file') {
      const { file: fetched } = outcome;
      sources[entry.key] = {
        layout: entry.layout,
        path: relative(fetched.path),
        vintage: fetched.vintage,
        ...(Object.keys(entry.columns).length ? { columns: entry.columns } : {}),
        ...(Object.keys(entry.options).length ? { options: entry.options } : {}),
        sha256: fetched.sha256,
        bytes: fetched.bytes,
        source_url: entry.sourceUrl,
        licence: entry.licence,
        retrieved_from: fetched.retrievedFrom,
        retrieved_at: fetched.retrievedAt,
      };
    } else if (outcome.kind === 'fallback') {
      for (const [key, spec] of Object.entries(outcome.sources)) {
        sources[key] = { ...spec, path: relative(spec.path as string), stands_in_for: entry.key, why: outcome.reason };
      }
    } else {
      notIncluded[entry.key] = outcome.reason;
    }
  }
  const manifest = {
    name: 'US national public files (hcas fetch)',
    synthetic: false,
    ...top,
    generated_by: `hcas fetch from ${sourcesFile} at ${now.toISOString()}; do not edit by hand: change the source list and run hcas fetch again`,
    root: '.',
    sources,
    not_included: notIncluded,
  };
  writeFileSync(`${file}.tmp`, `${JSON.stringify(manifest, null, 2)}\n`);
  renameSync(`${file}.tmp`, file);
}
