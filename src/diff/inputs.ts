import { haversineMiles } from '../../core/distance.ts';
import { type FacilityRecord, movedWithItsZip, type RosterChange } from './facilities.ts';
import { type Pairs, same } from './pairs.ts';
import { PointSet } from './points.ts';
import type { BuildsPart } from './report.ts';

/** A residents' point that moved less than this (miles) is the same point rounded. */
const POINT_MOVE_MILES = 0.01;
/** Farther than this no facility explains a ZIP's change, whatever its minutes say. */
const MAX_FACILITY_MILES = 600;

/** A step table's largest distance (`[[15, 1], [30, 0.68], [60, 0.22]]` -> 60), or `fallback`. */
const lastStep = (steps: unknown, fallback: number) =>
  Array.isArray(steps) && Array.isArray(steps.at(-1)) ? Number((steps.at(-1) as unknown[])[0]) || fallback : fallback;

/** A postal ZIP whose count of practising clinicians changed. */
export interface ClinicianChange {
  zip: string;
  old: number;
  new: number;
}

/**
 * The inputs that changed between two builds, each where it is, and how far each may reach: the scoring's own
 * catchments, read from each build's `meta.scoring` (the larger of the two), so a method change of the
 * catchments is measured with both.
 */
export class ChangedInputs {
  readonly pairs: Pairs;
  /** The largest hospital catchment (E2SFCA steps, ratings radius, travel network), miles. */
  readonly hospitalMiles: number;
  readonly providerMiles: number;
  readonly needMeasures: string[];
  /** Facility changes the scores read (not those that only followed their ZIP's point). */
  readonly facilities: PointSet<RosterChange>;
  /** ZIP positions whose residents changed, and whose point moved (with the miles it moved). */
  readonly populations: PointSet<number>;
  readonly points: PointSet<number>;
  readonly moved = new Map<number, number>();
  readonly clinicians: PointSet<ClinicianChange>;
  /** Changed sources of the drive-time layout. */
  readonly driveSources: string[];
  readonly nearestHospital: (side: 'old' | 'new', p: number) => FacilityRecord | null;
  private readonly minutesPerMile: number;

  constructor(
    pairs: Pairs,
    roster: RosterChange[],
    builds: BuildsPart,
    nearestHospital: (side: 'old' | 'new', p: number) => FacilityRecord | null,
    providerComponentInBoth: boolean,
  ) {
    this.pairs = pairs;
    this.nearestHospital = nearestHospital;
    const scorings = [pairs.old.meta.scoring, pairs.current.meta.scoring].map((s) => (s ?? {}) as Record<string, unknown>);
    const most = (pick: (s: Record<string, unknown>) => number) => Math.max(...scorings.map(pick));
    this.hospitalMiles = most((s) =>
      Math.max(lastStep(s.HOSPITAL_STEPS, 60), Number(s.RATING_RADIUS_MILES) || 0, Number(s.NETWORK_MAX_MILES) || 0),
    );
    this.providerMiles = most((s) => lastStep(s.PROVIDER_STEPS, 30));
    // The fewest minutes a straight mile is driven in, in either build (by density since the residents' points).
    this.minutesPerMile = Math.min(
      ...scorings.flatMap((s) => [
        Number(s.MINUTES_PER_STRAIGHT_MILE) || 2,
        ...(Array.isArray(s.MINUTES_PER_STRAIGHT_MILE_BY_DENSITY)
          ? s.MINUTES_PER_STRAIGHT_MILE_BY_DENSITY.map((row: { minutesPerMile?: number }) => Number(row.minutesPerMile) || 2)
          : []),
      ]),
    );
    this.needMeasures = [
      ...new Set(
        scorings.flatMap((s) => (Array.isArray(s.NEED_MEASURES) ? s.NEED_MEASURES.map((m: { measure: string }) => m.measure) : [])),
      ),
    ];
    const at = (p: number) => this.point('new', p);
    this.facilities = new PointSet(
      roster
        .filter((c) => c.scoreRelevant && !movedWithItsZip(c))
        .map((c) => {
          const f = (c.new ?? c.old)!;
          return { item: c, longitude: f.longitude, latitude: f.latitude };
        }),
    );
    const populationChanged: number[] = [];
    for (const p of pairs.compared) {
      const [i, j] = [pairs.oldAt[p], pairs.newAt[p]];
      if (!same(pairs.old.zips.population[i], pairs.current.zips.population[j])) populationChanged.push(p);
      const distance = haversineMiles(this.point('old', p)[0], this.point('old', p)[1], at(p)[0], at(p)[1]);
      if (distance >= POINT_MOVE_MILES || this.pointColumns(p).length) this.moved.set(p, Number.isFinite(distance) ? distance : 0);
    }
    this.populations = new PointSet(populationChanged.map((p) => ({ item: p, longitude: at(p)[0], latitude: at(p)[1] })));
    this.points = new PointSet([...this.moved.keys()].map((p) => ({ item: p, longitude: at(p)[0], latitude: at(p)[1] })));
    this.clinicians = new PointSet(providerComponentInBoth ? this.clinicianChanges() : []);
    const layouts = new Map(
      [pairs.old.meta.sources, pairs.current.meta.sources].flatMap((list) =>
        (Array.isArray(list) ? list : []).map((s: { key: string; layout: string }) => [s.key, s.layout] as const),
      ),
    );
    this.driveSources = builds.sources.filter((s) => layouts.get(s.key) === 'drive_times').map((s) => s.key);
  }

