import { currentTractCode } from '../geo/counties.ts';
import type { CountSource } from '../ingest/ingested.ts';
import type { CountyZips } from './county-zips.ts';

/**
 * Clinician count files read per count kind and county: what each file says of each county, which file wins
 * where several do (the most recent year; the earlier source in the manifest between equals), and how each
 * file's own totals check out (its nation and state rows against the sum of its areas).
 */

/** What one file says of one county for one count kind. */
export interface CountyCount {
  source: string;
  year: number;
  amount: number;
  /**
   * How the file's clinicians lie within the county, where it says: per tract (its 11-digit code) or ZIP
   * (`z:` and its index in the places). Absent for a county file.
   */
  within?: Map<string, number>;
  /** The amount is a share of a state total the file gave under codes no crosswalk names, spread by residents. */
  pooled?: true;
  /** The residents the file counted them against (its denominator), where its county rows say. */
  population?: number;
}

/** A file's totals beside its own summary rows, per count kind (reported, never corrected). */
export interface CountCheck {
  source: string;
  kind: string;
  year: number;
  /** The sum of the file's county, tract or ZIP rows. */
  areas: number;
  /** The file's own national row, null when it has none. */
  nation: number | null;
  /** States whose row differs from the sum of their areas by more than `CHECK_TOLERANCE` (and 1 clinician). */
  statesDiffering: Array<{ state: string; row: number; areas: number }>;
  /** Clinicians under county codes no crosswalk names, per state, spread over the state's counties by residents. */
  pooled: Array<{ state: string; codes: string[]; amount: number }>;
}

/** A row that landed but could not be placed in any county of the build: reported to the reconciliation. */
export interface CountWithdrawal {
  key: string;
  line: number;
  reason: string;
}

/** A file's total may differ from its own national or state row by this share before it is reported as differing. */
export const CHECK_TOLERANCE = 0.005;

/** Every count kind's counties, each with the counts the files give for it, the winning one first. */
export interface CountsByKind {
  /** kind -> county -> what each file says, best first (most recent year, then manifest order). */
  counties: Map<string, Map<string, CountyCount[]>>;
  checks: CountCheck[];
  withdrawn: CountWithdrawal[];
}

/** Reads every count file into counts per kind and county, with each file's checks. */
export function countsByKind(
  sources: readonly CountSource[],
  zipIndexOf: (zip: string) => number | undefined,
  countyZips: CountyZips,
): CountsByKind {
  const counties = new Map<string, Map<string, CountyCount[]>>();
  const checks: CountCheck[] = [];
  const withdrawn = new Map<string, CountWithdrawal>();
  sources.forEach((source) => {
    for (const kind of source.kinds) {
      const { byCounty, check, unplaced } = readKind(source, kind, countyZips, zipIndexOf);
      checks.push(check);
      for (const w of unplaced) withdrawn.set(`${w.key}:${w.line}`, w);
      let forKind = counties.get(kind);
      if (!forKind) counties.set(kind, (forKind = new Map()));
      for (const [county, count] of byCounty) forKind.set(county, [...(forKind.get(county) ?? []), count]);
    }
  });
  const order = new Map(sources.map((s, i) => [s.key, i]));
  for (const forKind of counties.values())
    for (const list of forKind.values()) list.sort((a, b) => b.year - a.year || order.get(a.source)! - order.get(b.source)!);
  return { counties, checks, withdrawn: [...withdrawn.values()] };
}

