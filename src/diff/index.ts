import { statSync } from 'node:fs';
import { EXIT, FixableError } from '../../core/errors.ts';
import { BuildFile } from '../query/build-file.ts';
import { buildSummary, compareBuilds } from './builds.ts';
import { type Candidate, CauseTally, fallbackCauses, globalCauses, rankCauses } from './causes.ts';
import { LocalCauses } from './causes-local.ts';
import { ChangedInputs } from './inputs.ts';
import { compareRoster, rosterDiff } from './facilities.ts';
import { nearestHospitalOf, zipFacts } from './facts.ts';
import { Pairs } from './pairs.ts';
import type { DiffReport, ScoresPart, ScoreTypeLine, StatusPart } from './report.ts';
import { compareScores } from './scores.ts';
import { loadSnapshot, MOBILITY_MEASURES, SharedSchema, type Snapshot } from './snapshot.ts';
import { chooseZips, providerCounts, zipChange } from './why.ts';

export type { DiffReport } from './report.ts';

/** The JSON shape's name and version (`format` in the report): a field removed or renamed is a new version. */
export const REPORT_FORMAT = 'hcas-diff/1';

export interface DiffOptions {
  /** Score type id or slug the scores and why parts describe (default: overall, id 1). */
  scoreType?: string;
  /** How many moved ZIPs to explain (Infinity: all). */
  top?: number;
  /** Leave out ZIPs with fewer residents (default: NEW's small-population threshold). */
  minResidents?: number;
  rankBy?: 'points' | 'residents';
  /** Thresholds of the status: the largest shift of any ZIP's score, in points, and the share of residents whose band changed (0-1). */
  maxShift?: number;
  maxBandMoves?: number;
  /** Facilities listed in the roster diff (the counts cover all). */
  facilityLimit?: number;
}

/**
 * Compares two build files and explains the difference: what inputs and settings differ, how the scores
 * moved, and why each ZIP moved (docs/DIFF.md). Reads both files whole, read-only; compares them on the
 * tables and columns they share and says what it could not compare. A missing, damaged or foreign file is a
 * FixableError with exit status 3; an unknown score type one with status 2.
 */
export function diffBuilds(oldFile: string, newFile: string, options: DiffOptions = {}): DiffReport {
  const old = open(oldFile, 'OLD');
  let current: BuildFile;
  try {
    current = open(newFile, 'NEW');
  } catch (error) {
    old.close();
    throw error;
  }
  try {
    const schema = new SharedSchema(old, current);
    const measures = [...new Set([...needMeasures(old.meta), ...needMeasures(current.meta), ...MOBILITY_MEASURES, 'population'])];
    // One file at a time, closed once read: its page cache is not held while the other is read. A build
    // compared with itself (`hcas diff FILE`, a check that nothing moved) is read once: the snapshot is only read.
    const before = loadSnapshot(old, schema, measures);
    old.close();
    const after = sameBuild(oldFile, newFile, old, current) ? before : loadSnapshot(current, schema, measures);
    current.close();
    const pairs = new Pairs(before, after);
    const builds = compareBuilds(old, current, schema.notCompared);
    builds.not_compared.push(...typesInOneBuild(pairs, before, after));
    const type = scoreType(pairs, options.scoreType ?? '1');
    const scores = compareScores(pairs, type);

    const facilities = [pairs.old.facilities ?? [], pairs.current.facilities ?? []];
    const roster = compareRoster(facilities[0], facilities[1]);
    const nearest = nearestHospitalOf(pairs, facilities[0], facilities[1]);
    const accessExtras = schema.extraColumns('zip_access');
    const providerInBoth = ![old.meta, current.meta].some(
      (m) => ((m.data_quality as { provider?: { status?: string } } | undefined)?.provider?.status ?? 'omitted') === 'omitted',
    );
    const causes = {
      local: new LocalCauses(new ChangedInputs(pairs, roster.changes, builds, nearest, providerInBoth), accessExtras),
      global: globalCauses(builds),
      fallbacks: fallbackCauses(builds, old.meta, current.meta),
    };
    const threshold = (current.meta.data_quality as { small_population_threshold?: number } | undefined)?.small_population_threshold;
    const minResidents = options.minResidents ?? (typeof threshold === 'number' ? threshold : 0);
    const rankBy = options.rankBy ?? 'points';
    const chosen = chooseZips(pairs, scores.values, { top: options.top ?? 10, minResidents, by: rankBy });
    const { tally, listed } = rankChanges(pairs, scores, chosen, causes);
    const need = [...new Set([...needMeasures(old.meta), ...needMeasures(current.meta)])];
    return {
      format: REPORT_FORMAT,
      old: buildSummary(old, oldFile),
      new: buildSummary(current, newFile),
      builds,
      scores: scores.part,
      why: {
        causes: tally.result(),
        zips: chosen.map((p) =>
          zipChange(pairs, p, scores.values.get(p)!, listed.get(p)!, zipFacts(pairs, p, nearest, need, accessExtras)),
        ),
        ranked_by: rankBy,
        min_residents: minResidents,
        facilities:
          pairs.old.facilities && pairs.current.facilities
            ? rosterDiff(roster.changes, roster.providerCountOnly, options.facilityLimit ?? 50)
            : null,
        providers: providerCounts(pairs),
      },
      status: judge(scores.part, options.maxShift ?? 0, options.maxBandMoves ?? 0),
    };
  } catch (error) {
    if (error instanceof FixableError) throw error;
    // A page damaged past the header, met while reading.
    throw new FixableError(`cannot compare ${oldFile} and ${newFile}: ${(error as Error).message}`, EXIT.data);
  } finally {
    old.close();
    current.close();
  }
}

