import type { DiffReport } from '../../diff/index.ts';
import type { BuildSummary } from '../../diff/report.ts';
import { readable } from '../../../core/numbers.ts';
import type { Block } from './render.ts';

/** A count with thousands separators; empty for null. */
export const count = (n: number | null) => (n === null ? '' : readable(n));
export const plain = (n: number) => readable(n, Number.isInteger(n) || Math.abs(n) >= 10 ? 2 : 6);
/** A share (0-1) as a percentage with two decimals at most; a share too small to show is `<0.01%`, never `0%`. */
export const share = (x: number) => (x > 0 && x < 0.0001 ? '<0.01%' : `${+(x * 100).toFixed(2)}%`);
/** A shift with its sign: `+1.5`, `-3`, `0`; `n/a` for null. */
export const signed = (n: number | null) => (n === null ? 'n/a' : n > 0 ? `+${plain(n)}` : plain(n));
/** Any value of a fact or setting: numbers with separators, `none` for null, JSON for objects, cut at 80 characters. */
export function value(x: unknown): string {
  if (x === null || x === undefined) return 'none';
  if (typeof x === 'number') return plain(x);
  const text = typeof x === 'string' ? x : JSON.stringify(x);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

const short = (sha: string | null) => (sha ? sha.slice(0, 12) : 'none');
const pair = (a: unknown, b: unknown) => (JSON.stringify(a) === JSON.stringify(b) ? value(a) : `${value(a)} → ${value(b)}`);

/** Part 1: which builds, the sources and settings that differ, and what could not be compared. */
export function buildsBlocks(report: DiffReport): Block[] {
  const b = report.builds;
  const blocks = whichBuilds(report);
  if (b.same_build_id) blocks.push({ kind: 'text', text: 'Same build id: the same inputs, settings and code.' });
  blocks.push(...sourceBlocks(b));
  if (b.settings.length)
    blocks.push(
      { kind: 'text', text: 'Settings that differ (scoring constants, data quality, provider coverage, facility merge):' },
      {
        kind: 'table',
        columns: [{ key: 'path', heading: 'setting' }, { key: 'old' }, { key: 'new' }],
        rows: b.settings.map((c) => ({ path: c.path, old: value(c.old), new: value(c.new) })),
      },
    );
  if (b.row_counts.length)
    blocks.push(
      { kind: 'text', text: 'Row counts that differ:' },
      {
        kind: 'table',
        columns: [{ key: 'table' }, { key: 'old', right: true }, { key: 'new', right: true }],
        rows: b.row_counts.map((r) => ({ table: r.table, old: count(r.old), new: count(r.new) })),
      },
    );
  if (b.not_compared.length)
    blocks.push(
      { kind: 'text', text: 'Not compared (the builds do not share it):' },
      { kind: 'list', items: b.not_compared.map((text) => ({ text })) },
    );
  return blocks;
}

/** The heading and the two builds side by side. */
function whichBuilds(report: DiffReport): Block[] {
  const side = (name: string, s: BuildSummary) => ({
    build: name,
    file: s.file,
    id: s.build_id,
    built: s.built_at ? s.built_at.replace('T', ' ').slice(0, 16) : 'not recorded',
    code: s.code_version ?? 'not recorded',
    provider: s.provider_component ?? 'not recorded',
    dataset: s.dataset ?? '',
  });
  return [
    { kind: 'heading', level: 2, text: '1. Builds' },
    {
      kind: 'table',
      columns: [
        { key: 'build' },
        { key: 'file' },
        { key: 'id', heading: 'build id' },
        { key: 'built', heading: 'built (UTC)' },
        { key: 'code' },
        { key: 'provider', heading: 'provider component' },
        { key: 'dataset' },
      ],
      rows: [side('OLD', report.old), side('NEW', report.new)],
    },
  ];
}

/** The sources that differ, file by file, or that every one is identical. */
function sourceBlocks(b: DiffReport['builds']): Block[] {
  const blocks: Block[] = [];
  blocks.push({
    kind: 'text',
    text: b.sources.length
      ? `Sources that differ (${count(b.sources_unchanged)} identical):`
      : `Every source is identical (${count(b.sources_unchanged)}).`,
  });
  if (b.sources.length)
    blocks.push({
      kind: 'table',
      columns: [
        { key: 'key', heading: 'source' },
        { key: 'change' },
        { key: 'file' },
        { key: 'vintage' },
        { key: 'sha256' },
        { key: 'landed', heading: 'rows landed', right: true },
        { key: 'rejected', heading: 'rejected', right: true },
      ],
      rows: b.sources.map((s) => ({
        key: s.key,
        change: s.change,
        file: pair(s.old?.file ?? null, s.new?.file ?? null),
        vintage: pair(s.old?.vintage ?? null, s.new?.vintage ?? null),
        sha256:
          s.old?.sha256 === s.new?.sha256
            ? short(s.new?.sha256 ?? null)
            : `${short(s.old?.sha256 ?? null)} → ${short(s.new?.sha256 ?? null)}`,
        landed: pair(s.old?.rows_landed ?? null, s.new?.rows_landed ?? null),
        rejected: pair(s.old?.rows_rejected ?? null, s.new?.rows_rejected ?? null),
      })),
    });
  return blocks;
}
