import { haversineMiles } from '../../core/distance.ts';
import type { Candidate } from './causes.ts';
import { type FacilityRecord, facilityLabel, fieldsOf, movedWithItsZip, type RosterChange } from './facilities.ts';
import { type Component, type Pairs, same, type TypeValues } from './pairs.ts';
import { PointSet } from './points.ts';
import type { BuildsPart } from './report.ts';
import { censusValue, MOBILITY_MEASURES } from './snapshot.ts';
import { readable } from './stats.ts';

/** A residents' point that moved less than this (miles) is the same point rounded. */
const POINT_MOVE_MILES = 0.01;
/** Nearby changed inputs considered per ZIP and kind, nearest first. */
const NEAREST = 3;
/** Farther than this no facility explains a ZIP's change, whatever its minutes say. */
const MAX_FACILITY_MILES = 600;

const miles1 = (x: number) => `${x.toFixed(1)} mi`;
const number = (x: number) => (Number.isFinite(x) ? readable(x) : 'none');
const show = (x: unknown) => (x === null || x === undefined ? 'none' : typeof x === 'number' ? number(x) : String(x));

/** A step table's largest distance (`[[15, 1], [30, 0.68], [60, 0.22]]` -> 60), or `fallback`. */
const lastStep = (steps: unknown, fallback: number) =>
  Array.isArray(steps) && Array.isArray(steps.at(-1)) ? Number((steps.at(-1) as unknown[])[0]) || fallback : fallback;

/**
 * The per-ZIP causes: a ZIP's own inputs that changed (residents, social-need and mobility measures, residents'
 * point, per-ZIP basis columns, drive-time tables), and the changed inputs within reach of it (facilities,
 * other ZIPs' residents and points, clinicians). "Within reach" is the scoring's own catchments, read from each
 * build's `meta.scoring`: two hospital catchments for residents (E2SFCA shares a hospital's beds among every
 * ZIP within its reach), and for facilities the catchment or the ZIP's own minutes to care, whichever is farther.
 */
export class LocalCauses {
  private readonly hospitalMiles: number;
  private readonly providerMiles: number;
  private readonly minutesPerMile: number;
  private readonly needMeasures: string[];
  private readonly facilities: PointSet<RosterChange>;
  private readonly populations: PointSet<number>;
  private readonly points: PointSet<number>;
  private readonly clinicians: PointSet<{ zip: string; old: number; new: number }>;
  private readonly driveSources: string[];
  private readonly accessExtras: string[];
  private readonly moved = new Map<number, number>();
  private readonly pairs: Pairs;
  private readonly nearestHospital: (side: 'old' | 'new', p: number) => FacilityRecord | null;

