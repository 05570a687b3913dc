import { readFileSync } from 'node:fs';
import path from 'node:path';
import { BuildError } from '../../pipeline/base/errors.ts';

/**
 * The national source list (`raw/national/sources.json`): where each official file lives, how to find its
 * current release, how to unpack it, the columns it must have, and the manifest entry the build needs.
 * URLs and layouts are data; this module only reads and checks them.
 */

/** Find the file's address on a publisher's page: the links (href) matching `pattern`. */
export interface ListingRule {
  kind: 'listing';
  listing: string;
  pattern: RegExp;
  /** first/last link in page order, or the one whose first captured group is the highest number. */
  pick: 'first' | 'last' | 'highest';
}

/** Find the file's address in a catalogue's JSON (a CMS metastore entry): the string at `path`. */
export interface JsonRule {
  kind: 'json';
  json: string;
  /** Dot-separated keys and array indexes, e.g. `distribution.0.data.downloadURL`. */
  path: string;
}

export type Unpack =
  /** Take the one zip member whose name matches (deflate members are rewrapped as .gz without inflating). */
  | { kind: 'zip_member'; member: RegExp }
  /** Turn an array of JSON records (at `path`) into a CSV file named `to`, keys as the header. */
  | { kind: 'json_records'; path: string; to: string };

export interface SourceEntry {
  key: string;
  layout: string;
  /** May name `{file}`: the downloaded file's name (a discovered release says its own date). */
  vintage: string;
  publisher: string;
  /** The publisher's page for the data set (provenance, and where to look when the address changes). */
  sourceUrl: string;
  licence: string;
  /** false: the address or rule is not corroborated; the source's `note` says what is uncertain. */
  verified: boolean;
  note: string;
  /** A required source that cannot be had fails `hcas fetch`; others are left out with a reason. */
  required: boolean;
  url?: string;
  discover?: ListingRule | JsonRule;
  /** Request headers; values may name `${VAR}` from `env`. */
  headers: Record<string, string>;
  /** Environment variables the download needs, each with where to get one. */
  env: Record<string, string>;
  /** Local file name when the URL's last segment is not a good one (an API query). */
  filename?: string;
  /** SHA-256 the publisher states for the file, when it states one. */
  sha256?: string;
  unpack?: Unpack;
  /** Census API variables whose labels must contain the given text (their numbering moves between vintages). */
  checkLabels?: { url: string; labels: Record<string, string> };
  /** A file the user saves by hand (relative to the output folder), and how to get it. */
  manual?: { path: string; instructions: string };
  /** Sources of another manifest (the bundled extract) to use when this one cannot be had. */
  fallback?: { manifest: string; keys: string[] };
  columns: Record<string, string>;
  options: Record<string, unknown>;
  /** Header names the file must have beyond the layout's required fields. */
  expectColumns: string[];
}

export interface SourceList {
  file: string;
  /** Top-level fields copied into the written manifest (name, notice, max_reject_ratio, providers). */
  manifest: Record<string, unknown>;
  sources: SourceEntry[];
}

const ENV_REFERENCE = /\$\{([A-Z][A-Z0-9_]*)\}/g;

/** A JSON object as parsed, before it is checked. */
type Json = Record<string, unknown>;

function object(value: unknown): Json | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
}

/** Reads and checks a source list; every problem names the key to fix. */
export function loadSources(file: string, knownLayouts: ReadonlySet<string>): SourceList {
  let raw: Json | undefined;
  try {
    raw = object(JSON.parse(readFileSync(file, 'utf8')));
  } catch (error) {
    throw new BuildError(
      `cannot read the source list ${file}: ${(error as Error).message}. Pass --sources with a JSON source list (see raw/national/sources.json).`,
    );
  }
  const where = (key: string) => `source list ${file}, key "${key}"`;
  const entries = object(raw?.sources);
  if (!entries) throw new BuildError(`${where('sources')}: expected an object of sources keyed by their manifest key`);
  const sources = Object.entries(entries).map(([key, spec]) =>
    readEntry(key, spec, (field) => where(`sources.${key}${field ? `.${field}` : ''}`), file, knownLayouts),
  );
  return { file, manifest: object(raw?.manifest) ?? {}, sources };
}

