import { partsOf } from '../../pipeline/config/scoring-parts.ts';
import { SCORE_PARTS, type ScorePart } from '../../core/components.ts';
import type { TypeValues } from './pairs.ts';
import { delta } from './pairs.ts';
import type { BuildsPart, CauseKind, CauseLine, CauseRef } from './report.ts';

/** One possible cause of one ZIP's change. */
export interface Candidate {
  /** The changed input (`facility:ccn:010001`, `population:59001`, `scoring:COMPOSITE_WEIGHTS`): causes group by it. */
  id: string;
  kind: CauseKind;
  /** The summary line it counts under, and that line's sentence. */
  group: string;
  groupText: string;
  /** The changed input itself (a ZIP position, a facility change, a constant's name): the summary counts distinct ones. */
  input: unknown;
  /** The changed input as the summary names it; made only when shown (a national change has hundreds of thousands). */
  label: () => string;
  /** What it says for this ZIP, made only when shown. */
  text: () => string;
  affects: readonly ScorePart[];
  /** How far the changed input is from the ZIP (0 for its own inputs and build-wide causes). */
  miles: number;
}

const show = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

/** A build-wide cause: one input, the same words for every ZIP (`line`, when given, is the summary's longer sentence). */
function buildWide(id: string, kind: CauseKind, text: string, affects: readonly ScorePart[], line = text): Candidate {
  return { id, kind, group: id, groupText: line, input: id, label: () => line, text: () => text, affects, miles: 0 };
}

/** The changed scoring constants, each with its changed leaves (`hospital 6 → 8`), by constant name. */
function changedConstants(builds: BuildsPart): Map<string, string[]> {
  const byConstant = new Map<string, string[]>();
  for (const change of builds.settings) {
    const [root, name, ...rest] = change.path.split('.');
    if (root !== 'scoring' || !name) continue;
    const leaf = rest.length ? `${rest.join('.')} ` : '';
    (byConstant.get(name) ?? byConstant.set(name, []).get(name)!).push(`${leaf}${show(change.old)} → ${show(change.new)}`);
  }
  return byConstant;
}

const listLeaves = (leaves: string[]) => leaves.slice(0, 3).join('; ') + (leaves.length > 3 ? `; and ${leaves.length - 3} more` : '');

/** A changed constant: its values in the summary line, its name alone in each ZIP's list (added when it is new). */
function constantCause(name: string, leaves: string[], affects: readonly ScorePart[]): Candidate {
  const added = leaves.length === 1 && leaves[0].startsWith('null → ');
  const line = added
    ? `scoring constant ${name} added: ${leaves[0].slice('null → '.length)}`
    : `scoring constant ${name} changed: ${listLeaves(leaves)}`;
  return buildWide(`scoring:${name}`, 'scoring', `scoring constant ${name} ${added ? 'added' : 'changed'}`, affects, line);
}

/** Build-wide causes: the known scoring constants, the provider component's basis, the PLACES measures available. */
export function globalCauses(builds: BuildsPart): Candidate[] {
  const out: Candidate[] = [];
  for (const [name, leaves] of changedConstants(builds)) {
    const affects = partsOf(name);
    if (affects?.length) out.push(constantCause(name, leaves, affects));
  }
  const setting = (path: string) => builds.settings.find((c) => c.path === path);
  const status = setting('data_quality.provider.status');
  const fraction = setting('data_quality.provider.sample_fraction');
  if (status || fraction) {
    const note = show(setting('data_quality.provider.note')?.new ?? 'see data_quality.provider');
    const [from, to] = [status?.old, status?.new];
    const text =
      to === 'omitted'
        ? 'provider component not published in NEW'
        : from === 'omitted'
          ? 'provider component published in NEW only'
          : `provider basis changed: ${status ? `${show(from)} → ${show(to)}` : `sample fraction ${show(fraction!.old)} → ${show(fraction!.new)}`}`;
    const line = to === 'omitted' || from === 'omitted' ? `${text} (data_quality.provider: ${note})` : text;
    out.push(buildWide('provider_basis', 'provider_basis', text, ['provider', 'travel', 'composite'], line));
  }
  const prevalence = builds.settings.filter((c) => c.path.startsWith('data_quality.prevalence_measures.'));
  if (prevalence.length) {
    const text = `PLACES measures available to the people component changed: ${prevalence.map((c) => `${c.path.split('.')[2]} ${show(c.old)} → ${show(c.new)}`).join('; ')}`;
    out.push(buildWide('prevalence', 'prevalence', text, ['people']));
  }
  return out;
}

/**
 * What may explain a ZIP when no recorded input does: scoring constants the diff does not know, the changed
 * sources (the build keeps no per-ZIP record of what, say, a new PLACES file changed), and a change of code;
 * nothing known when the build ids are the same.
 */
