import path from 'node:path';
import type { BuildFile } from '../query/build-file.ts';
import type { BuildsPart, BuildSummary, SourceChange, SourceFacts, ValueChange } from './report.ts';

/** Meta keys compared value by value, as settings. The others have their own part or are not inputs. */
const SETTING_KEYS = ['dataset', 'code', 'scoring', 'data_quality', 'provider_coverage', 'facility_merge', 'places'];
/** Inside provider_coverage only the verdict is a setting; the densities are the providers part. */
const COVERAGE_DETAIL = [
  'provider_coverage.national',
  'provider_coverage.states',
  'provider_coverage.shortfalls',
  'provider_coverage.roster',
  'provider_coverage.counts',
];

const object = (value: unknown): Record<string, unknown> | null =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;

/** The identity of a build, from its `meta`. */
export function buildSummary(build: BuildFile, file: string): BuildSummary {
  const meta = build.meta;
  const code = object(meta.code);
  const provider = object(object(meta.data_quality)?.provider);
  return {
    file,
    build_id: String(meta.build_id),
    built_at: typeof meta.built_at === 'string' ? meta.built_at : null,
    dataset: typeof object(meta.dataset)?.name === 'string' ? (object(meta.dataset)!.name as string) : null,
    code_version: code ? `${code.package_version ?? '?'} (pipeline ${String(code.pipeline_sha256 ?? '?').slice(0, 12)})` : null,
    provider_component: typeof provider?.status === 'string' ? provider.status : null,
  };
}

/** Part 1: the sources, settings and row counts that differ, and what the two builds do not share. */
export function compareBuilds(old: BuildFile, current: BuildFile, schemaNotCompared: readonly string[]): BuildsPart {
  const [a, b] = [old.meta, current.meta];
  const notCompared = [...schemaNotCompared];
  for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
    if (!(key in a) || !(key in b)) notCompared.push(`meta.${key}: only in ${key in a ? 'OLD' : 'NEW'}`);
  }
  const settings: ValueChange[] = [];
  for (const key of SETTING_KEYS) {
    if (key in a && key in b)
      settings.push(...differences(key, a[key], b[key]).filter((c) => !COVERAGE_DETAIL.some((p) => c.path.startsWith(p))));
  }
  const manifests = [a.manifest, b.manifest].map((m) => (typeof m === 'string' ? path.basename(m) : null));
  if (manifests[0] !== manifests[1] && manifests[0] !== null && manifests[1] !== null)
    settings.unshift({ path: 'manifest', old: manifests[0], new: manifests[1] });
  const { changes, unchanged } = compareSources(a.sources, b.sources);
  const counts = [object(a.row_counts) ?? {}, object(b.row_counts) ?? {}];
  const rowCounts = [...new Set([...Object.keys(counts[0]), ...Object.keys(counts[1])])]
    .filter((table) => table !== 'meta' && counts[0][table] !== counts[1][table])
    .map((table) => ({ table, old: numberOrNull(counts[0][table]), new: numberOrNull(counts[1][table]) }));
  return {
    same_build_id: a.build_id === b.build_id,
    sources: changes,
    sources_unchanged: unchanged,
    settings,
    row_counts: rowCounts,
    not_compared: notCompared,
  };
}

const numberOrNull = (value: unknown) => (typeof value === 'number' ? value : null);

/** Sources by manifest key: added, removed, or changed in file checksum, vintage, layout or rows landed and rejected. */
function compareSources(oldSources: unknown, newSources: unknown): { changes: SourceChange[]; unchanged: number } {
  const byKey = (list: unknown) =>
    new Map(
      (Array.isArray(list) ? list : [])
        .map((s) => object(s))
        .filter((s) => s !== null)
        .map((s) => [String(s!.key), s!]),
    );
  const [a, b] = [byKey(oldSources), byKey(newSources)];
  const changes: SourceChange[] = [];
  let unchanged = 0;
  for (const key of new Set([...a.keys(), ...b.keys()])) {
    const [before, after] = [a.get(key), b.get(key)];
    const [x, y] = [before ? facts(before) : null, after ? facts(after) : null];
    if (x && y && JSON.stringify(x) === JSON.stringify(y) && before!.layout === after!.layout) {
      unchanged++;
      continue;
    }
    changes.push({ key, change: !x ? 'added' : !y ? 'removed' : 'changed', old: x, new: y });
  }
  return { changes, unchanged };
}

function facts(source: Record<string, unknown>): SourceFacts {
  const text = (value: unknown) => (typeof value === 'string' ? value : null);
  return {
    file: typeof source.path === 'string' ? path.basename(source.path) : null,
    vintage: text(source.vintage),
    sha256: text(source.sha256),
    rows_landed: numberOrNull(source.rows_landed),
    rows_rejected: numberOrNull(source.rows_rejected),
  };
}

/**
 * Leaf differences of two JSON values, by dotted path. Array items are named by their `key`, `id`, `measure`
 * or `score_type_id` when they have one (`scoring.NEED_MEASURES.poverty_pct.weight`), else by position.
 */
export function differences(at: string, a: unknown, b: unknown): ValueChange[] {
  if (JSON.stringify(a) === JSON.stringify(b)) return [];
  const [x, y] = [container(a), container(b)];
  if (!x || !y) return [{ path: at, old: a ?? null, new: b ?? null }];
  const out: ValueChange[] = [];
  for (const name of new Set([...x.keys(), ...y.keys()])) out.push(...differences(`${at}.${name}`, x.get(name), y.get(name)));
  return out;
}

/** An object or an array of objects as named children; null for anything compared whole. */
function container(value: unknown): Map<string, unknown> | null {
  const record = object(value);
  if (record) return new Map(Object.entries(record));
  if (!Array.isArray(value) || !value.every((item) => object(item))) return null;
  const name = (item: Record<string, unknown>, i: number) => String(item.key ?? item.id ?? item.measure ?? item.score_type_id ?? i);
  const names = value.map((item, i) => name(item as Record<string, unknown>, i));
  if (new Set(names).size !== names.length) return new Map(value.map((item, i) => [String(i), item]));
  return new Map(value.map((item, i) => [names[i], item]));
}