function readEntry(
  key: string,
  value: unknown,
  where: (field?: string) => string,
  file: string,
  knownLayouts: ReadonlySet<string>,
): SourceEntry {
  const spec = object(value);
  if (!spec) throw new BuildError(`${where()}: expected an object`);
  if (typeof spec.layout !== 'string' || !knownLayouts.has(spec.layout))
    throw new BuildError(
      `${where('layout')}: unknown layout ${JSON.stringify(spec.layout)}; known layouts: ${[...knownLayouts].sort().join(', ')}`,
    );
  const { required, optionalText, strings } = fieldReaders(where);
  const text = (field: string): string => required(spec[field], field);
  const entry: SourceEntry = {
    key,
    layout: spec.layout,
    vintage: text('vintage'),
    publisher: text('publisher'),
    sourceUrl: text('source_url'),
    licence: text('licence'),
    verified: spec.verified === true,
    note: optionalText(spec.note, 'note') ?? '',
    required: spec.required === true,
    url: optionalText(spec.url, 'url'),
    discover: spec.discover === undefined ? undefined : readDiscover(spec.discover, where),
    headers: strings(spec.headers, 'headers'),
    env: strings(spec.env, 'env'),
    filename: optionalText(spec.filename, 'filename'),
    sha256: optionalText(spec.sha256, 'sha256'),
    unpack: spec.unpack === undefined ? undefined : readUnpack(spec.unpack, where),
    checkLabels:
      spec.check_labels === undefined
        ? undefined
        : {
            url: required(object(spec.check_labels)?.url, 'check_labels.url'),
            labels: strings(object(spec.check_labels)?.labels, 'check_labels.labels'),
          },
    manual:
      spec.manual === undefined
        ? undefined
        : {
            path: required(object(spec.manual)?.path, 'manual.path'),
            instructions: required(object(spec.manual)?.instructions, 'manual.instructions'),
          },
    fallback: spec.fallback === undefined ? undefined : readFallback(spec.fallback, where, file),
    columns: strings(spec.columns, 'columns'),
    options: object(spec.options) ?? {},
    expectColumns: Array.isArray(spec.expect_columns) ? spec.expect_columns.map(String) : [],
  };
  checkEntry(entry, where);
  return entry;
}

/** The readers of a source's fields, each refusing a wrong value with where it is. */
function fieldReaders(where: (field?: string) => string) {
  const required = (value: unknown, field: string): string => {
    if (typeof value !== 'string' || value === '') throw new BuildError(`${where(field)}: expected a non-empty string`);
    return value;
  };
  const optionalText = (value: unknown, field: string): string | undefined => (value === undefined ? undefined : required(value, field));
  const strings = (value: unknown, field: string): Record<string, string> => {
    if (value === undefined) return {};
    if (typeof value !== 'object' || value === null || Object.values(value).some((v) => typeof v !== 'string')) {
      throw new BuildError(`${where(field)}: expected an object of strings`);
    }
    return value as Record<string, string>;
  };
  return { required, optionalText, strings };
}

/** What no single field says: a way to get the file, a checksum's form, a file name, every variable declared. */
function checkEntry(entry: SourceEntry, where: (field?: string) => string): void {
  if (entry.url && entry.discover) throw new BuildError(`${where()}: give "url" or "discover", not both`);
  if (!entry.url && !entry.discover && !entry.manual && !entry.fallback) {
    throw new BuildError(
      `${where()}: give "url" or "discover" (a file to download), "manual" (a file the user saves) or "fallback" (a bundled extract)`,
    );
  }
  if (entry.sha256 !== undefined && !/^[0-9a-f]{64}$/i.test(entry.sha256))
    throw new BuildError(`${where('sha256')}: expected 64 hexadecimal digits (a published SHA-256)`);
  if (entry.filename !== undefined && entry.filename !== path.basename(entry.filename))
    throw new BuildError(`${where('filename')}: expected a file name, not a path`);
  if (entry.manual && (path.isAbsolute(entry.manual.path) || entry.manual.path.split(/[\\/]/).includes('..'))) {
    throw new BuildError(`${where('manual.path')}: expected a path inside the output folder`);
  }
  // Every ${VAR} a request uses must be declared, so a missing one is reported with where to get it.
  const used = [
    entry.url,
    ...Object.values(entry.headers),
    entry.checkLabels?.url,
    entry.discover?.kind === 'json' ? entry.discover.json : entry.discover?.listing,
  ].flatMap((value) => [...(value ?? '').matchAll(ENV_REFERENCE)].map((m) => m[1]));
  for (const name of used) {
    if (!(name in entry.env))
      throw new BuildError(
        `${where('env')}: declare ${name} (used as \${${name}}) with where to get it, e.g. { "${name}": "free key: https://..." }`,
      );
  }
}

