import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import pLimit from 'p-limit';
import { fileChecksum } from '../base/checksum.ts';
import { BuildError } from '../base/errors.ts';

/** One input file named by the sources manifest. */
export interface SourceSpec {
  key: string;
  layout: string;
  /** Absolute path, resolved against the manifest's `root`. */
  path: string;
  vintage: string;
  required: boolean;
  /** Layout field -> header name in this file, overriding the layout's built-in aliases. */
  columns: Record<string, string>;
  /** Free-form per-layout options (e.g. `complement` for ACS tables). */
  options: Record<string, unknown>;
  /** Provenance recorded in `meta.sources`: the publisher's page, the data's licence, where the copy came from. */
  sourceUrl?: string;
  licence?: string;
  retrievedFrom?: string;
}

/**
 * What the provider files are and what to do when they fall short. `sampleFraction`: the files are a uniform
 * sample of this fraction of all clinicians (supply is scaled up by its inverse). `onPartialCoverage`:
 * `refuse` fails the build when coverage is partial or uneven; `omit_component` publishes scores without a
 * provider component instead, saying so in every record.
 */
export interface ProviderPolicy {
  sampleFraction: number;
  onPartialCoverage: 'refuse' | 'omit_component';
}

/** A parsed sources manifest: what to read, from where, and how strict to be. */
export interface Manifest {
  file: string;
  name: string;
  /** Whether the data is synthetic: all of it (true), none (false), or the parts named (e.g. ["providers"]). */
  synthetic: boolean | string[];
  notice: string;
  maxRejectRatio: number;
  providers: ProviderPolicy;
  sources: SourceSpec[];
}

const DEFAULT_MAX_REJECT_RATIO = 0.05;

/** A manifest's JSON before it is checked: any key may be missing or of any type. */
interface RawManifest {
  sources?: unknown;
  root?: unknown;
  max_reject_ratio?: unknown;
  providers?: unknown;
  include?: unknown;
  name?: unknown;
  synthetic?: unknown;
  notice?: unknown;
}

/** One source of a manifest's JSON before it is checked. */
interface RawSource {
  layout?: unknown;
  path?: unknown;
  vintage?: unknown;
  required?: unknown;
  columns?: Record<string, string>;
  options?: Record<string, unknown>;
  source_url?: unknown;
  licence?: unknown;
  retrieved_from?: unknown;
}

/**
 * Reads and validates a manifest JSON file; every problem names the manifest key to fix. A manifest may
 * `include` others (paths relative to it): their sources come first, each resolved against its own root, and
 * a source of the including manifest replaces an included one of the same key (`null` leaves it out). Everything
 * else (name, notice, providers, max_reject_ratio) is the including manifest's.
 */
export function loadManifest(file: string, knownLayouts: ReadonlySet<string>, rootOverride?: string, including: string[] = []): Manifest {
  let raw: RawManifest;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8')) as RawManifest;
  } catch (error) {
    throw new BuildError(
      `cannot read manifest ${file}: ${(error as Error).message}. Pass --manifest with a JSON sources manifest (see raw/manifests/).`,
    );
  }
  const where = (key: string) => `manifest ${file}, key "${key}"`;
  if (typeof raw !== 'object' || raw === null || typeof raw.sources !== 'object' || raw.sources === null) {
    throw new BuildError(`${where('sources')}: expected an object of sources keyed by name`);
  }
  const rawSources = raw.sources as Record<string, RawSource | null>;
  // `--root` lets one manifest describe any folder holding the same files (a new vintage, a bigger sample).
  const root = rootOverride ? path.resolve(rootOverride) : path.resolve(path.dirname(file), typeof raw.root === 'string' ? raw.root : '.');
  const maxRejectRatio = raw.max_reject_ratio ?? DEFAULT_MAX_REJECT_RATIO;
  if (typeof maxRejectRatio !== 'number' || !(maxRejectRatio >= 0 && maxRejectRatio <= 1)) {
    throw new BuildError(`${where('max_reject_ratio')}: must be a number from 0 to 1, got ${JSON.stringify(raw.max_reject_ratio)}`);
  }
  const providers = providerPolicy(raw.providers, where, root);
  const sources = new Map<string, SourceSpec>();
  for (const included of includes(raw.include, where)) {
    const target = path.resolve(path.dirname(file), included);
    if (including.includes(target) || target === path.resolve(file))
      throw new BuildError(`${where('include')}: ${included} includes itself through ${[...including, file].join(' -> ')}`);
    for (const spec of loadManifest(target, knownLayouts, undefined, [...including, path.resolve(file)]).sources)
      sources.set(spec.key, spec);
  }
  for (const [key, spec] of Object.entries(rawSources)) {
    if (spec === null) {
      if (!sources.delete(key))
        throw new BuildError(`${where(`sources.${key}`)}: null leaves out a source of an included manifest, and none names "${key}"`);
      continue;
    }
    if (typeof spec !== 'object') throw new BuildError(`${where(`sources.${key}`)}: expected an object`);
    if (typeof spec.layout !== 'string' || !knownLayouts.has(spec.layout)) {
      throw new BuildError(
        `${where(`sources.${key}.layout`)}: unknown layout ${JSON.stringify(spec.layout)}; known layouts: ${[...knownLayouts].sort().join(', ')}`,
      );
    }
    if (typeof spec.path !== 'string' || spec.path === '') throw new BuildError(`${where(`sources.${key}.path`)}: expected a file path`);
    sources.delete(key); // a replaced source takes the place of the including manifest's order
    sources.set(key, {
      key,
      layout: spec.layout,
      path: path.resolve(root, spec.path),
      vintage: typeof spec.vintage === 'string' ? spec.vintage : 'unknown',
      required: spec.required !== false,
      columns: spec.columns ?? {},
      options: spec.options ?? {},
      sourceUrl: optionalText(spec.source_url, where(`sources.${key}.source_url`)),
      licence: optionalText(spec.licence, where(`sources.${key}.licence`)),
      retrievedFrom: optionalText(spec.retrieved_from, where(`sources.${key}.retrieved_from`)),
    });
  }
  return {
    file,
    name: typeof raw.name === 'string' ? raw.name : path.basename(file),
    synthetic: syntheticParts(raw.synthetic, where),
    notice: typeof raw.notice === 'string' ? raw.notice : '',
    maxRejectRatio,
    providers,
    sources: [...sources.values()],
  };
}

