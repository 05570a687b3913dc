import type { Candidate } from './causes.ts';
import { facilityLabel, fieldsOf, type RosterChange } from './facilities.ts';
import type { ChangedInputs } from './inputs.ts';
import type { Component } from '../../core/components.ts';
import { type Pairs, same, type TypeValues } from './pairs.ts';
import { censusValue, MOBILITY_MEASURES } from './snapshot.ts';
import { readable } from '../../core/numbers.ts';

/** Nearby changed inputs considered per ZIP and kind, nearest first. */
const NEAREST = 3;

const miles1 = (x: number) => `${x.toFixed(1)} mi`;
const number = (x: number) => (Number.isFinite(x) ? readable(x) : 'none');
const show = (x: unknown) => (x === null || x === undefined ? 'none' : typeof x === 'number' ? number(x) : String(x));

/**
 * The per-ZIP causes: a ZIP's own inputs that changed (residents, social-need and mobility measures, residents'
 * point, per-ZIP basis columns, drive-time tables), and the changed inputs within reach of it (facilities,
 * other ZIPs' residents and points, clinicians). "Within reach" is the scoring's own catchments (ChangedInputs):
 * two hospital catchments for residents (E2SFCA shares a hospital's beds among every ZIP within its reach), and
 * for facilities the catchment or the ZIP's own minutes to care, whichever is farther.
 */
export class LocalCauses {
  private readonly inputs: ChangedInputs;
  private readonly accessExtras: string[];
  private readonly pairs: Pairs;

  constructor(inputs: ChangedInputs, accessExtras: string[]) {
    this.inputs = inputs;
    this.pairs = inputs.pairs;
    this.accessExtras = accessExtras;
  }

  /**
   * Every cause of ZIP position `p` the two builds record that could account for part of its change `v`:
   * an input that feeds only parts that did not move is not looked for (it would rank nowhere).
   */
  for(p: number, v: TypeValues): Candidate[] {
    const moved = (part: Component) => !same(...v[part]);
    const [people, provider, hospital, travel] = [moved('people'), moved('provider'), moved('hospital'), moved('travel')];
    const out: Candidate[] = this.ownCauses(p, { people, provider, hospital, travel });
    const [lon, lat] = this.inputs.point('new', p);
    if (provider || hospital) {
      for (const { item: q, miles } of this.inputs.populations.near(lon, lat, 2 * this.inputs.hospitalMiles, NEAREST, (q) => q !== p))
        out.push(this.population(q, miles));
      if (!this.inputs.moved.has(p))
        for (const { item: q, miles } of this.inputs.points.near(lon, lat, this.inputs.hospitalMiles, 1, (q) => q !== p))
          out.push(this.pointMoved(q, miles, ['provider', 'hospital']));
    }
    if (provider || hospital || travel)
      for (const { item: change, miles } of this.inputs.facilities.near(lon, lat, this.inputs.facilityReach(p), NEAREST))
        out.push(this.facility(change, miles));
    if (provider || travel)
      for (const { item, miles } of this.inputs.clinicians.near(lon, lat, this.inputs.clinicianReach(p), 1))
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
    const measures = (kind: 'need' | 'mobility', names: string[], groupText: string, what: string, part: Component) => {
      const changed = names.filter((m) => censusValue(a, m, i).value !== censusValue(b, m, j).value);
      if (!changed.length) return;
      const listed = () =>
        changed
          .map((m) => {
            const [x, y] = [censusValue(a, m, i), censusValue(b, m, j)];
            return `${m} ${show(x.value)} → ${show(y.value)}${y.source ? ` (${y.source})` : ''}`;
          })
          .join('; ');
      out.push(
        this.make({
          id: `${kind}:${zip}`,
          kind,
          group: kind,
          groupText,
          input: p,
          label: () => `${what} of ${this.place(p)} changed: ${listed()}`,
          affects: [part],
          miles: 0,
        }),
      );
    };
    if (moved.people) measures('need', this.inputs.needMeasures, 'social-need census measures changed', 'social-need measures', 'people');
    if (moved.travel) measures('mobility', MOBILITY_MEASURES, 'vehicle or transit shares changed', 'vehicle and transit shares', 'travel');
    if (this.inputs.moved.has(p)) out.push(this.pointMoved(p, 0, ['provider', 'hospital', 'travel']));
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
    if (reach && this.inputs.driveSources.length && minutes.length && road && !this.inputs.moved.has(p)) {
      if (this.inputs.nearestHospital('old', p)?.key !== this.inputs.nearestHospital('new', p)?.key) return out;
      const keys = this.inputs.driveSources.join(', ');
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
    const label = () => {
      const source = censusValue(this.pairs.current, 'population', j).source;
      const [before, after] = [this.pairs.old.zips.population[i], this.pairs.current.zips.population[j]];
      return `residents of ${this.place(q)} changed: ${number(before)} → ${number(after)}${source ? ` (${source})` : ''}`;
    };
    return this.ofZip('population', q, "a ZIP's residents changed", label, ['provider', 'hospital'], miles);
  }

  /** ZIP `q`'s residents' point moved: its own cause (miles 0), or a neighbour's. */
  private pointMoved(q: number, miles: number, affects: Candidate['affects']): Candidate {
    const label = () => {
      const columns = this.inputs.pointColumns(q).map(([c, x, y]) => `; ${c} ${show(x)} → ${show(y)}`);
      return `residents' point of ${this.place(q)} moved ${miles1(this.inputs.moved.get(q)!)}${columns.join('')}`;
    };
    return this.ofZip('point', q, "residents' points moved", label, affects, miles);
  }

  /** A cause that is an input of ZIP `q` (id `kind:ZIP`), counted under the line `kind`. */
  private ofZip(
    kind: Candidate['kind'],
    q: number,
    groupText: string,
    label: () => string,
    affects: Candidate['affects'],
    miles: number,
  ): Candidate {
    return this.make({ id: `${kind}:${this.pairs.zips[q]}`, kind, group: kind, groupText, input: q, label, affects, miles });
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

  private place(p: number): string {
    return `${this.pairs.zips[p]} (${this.pairs.city(p)}, ${this.pairs.state(p)})`;
  }
}