function readDiscover(value: unknown, where: (field?: string) => string): ListingRule | JsonRule {
  const raw = object(value);
  if (typeof raw?.listing === 'string') {
    const pick = raw.pick ?? 'first';
    if (pick !== 'first' && pick !== 'last' && pick !== 'highest')
      throw new BuildError(`${where('discover.pick')}: one of "first", "last", "highest"; got ${JSON.stringify(pick)}`);
    return { kind: 'listing', listing: raw.listing, pattern: regex(raw.pattern, where('discover.pattern')), pick };
  }
  if (typeof raw?.json === 'string' && typeof raw.path === 'string') return { kind: 'json', json: raw.json, path: raw.path };
  throw new BuildError(`${where('discover')}: expected { "listing": URL, "pattern": REGEX } or { "json": URL, "path": "a.0.b" }`);
}

function readUnpack(value: unknown, where: (field?: string) => string): Unpack {
  const raw = object(value);
  if (typeof raw?.zip_member === 'string') return { kind: 'zip_member', member: regex(raw.zip_member, where('unpack.zip_member')) };
  if (typeof raw?.json_records === 'string' && typeof raw.to === 'string' && raw.to.endsWith('.csv') && raw.to === path.basename(raw.to))
    return { kind: 'json_records', path: raw.json_records, to: raw.to };
  throw new BuildError(`${where('unpack')}: expected { "zip_member": REGEX } or { "json_records": "data.results", "to": "NAME.csv" }`);
}

function readFallback(value: unknown, where: (field?: string) => string, file: string): { manifest: string; keys: string[] } {
  const raw = object(value);
  const keys = raw?.keys;
  if (typeof raw?.manifest !== 'string' || !Array.isArray(keys) || keys.length === 0 || keys.some((k) => typeof k !== 'string')) {
    throw new BuildError(
      `${where('fallback')}: expected { "manifest": PATH (relative to the source list), "keys": [source keys of that manifest] }`,
    );
  }
  return { manifest: path.resolve(path.dirname(file), raw.manifest), keys: keys as string[] };
}

function regex(value: unknown, where: string): RegExp {
  if (typeof value !== 'string' || value === '') throw new BuildError(`${where}: expected a regular expression as a string`);
  try {
    return new RegExp(value);
  } catch (error) {
    throw new BuildError(`${where}: not a valid regular expression: ${(error as Error).message}`);
  }
}

/** Replaces each `${VAR}` with its value from `env`; returns the names that are unset. */
export function expandEnv(text: string, env: NodeJS.ProcessEnv): { text: string; missing: string[] } {
  const missing: string[] = [];
  const expanded = text.replace(ENV_REFERENCE, (_, name: string) => {
    const value = env[name];
    if (value === undefined || value === '') missing.push(name);
    return value ?? '';
  });
  return { text: expanded, missing };
}

/** Replaces every secret value with its `${VAR}` name, so logs and manifests never hold a token. */
export function redact(text: string, entry: SourceEntry, env: NodeJS.ProcessEnv): string {
  let result = text;
  for (const name of Object.keys(entry.env)) {
    const value = env[name];
    if (value) {
      result = result.split(value).join(`\${${name}}`);
      result = result.split(encodeURIComponent(value)).join(`\${${name}}`);
    }
  }
  return result;
}