/** The score types only one build has, as `not_compared` lines. */
function typesInOneBuild(pairs: Pairs, before: Snapshot, after: Snapshot): string[] {
  const shared = new Set(pairs.types.map((t) => t.id));
  const only = (snapshot: Snapshot, side: 'OLD' | 'NEW') =>
    snapshot.scores.types.filter((t) => !shared.has(t.id)).map((t) => `score type ${t.id} ${t.slug}: only in ${side}`);
  return [...only(before, 'OLD'), ...only(after, 'NEW')];
}

/**
 * The causes of every changed ZIP, ranked: all are tallied, only the ZIPs listed keep theirs (a national
 * change has 33,791).
 */
function rankChanges(
  pairs: Pairs,
  scores: ReturnType<typeof compareScores>,
  chosen: number[],
  causes: { local: LocalCauses; global: Candidate[]; fallbacks: ReturnType<typeof fallbackCauses> },
): { tally: CauseTally; listed: Map<number, Candidate[]> } {
  const listed = new Map(chosen.map((p) => [p, [] as Candidate[]]));
  const tally = new CauseTally();
  for (const p of scores.changed) {
    const v = scores.values.get(p)!;
    const ranked = rankCauses([...causes.global, ...causes.local.for(p, v)], causes.fallbacks, v);
    tally.add(ranked, pairs.residents(p));
    if (listed.has(p)) listed.set(p, ranked);
  }
  return { tally, listed };
}

/** True when both names are one file (same device and inode, both open) holding one build id. */
function sameBuild(oldFile: string, newFile: string, old: BuildFile, current: BuildFile): boolean {
  if (old.meta.build_id !== current.meta.build_id) return false;
  const [a, b] = [statSync(oldFile), statSync(newFile)];
  return a.dev === b.dev && a.ino === b.ino;
}

function open(file: string, side: 'OLD' | 'NEW'): BuildFile {
  try {
    return BuildFile.open(file);
  } catch (error) {
    throw new FixableError(`${side} ${file} is not a build hcas diff can read: ${(error as Error).message}`, EXIT.data);
  }
}

function needMeasures(meta: Readonly<Record<string, unknown>>): string[] {
  const list = (meta.scoring as { NEED_MEASURES?: Array<{ measure: string }> } | undefined)?.NEED_MEASURES;
  return Array.isArray(list) ? list.map((m) => m.measure) : [];
}

/** The score type asked for, by id or slug, among those both builds have. */
function scoreType(pairs: Pairs, asked: string): number {
  const found = pairs.types.find((t) => String(t.id) === asked || t.slug === asked);
  if (found) return found.id;
  const known = pairs.types.map((t) => `${t.id} ${t.slug}`).join(', ');
  if (!pairs.types.length) throw new FixableError('the two builds share no score type: nothing to compare', EXIT.data);
  throw new FixableError(
    `--score-type must be a score type id or slug both builds have (${known}), got ${JSON.stringify(asked)}`,
    EXIT.usage,
  );
}

/**
 * Exit 0 or 1: over every score type both builds have, each score and component within --max-shift, the
 * residents whose band changed within --max-band-moves, and the same ZIPs and components published.
 */
function judge(scores: ScoresPart, maxShift: number, maxBandMoves: number): StatusPart {
  const exceeded: string[] = [];
  const lines = scores.score_types;
  const worst = <K extends 'largest' | 'largest_component' | 'band_moved_share' | 'component_in_one_build'>(key: K) =>
    lines.reduce((a, b) => (Math.abs(b[key]) > Math.abs(a[key]) ? b : a), lines[0]);
  const types = (pass: (line: ScoreTypeLine) => boolean) => `${lines.filter(pass).length} of ${lines.length} score types`;
  if (lines.length) {
    const shift = worst('largest');
    if (Math.abs(shift.largest) > maxShift)
      exceeded.push(
        `scores moved by up to ${Math.abs(shift.largest)} points (${shift.slug}) in ${types((l) => Math.abs(l.largest) > maxShift)}, beyond --max-shift ${maxShift}`,
      );
    const component = worst('largest_component');
    if (component.largest_component > maxShift)
      exceeded.push(`components moved by up to ${component.largest_component} points (${component.slug}), beyond --max-shift ${maxShift}`);
    const band = worst('band_moved_share');
    if (band.band_moved_share > maxBandMoves)
      exceeded.push(
        `${percent(band.band_moved_share)} of residents changed band (${band.slug}, ${band.band_moved_zips} ZIPs) in ${types((l) => l.band_moved_share > maxBandMoves)}, beyond --max-band-moves ${percent(maxBandMoves)}`,
      );
    const one = worst('component_in_one_build');
    if (one.component_in_one_build)
      exceeded.push(`a component is published in one build only (${one.component_in_one_build} ZIP scores of ${one.slug})`);
  }
  if (scores.zips.only_old) exceeded.push(`${scores.zips.only_old} ZIPs scored only in OLD`);
  if (scores.zips.only_new) exceeded.push(`${scores.zips.only_new} ZIPs scored only in NEW`);
  return { agree: exceeded.length === 0, thresholds: { max_shift: maxShift, max_band_moves: maxBandMoves }, exceeded };
}

const percent = (share: number) => (share > 0 && share < 0.0001 ? '<0.01%' : `${+(share * 100).toFixed(2)}%`);