  constructor(
    pairs: Pairs,
    roster: RosterChange[],
    builds: BuildsPart,
    nearestHospital: (side: 'old' | 'new', p: number) => FacilityRecord | null,
    accessExtras: string[],
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
    this.minutesPerMile = Math.min(...scorings.map((s) => Number(s.MINUTES_PER_STRAIGHT_MILE) || 2));
    this.needMeasures = [
      ...new Set(
        scorings.flatMap((s) => (Array.isArray(s.NEED_MEASURES) ? s.NEED_MEASURES.map((m: { measure: string }) => m.measure) : [])),
      ),
    ];
    this.accessExtras = accessExtras;
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

  /**
   * Every cause of ZIP position `p` the two builds record that could account for part of its change `v`:
   * an input that feeds only parts that did not move is not looked for (it would rank nowhere).
   */
  for(p: number, v: TypeValues): Candidate[] {
    const moved = (part: Component) => !same(...v[part]);
    const [people, provider, hospital, travel] = [moved('people'), moved('provider'), moved('hospital'), moved('travel')];
    const out: Candidate[] = this.ownCauses(p, { people, provider, hospital, travel });
    const [lon, lat] = this.point('new', p);
    if (provider || hospital) {
      for (const { item: q, miles } of this.populations.near(lon, lat, 2 * this.hospitalMiles, NEAREST, (q) => q !== p))
        out.push(this.population(q, miles));
      if (!this.moved.has(p))
        for (const { item: q, miles } of this.points.near(lon, lat, this.hospitalMiles, 1, (q) => q !== p))
          out.push(this.pointMoved(q, miles, ['provider', 'hospital']));
    }
    if (provider || hospital || travel)
      for (const { item: change, miles } of this.facilities.near(lon, lat, this.facilityReach(p), NEAREST))
        out.push(this.facility(change, miles));
    if (provider || travel)
      for (const { item, miles } of this.clinicians.near(lon, lat, this.clinicianReach(p), 1))
        out.push(
          this.make({
            id: `clinicians:${item.zip}`,
            kind: 'clinicians',
            group: 'clinicians',
            groupText: 'clinicians practising nearby changed (provider files)',
            input: item,
            label: () => `clinicians practising in ${item.zip} changed: ${number(item.old)} → ${number(item.new)}`,
            affects: ['provider', 'travel'],
            miles,
          }),
        );
    return out;
  }

  /** The ZIP's own changed inputs, of those that feed a part that moved. */
  private ownCauses(p: number, moved: Record<Component, boolean>): Candidate[] {
    const out: Candidate[] = [];
    const zip = this.pairs.zips[p];
    const [i, j] = [this.pairs.oldAt[p], this.pairs.newAt[p]];
    const [a, b] = [this.pairs.old, this.pairs.current];
    const reach = moved.hospital || moved.travel;
    if ((moved.provider || moved.hospital) && !same(a.zips.population[i], b.zips.population[j])) out.push(this.population(p, 0));
    const changed = (names: string[]) => names.filter((m) => censusValue(a, m, i).value !== censusValue(b, m, j).value);
    const listed = (names: string[]) =>
      names
        .map((m) => {
          const [x, y] = [censusValue(a, m, i), censusValue(b, m, j)];
          return `${m} ${show(x.value)} → ${show(y.value)}${y.source ? ` (${y.source})` : ''}`;
        })
        .join('; ');
    const need = moved.people ? changed(this.needMeasures) : [];
    if (need.length)
      out.push(
        this.make({
          id: `need:${zip}`,
          kind: 'need',
          group: 'need',
          groupText: 'social-need census measures changed',
          input: p,
          label: () => `social-need measures of ${this.place(p)} changed: ${listed(need)}`,
          affects: ['people'],
          miles: 0,
        }),
      );
    const mobility = moved.travel ? changed(MOBILITY_MEASURES) : [];
    if (mobility.length)
      out.push(
        this.make({
          id: `mobility:${zip}`,
          kind: 'mobility',
          group: 'mobility',
          groupText: 'vehicle or transit shares changed',
          input: p,
          label: () => `vehicle and transit shares of ${this.place(p)} changed: ${listed(mobility)}`,
          affects: ['travel'],
          miles: 0,
        }),
      );
    if (this.moved.has(p)) out.push(this.pointMoved(p, 0, ['provider', 'hospital', 'travel']));
    for (const column of reach ? this.accessExtras : []) {
      const [x, y] = [a.access?.get(column)?.[i], b.access?.get(column)?.[j]];
      if (x === y) continue;
      out.push(
        this.make({
          id: `access_basis:${column}:${zip}`,
          kind: 'access_basis',
          group: `access_basis:${column}`,
          groupText: `per-ZIP ${column} changed`,
          input: p,
          label: () => `${column} of ${this.place(p)}: ${show(x)} → ${show(y)}`,
          affects: ['hospital', 'travel'],
          miles: 0,
        }),
      );
    }
    const minutes = ['emergency_minutes', 'care_minutes'].filter(
      (c) => !same(Number(a.access?.get(c)?.[i] ?? Number.NaN), Number(b.access?.get(c)?.[j] ?? Number.NaN)),
    );
    const road = a.zips.roadTimes[i] === 1 || b.zips.roadTimes[j] === 1;
    if (reach && this.driveSources.length && minutes.length && road && !this.moved.has(p)) {
      if (this.nearestHospital('old', p)?.key !== this.nearestHospital('new', p)?.key) return out;
      const keys = this.driveSources.join(', ');
      const label = `drive-time table changed (${keys})`;
      const changes = () =>
        minutes.map((c) => `${c.replace('_', ' ')} ${show(a.access?.get(c)?.[i])} → ${show(b.access?.get(c)?.[j])}`).join('; ');
      out.push(
        this.make({
          id: `drive_times:${keys}`,
          kind: 'drive_times',
          group: `drive_times:${keys}`,
          groupText: label,
          input: keys,
          label: () => label,
          text: () => `${label}: ${changes()}`,
          affects: ['hospital', 'travel'],
          miles: 0,
        }),
      );
    }
    return out;
  }

  private population(q: number, miles: number): Candidate {
    const [i, j] = [this.pairs.oldAt[q], this.pairs.newAt[q]];
    return this.make({
      id: `population:${this.pairs.zips[q]}`,
      kind: 'population',
      group: 'population',
      groupText: "a ZIP's residents changed",
      input: q,
      label: () => {
        const source = censusValue(this.pairs.current, 'population', j).source;
        const [before, after] = [this.pairs.old.zips.population[i], this.pairs.current.zips.population[j]];
        return `residents of ${this.place(q)} changed: ${number(before)} → ${number(after)}${source ? ` (${source})` : ''}`;
      },
      affects: ['provider', 'hospital'],
      miles,
    });
  }

  /** ZIP `q`'s residents' point moved: its own cause (miles 0), or a neighbour's. */
  private pointMoved(q: number, miles: number, affects: Candidate['affects']): Candidate {
    return this.make({
      id: `point:${this.pairs.zips[q]}`,
      kind: 'point',
      group: 'point',
      groupText: "residents' points moved",
      input: q,
      label: () => {
        const columns = this.pointColumns(q).map(([c, x, y]) => `; ${c} ${show(x)} → ${show(y)}`);
        return `residents' point of ${this.place(q)} moved ${miles1(this.moved.get(q)!)}${columns.join('')}`;
      },
      affects,
      miles,
    });
  }

  private facility(change: RosterChange, miles: number): Candidate {
    const f = (change.new ?? change.old)!;
    const noun = f.hospital ? 'hospital' : 'health centre site';
    const fields = () =>
      fieldsOf(change)
        .map((x) => `${x.fact} ${show(x.old)} → ${show(x.new)}`)
        .join('; ');
    return this.make({
      id: `facility:${f.key}`,
      kind: 'facility',
      group: `facility:${noun}:${change.change}`,
      groupText: `${noun}s ${change.change} (the facility roster)`,
      input: change,
      label: () => `${noun} ${change.change}: ${facilityLabel(f)}${change.mask ? ` (${fields()})` : ''}`,
      affects: f.hospital ? ['hospital', 'travel'] : ['provider', 'travel'],
      miles,
    });
  }

  /** A candidate; its text is its label, with the distance of an input that is not the ZIP's own. */
  private make(c: Omit<Candidate, 'text'> & { text?: () => string }): Candidate {
    return { ...c, text: c.text ?? (c.miles > 0 ? () => `${c.label()}, ${miles1(c.miles)} away` : c.label) };
  }

  /** How far a changed facility may be and still explain ZIP `p`: the catchment, or its minutes to care in either build. */
  private facilityReach(p: number): number {
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

  private clinicianReach(p: number): number {
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
  private clinicianChanges(): Array<{ item: { zip: string; old: number; new: number }; longitude: number; latitude: number }> {
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

  /** Shared extra `zips` columns about the point (`point_source`, `gazetteer_latitude`) whose value changed. */
  private pointColumns(p: number): Array<[string, unknown, unknown]> {
    const [i, j] = [this.pairs.oldAt[p], this.pairs.newAt[p]];
    const out: Array<[string, unknown, unknown]> = [];
    for (const [column, values] of this.pairs.current.zips.extra) {
      if (!/point|latitude|longitude/.test(column)) continue;
      const before = this.pairs.old.zips.extra.get(column)?.[i];
      if (before !== values[j]) out.push([column, before, values[j]]);
    }
    return out;
  }

  private point(side: 'old' | 'new', p: number): [number, number] {
    const [snapshot, at] = side === 'old' ? [this.pairs.old, this.pairs.oldAt[p]] : [this.pairs.current, this.pairs.newAt[p]];
    return at < 0 ? [Number.NaN, Number.NaN] : [snapshot.zips.longitude[at], snapshot.zips.latitude[at]];
  }

  private place(p: number): string {
    return `${this.pairs.zips[p]} (${this.pairs.city(p)}, ${this.pairs.state(p)})`;
  }
}