function includes(value: unknown, where: (key: string) => string): string[] {
  if (value === undefined) return [];
  const list = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(list) || list.some((item) => typeof item !== 'string'))
    throw new BuildError(`${where('include')}: expected a manifest path or a list of them, got ${JSON.stringify(value)}`);
  return list as string[];
}

function syntheticParts(value: unknown, where: (key: string) => string): boolean | string[] {
  if (value === undefined || typeof value === 'boolean') return value === true;
  if (Array.isArray(value) && value.every((part) => typeof part === 'string')) return value as string[];
  throw new BuildError(
    `${where('synthetic')}: true, false, or the list of synthetic parts such as ["providers"]; got ${JSON.stringify(value)}`,
  );
}

function optionalText(value: unknown, where: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new BuildError(`${where}: expected a string, got ${JSON.stringify(value)}`);
  return value;
}

const PARTIAL_COVERAGE_CHOICES = ['refuse', 'omit_component'] as const;

function providerPolicy(raw: unknown, where: (key: string) => string, root: string): ProviderPolicy {
  if (raw === undefined) return { sampleFraction: 1, onPartialCoverage: 'refuse' };
  if (typeof raw !== 'object' || raw === null)
    throw new BuildError(`${where('providers')}: expected an object such as { "sample_fraction": 0.1 }`);
  const { sample_fraction_file: declared, on_partial_coverage: onPartial = 'refuse' } = raw as Record<string, unknown>;
  let { sample_fraction: fraction = 1 } = raw as Record<string, unknown>;
  // A generated sample declares its own fraction beside its files (hcas sample writes it), so the manifest
  // stays right whatever --providers the sample was written with.
  if (declared !== undefined) {
    if ('sample_fraction' in (raw as object))
      throw new BuildError(`${where('providers')}: give sample_fraction or sample_fraction_file, not both`);
    const file = path.resolve(root, String(declared));
    try {
      fraction = (JSON.parse(readFileSync(file, 'utf8')) as { sample_fraction?: unknown }).sample_fraction;
    } catch (error) {
      throw new BuildError(
        `${where('providers.sample_fraction_file')}: cannot read ${file} (${(error as Error).message}). Run hcas sample to write the synthetic providers and their declaration.`,
      );
    }
  }
  if (typeof fraction !== 'number' || !(fraction > 0 && fraction <= 1)) {
    throw new BuildError(
      `${where('providers.sample_fraction')}: the share of all clinicians the provider files hold, a number above 0 and at most 1; got ${JSON.stringify(fraction)}`,
    );
  }
  if (!PARTIAL_COVERAGE_CHOICES.includes(onPartial as ProviderPolicy['onPartialCoverage'])) {
    throw new BuildError(
      `${where('providers.on_partial_coverage')}: one of ${PARTIAL_COVERAGE_CHOICES.map((c) => `"${c}"`).join(', ')}; got ${JSON.stringify(onPartial)}`,
    );
  }
  return { sampleFraction: fraction, onPartialCoverage: onPartial as ProviderPolicy['onPartialCoverage'] };
}

/** The size and SHA-256 of every source file of a manifest (two at a time: disks prefer it to all at once). */
export function sourceChecksums(manifest: Manifest): Promise<Array<{ sha256: string; bytes: number } | null>> {
  const limit = pLimit(2);
  return Promise.all(manifest.sources.map((s) => limit(() => (existsSync(s.path) ? fileChecksum(s.path) : Promise.resolve(null)))));
}