/** One file's counts of one kind per current county, and its checks. */
function readKind(
  source: CountSource,
  kind: string,
  countyZips: CountyZips,
  zipIndexOf: (zip: string) => number | undefined,
): { byCounty: Map<string, CountyCount>; check: CountCheck; unplaced: CountWithdrawal[] } {
  const byCounty = new Map<string, CountyCount>();
  const add = (county: string, amount: number, place?: string) => {
    let count = byCounty.get(county);
    if (!count) byCounty.set(county, (count = { source: source.key, year: source.year, amount: 0 }));
    count.amount += amount;
    if (place !== undefined) {
      count.within ??= new Map();
      count.within.set(place, (count.within.get(place) ?? 0) + amount);
    }
  };
  let nation: number | null = null;
  const stateRows = new Map<string, number>();
  const stateAreas = new Map<string, number>();
  const unknown = new Map<string, UnknownCodes>();
  const unplaced: CountWithdrawal[] = [];
  let areas = 0;
  for (const row of source.rows) {
    const amount = row.counts[kind];
    if (amount === null || amount === undefined) continue;
    if (row.area === 'nation') {
      nation = amount;
      continue;
    }
    if (row.area === 'state') {
      stateRows.set(row.code, amount);
      continue;
    }
    areas += amount;
    const state = row.area === 'zip' ? null : row.code.slice(0, 2);
    if (state) stateAreas.set(state, (stateAreas.get(state) ?? 0) + amount);
    if (row.area === 'zip') {
      const i = zipIndexOf(row.code);
      const shares = i === undefined ? [] : countyZips.sharesOf(i);
      if (shares.length === 0) unplaced.push({ ...row.origin, reason: `ZIP ${row.code} is in no county the crosswalks of the build name` });
      for (const [county, share] of shares) add(county, amount * share, `z:${i}`);
      continue;
    }
    const current = countyZips.currentCounties(row.code.slice(0, 5));
    if (current.length === 0) {
      const pool = unknown.get(state!) ?? { codes: new Set<string>(), amount: 0, lines: [] };
      pool.codes.add(row.code.slice(0, 5));
      pool.amount += amount;
      pool.lines.push(row.origin.line);
      unknown.set(state!, pool);
      continue;
    }
    const tract = row.area === 'tract' ? currentTractCode(row.code) : undefined;
    const split = byResidents(countyZips, current);
    for (const [county, share] of split) {
      add(county, amount * share, tract);
      if (row.area === 'county' && row.population !== null) {
        const count = byCounty.get(county)!;
        count.population = (count.population ?? 0) + row.population * share;
      }
    }
  }
  const pooled = placePools(unknown, source, countyZips, { byCounty, add, unplaced });
  const statesDiffering = [...stateRows]
    .map(([state, row]) => ({ state, row, areas: stateAreas.get(state) ?? 0 }))
    .filter(({ row, areas }) => differs(row, areas));
  return { byCounty, check: { source: source.key, kind, year: source.year, areas, nation, statesDiffering, pooled }, unplaced };
}

/** A state's counts under county codes no crosswalk of the build names: the codes, their sum and their lines. */
interface UnknownCodes {
  codes: Set<string>;
  amount: number;
  lines: number[];
}

/** Where readKind puts a count: its counties' tallies, `add` to them, and the rows it cannot place. */
interface KindTally {
  byCounty: Map<string, CountyCount>;
  add(county: string, amount: number): void;
  unplaced: CountWithdrawal[];
}

/**
 * A state total under codes no crosswalk names (Connecticut's planning regions) goes to the state's counties
 * the file counts nothing for, by residents: its clinicians are in the state, where exactly is not known.
 */
function placePools(
  unknown: Map<string, UnknownCodes>,
  source: CountSource,
  countyZips: CountyZips,
  tally: KindTally,
): CountCheck['pooled'] {
  const { byCounty, add, unplaced } = tally;
  const pooled: CountCheck['pooled'] = [];
  for (const [state, pool] of unknown) {
    const open = countyZips.countiesOf(state).filter((c) => !byCounty.has(c));
    const targets = open.length ? open : countyZips.countiesOf(state);
    if (targets.length === 0) {
      for (const line of pool.lines)
        unplaced.push({
          key: source.key,
          line,
          reason: `county code of state ${state}, which has no county the crosswalks of the build name`,
        });
      continue;
    }
    for (const [county, share] of byResidents(countyZips, targets)) {
      add(county, pool.amount * share);
      byCounty.get(county)!.pooled = true;
    }
    pooled.push({ state, codes: [...pool.codes].sort(), amount: pool.amount });
  }
  return pooled;
}

/** Whether a file's own total and the sum of its areas disagree beyond rounding. */
export function differs(row: number, areas: number): boolean {
  return Math.abs(row - areas) > Math.max(1, CHECK_TOLERANCE * row);
}

/** Shares of the given counties by their residents (equal where none has any). */
function byResidents(countyZips: CountyZips, counties: readonly string[]): Array<[string, number]> {
  if (counties.length === 1) return [[counties[0], 1]];
  const residents = counties.map((c) => countyZips.residentsOf(c));
  const total = residents.reduce((a, b) => a + b, 0);
  return counties.map((c, i) => [c, total > 0 ? residents[i] / total : 1 / counties.length]);
}