  /** How far a changed facility may be and still explain ZIP `p`: the catchment, or its minutes to care in either build. */
  facilityReach(p: number): number {
    let reach = this.hospitalMiles;
    for (const [side, at] of [
      ['old', this.pairs.oldAt[p]],
      ['new', this.pairs.newAt[p]],
    ] as const) {
      const access = (side === 'old' ? this.pairs.old : this.pairs.current).access;
      for (const column of ['emergency_minutes', 'major_hospital_minutes', 'care_minutes']) {
        const minutes = Number(access?.get(column)?.[at]);
        if (Number.isFinite(minutes)) reach = Math.max(reach, minutes / this.minutesPerMile);
      }
      const nearest = Number(access?.get('nearest_hospital_miles')?.[at]);
      if (Number.isFinite(nearest)) reach = Math.max(reach, nearest);
    }
    return Math.min(MAX_FACILITY_MILES, reach + 1);
  }

  /** How far a changed clinician count may be: the provider catchment, or the nearest primary care in either build. */
  clinicianReach(p: number): number {
    let reach = this.providerMiles;
    for (const [snapshot, at] of [
      [this.pairs.old, this.pairs.oldAt[p]],
      [this.pairs.current, this.pairs.newAt[p]],
    ] as const) {
      const miles = Number(snapshot.access?.get('nearest_primary_care_miles')?.[at]);
      if (Number.isFinite(miles)) reach = Math.max(reach, miles);
    }
    return reach + 1;
  }

  /** Postal ZIPs whose clinician count changed, at their ZIP's point. */
  private clinicianChanges(): Array<{ item: ClinicianChange; longitude: number; latitude: number }> {
    const [a, b] = [this.pairs.old.clinicians.byZip, this.pairs.current.clinicians.byZip];
    if (!a || !b) return [];
    const out = [];
    for (const zip of new Set([...a.keys(), ...b.keys()])) {
      const [x, y] = [a.get(zip) ?? 0, b.get(zip) ?? 0];
      const at = this.pairs.current.zips.index.get(zip);
      if (x === y || at === undefined) continue;
      out.push({
        item: { zip, old: x, new: y },
        longitude: this.pairs.current.zips.longitude[at],
        latitude: this.pairs.current.zips.latitude[at],
      });
    }
    return out;
  }

  /** Shared `zips` columns that say which point the residents' point is (`point_source`), where their value changed. */
  pointColumns(p: number): Array<[string, unknown, unknown]> {
    const [i, j] = [this.pairs.oldAt[p], this.pairs.newAt[p]];
    const out: Array<[string, unknown, unknown]> = [];
    for (const [column, values] of this.pairs.current.zips.extra) {
      if (!/point/.test(column)) continue;
      const before = this.pairs.old.zips.extra.get(column)?.[i];
      if (before !== values[j]) out.push([column, before, values[j]]);
    }
    return out;
  }

  /** A ZIP's residents' point in one build, `[longitude, latitude]` (NaN where that build lacks the ZIP). */
  point(side: 'old' | 'new', p: number): [number, number] {
    const [snapshot, at] = side === 'old' ? [this.pairs.old, this.pairs.oldAt[p]] : [this.pairs.current, this.pairs.newAt[p]];
    return at < 0 ? [Number.NaN, Number.NaN] : [snapshot.zips.longitude[at], snapshot.zips.latitude[at]];
  }
}