export function fallbackCauses(builds: BuildsPart, old: Record<string, unknown>, current: Record<string, unknown>): Candidate[] {
  const make = (id: string, kind: CauseKind, text: string) => buildWide(id, kind, text, SCORE_PARTS);
  if (old.build_id === current.build_id)
    return [
      make(
        'unexplained',
        'unexplained',
        'nothing recorded differs (same build id), yet the scores differ: the same inputs and code built twice gave different scores',
      ),
    ];
  const out: Candidate[] = [];
  for (const [name, leaves] of changedConstants(builds)) if (!partsOf(name)) out.push(constantCause(name, leaves, SCORE_PARTS));
  const keys = builds.sources.map((s) => s.key);
  if (keys.length)
    out.push(
      make(`source:${keys.join(',')}`, 'source', `changed sources whose effect the build keeps no per-ZIP record of: ${keys.join(', ')}`),
    );
  const codes = [old.code, current.code].map((c) => JSON.stringify(c ?? null));
  if (codes[0] !== codes[1] && codes[0] !== 'null' && codes[1] !== 'null')
    out.push(make('code', 'code', 'the pipeline code changed (meta.code)'));
  else if (codes[0] === 'null' || codes[1] === 'null')
    out.push(make('code', 'code', 'the pipeline code may have changed (a build records no meta.code; the build ids differ)'));
  if (!out.length) out.push(make('unexplained', 'unexplained', 'no recorded input explains it'));
  return out;
}

/**
 * Kinds of cause in the order they rank between equal accounts. The provider component's basis first: a
 * component published in one build only (clinician counts added, say) explains a ZIP ahead of the scoring
 * constants that came with it.
 */
const KIND_ORDER: readonly CauseKind[] = [
  'provider_basis',
  'scoring',
  'prevalence',
  'point',
  'population',
  'need',
  'mobility',
  'access_basis',
  'drive_times',
  'facility',
  'clinicians',
  'source',
  'code',
  'unexplained',
];

const BUILD_WIDE: ReadonlySet<CauseKind> = new Set(['scoring', 'provider_basis', 'prevalence']);
/** 0 an input of the ZIP itself, 1 an input near it, 2 a change of the whole build. */
const scope = (c: Candidate) => (BUILD_WIDE.has(c.kind) ? 2 : c.miles > 0 ? 1 : 0);

/** How much of a ZIP's change a cause can account for: the points its parts moved (an absent component counts 100). */
export function strength(candidate: Candidate, v: TypeValues): number {
  let total = 0;
  for (const part of candidate.affects) {
    if (part === 'composite') total += Math.abs(delta(v.healthscore) ?? 0);
    else if (part === 'band') total += v.label[0] !== v.label[1] ? 1 : 0;
    else {
      const d = delta(v[part]);
      total += d !== null ? Math.abs(d) : Number.isNaN(v[part][0]) === Number.isNaN(v[part][1]) ? 0 : 100;
    }
  }
  return total;
}

/** The causes of one ZIP, most explaining first: those that account for part of its change, else the fallbacks. */
export function rankCauses(candidates: Candidate[], fallbacks: Candidate[], v: TypeValues): Candidate[] {
  const scored = candidates.map((c) => ({ c, s: strength(c, v) })).filter(({ s }) => s > 0);
  if (!scored.length) return fallbacks;
  // Equal accounts: the ZIP's own inputs first, then inputs near it (the nearer first), then build-wide causes.
  scored.sort(
    (x, y) =>
      y.s - x.s ||
      scope(x.c) - scope(y.c) ||
      x.c.miles - y.c.miles ||
      KIND_ORDER.indexOf(x.c.kind) - KIND_ORDER.indexOf(y.c.kind) ||
      (x.c.id < y.c.id ? -1 : 1),
  );
  const seen = new Set<string>();
  return scored.map(({ c }) => c).filter((c) => !seen.has(c.id) && seen.add(c.id));
}

/** The summary, tallied ZIP by ZIP: one line per group of causes, with the ZIPs and residents it is the first cause of. */
export class CauseTally {
  private readonly lines = new Map<string, CauseLine & { ids: Set<unknown> }>();

  /** Counts one changed ZIP's ranked causes. */
  add(causes: readonly Candidate[], residents: number): void {
    causes.forEach((c, rank) => {
      let line = this.lines.get(c.group);
      if (!line) {
        line = {
          kind: c.kind,
          cause: c.groupText,
          inputs: 0,
          examples: [],
          first_for_zips: 0,
          first_for_residents: 0,
          zips: 0,
          ids: new Set(),
        };
        this.lines.set(c.group, line);
      }
      line.zips++;
      if (rank === 0) {
        line.first_for_zips++;
        line.first_for_residents += residents;
      }
      if (!line.ids.has(c.input)) {
        line.ids.add(c.input);
        if (line.examples.length < 5) line.examples.push(c.label());
      }
    });
  }

  /** The lines, the most ZIPs first. */
  result(): CauseLine[] {
    return [...this.lines.values()]
      .map(({ ids, ...line }) => ({ ...line, inputs: ids.size }))
      .sort((a, b) => b.first_for_zips - a.first_for_zips || b.zips - a.zips || a.cause.localeCompare(b.cause));
  }
}

/** A cause as a ZIP's report lists it. */
export const causeRef = (c: Candidate): CauseRef => ({ id: c.id, kind: c.kind, text: c.text() });
