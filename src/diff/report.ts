import type { Component } from '../../core/components.ts';

/**
 * The report of `hcas diff OLD NEW`, as `--json` prints it (docs/DIFF.md documents every field; a test holds
 * the two together). Field names are snake_case like the API's; "old" and "new" are the two builds.
 */
export interface DiffReport {
  /** The shape of this document: `hcas-diff/1`. */
  format: string;
  old: BuildSummary;
  new: BuildSummary;
  builds: BuildsPart;
  scores: ScoresPart;
  why: WhyPart;
  status: StatusPart;
}

/** What identifies one build, from its `meta`. */
export interface BuildSummary {
  file: string;
  build_id: string;
  built_at: string | null;
  dataset: string | null;
  /** Package version and pipeline code fingerprint (`meta.code`), null when the build does not record them. */
  code_version: string | null;
  /** `data_quality.provider.status`: measured, sample or omitted (null when not recorded). */
  provider_component: string | null;
}

/** Part 1: the inputs and settings that differ. */
export interface BuildsPart {
  same_build_id: boolean;
  /** Sources added, removed or changed (by manifest key); identical ones are only counted. */
  sources: SourceChange[];
  sources_unchanged: number;
  /** Recorded settings that differ, by dotted path (`scoring.COMPOSITE_WEIGHTS.hospital`, `data_quality.provider.status`). */
  settings: ValueChange[];
  /** Row counts of tables that differ. */
  row_counts: Array<{ table: string; old: number | null; new: number | null }>;
  /** What could not be compared, one sentence each (a table, column or meta key one build lacks). */
  not_compared: string[];
}

export interface SourceChange {
  key: string;
  change: 'added' | 'removed' | 'changed';
  old: SourceFacts | null;
  new: SourceFacts | null;
}

export interface SourceFacts {
  file: string | null;
  vintage: string | null;
  sha256: string | null;
  rows_landed: number | null;
  rows_rejected: number | null;
}

export interface ValueChange {
  path: string;
  old: unknown;
  new: unknown;
}

/** Part 2: the scores, for the score type asked (overall by default), and a line per score type. */
export interface ScoresPart {
  score_type: { id: number; slug: string; name: string };
  zips: { compared: number; changed: number; moved: number; unchanged: number; only_old: number; only_new: number };
  residents: { compared: number; in_moved_zips: number; band_moved: number; band_moved_share: number };
  /** The band labels, best first (NEW's band table). */
  bands: string[];
  /** Old band x new band, for the ZIPs whose band changed. */
  band_moves: Array<{ from: string; to: string; zips: number; residents: number }>;
  national: ShiftRow;
  /** Every state with a ZIP compared, by state code. */
  states: ShiftRow[];
  score_types: ScoreTypeLine[];
}

/** How a group of ZIPs shifted (new minus old). Means over every compared ZIP; `median_moved` over those that moved. */
export interface ShiftRow {
  state: string | null;
  zips: number;
  moved: number;
  mean: number | null;
  residents_mean: number | null;
  median_moved: number | null;
  largest: number | null;
  /** Mean shift per component; null where a build lacks the component. */
  components: Record<Component, number | null>;
  /** The state's published average (`states` table) before and after; null nationally or when a build lacks it. */
  average: { old: number | null; new: number | null };
}

/** One score type over every compared ZIP: what the exit status judges. */
export interface ScoreTypeLine {
  id: number;
  slug: string;
  changed: number;
  moved: number;
  mean: number | null;
  /** The largest shift of the score (signed), 0 when none moved. */
  largest: number;
  /** The largest shift of any component (absolute), where both builds have it. */
  largest_component: number;
  /** ZIPs with a component in one build only (the provider component published in one of them, say). */
  component_in_one_build: number;
  band_moved_zips: number;
  band_moved_share: number;
}

/** Part 3: the causes, the ZIPs that moved most with the facts behind them, the roster's and providers' own diffs. */
export interface WhyPart {
  causes: CauseLine[];
  zips: ZipChange[];
  /** How the ZIPs above were chosen. */
  ranked_by: 'points' | 'residents';
  min_residents: number;
  facilities: RosterDiff | null;
  providers: ProviderCounts | null;
}

/** One kind of cause and what it explains: every ZIP whose change it is the first cause of is counted once. */
export interface CauseLine {
  kind: CauseKind;
  cause: string;
  /** The distinct inputs of this kind that changed (facilities, ZIPs, constants), with up to five named. */
  inputs: number;
  examples: string[];
  first_for_zips: number;
  first_for_residents: number;
  /** ZIPs it is a cause of at all (first or later). */
  zips: number;
}

export type CauseKind =
  | 'scoring'
  | 'provider_basis'
  | 'prevalence'
  | 'population'
  | 'need'
  | 'mobility'
  | 'point'
  | 'facility'
  | 'clinicians'
  | 'drive_times'
  | 'access_basis'
  | 'source'
  | 'code'
  | 'unexplained';

/** One cause of one ZIP's change: `id` names the changed input, so causes group across ZIPs. */
export interface CauseRef {
  id: string;
  kind: CauseKind;
  text: string;
}

export interface ZipChange {
  zip: string;
  city: string;
  state: string;
  residents: number | null;
  old: ScoreFacts | null;
  new: ScoreFacts | null;
  shift: number | null;
  deltas: Record<Component, number | null>;
  /** Most explaining first. */
  causes: CauseRef[];
  facts: FactChange[];
}

export type ScoreFacts = { [C in Component | 'healthscore']: number | null } & { label: string };

export interface FactChange {
  fact: string;
  old: string | number | null;
  new: string | number | null;
}

export interface RosterDiff {
  added: number;
  removed: number;
  changed: number;
  /** Facilities changed, by field (a facility may count under several). */
  by_field: Record<string, number>;
  /** Facilities whose affiliated clinician count alone changed (it follows the provider files). */
  provider_count_only: number;
  /** Facilities placed at their ZIP's point (no coordinates of their own) that moved only because that point moved. */
  moved_with_zip_point: number;
  /** Added, removed and score-relevant changes first, then the rest, up to the listing limit. */
  list: FacilityChange[];
  listed_of: number;
}

export interface FacilityChange {
  change: 'added' | 'removed' | 'changed';
  key: string;
  name: string;
  type: string;
  place: string;
  /** Whether the scores count it (a general or emergency hospital, or a health centre site). */
  scored: boolean;
  /** Placed at its ZIP's point, it moved only because that point moved (the ZIP's `point` cause covers it). */
  with_zip_point: boolean;
  fields: FactChange[];
}

export interface ProviderCounts {
  total: { old: number | null; new: number | null };
  by_state: Array<{ state: string; old: number | null; new: number | null }>;
  /** Clinicians per 100,000 residents by scoring category (`provider_coverage.national`). */
  by_category: Array<{ category: string; old: number | null; new: number | null }>;
}

export interface StatusPart {
  /** True when every compared score is within the thresholds and no ZIP is scored in one build only: exit 0. */
  agree: boolean;
  thresholds: { max_shift: number; max_band_moves: number };
  /** What is beyond them, one sentence each. */
  exceeded: string[];
}
