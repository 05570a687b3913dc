import type { Snapshot } from './snapshot.ts';
import { perComponent, type Component } from '../../core/components.ts';

/**
 * The two builds side by side: every ZIP code of either, in code order, with its position in each build (-1
 * where that build has no such ZIP), and the score type positions both builds have.
 */
export class Pairs {
  readonly zips: string[];
  readonly oldAt: Int32Array;
  readonly newAt: Int32Array;
  /** Positions (into `zips`) of the ZIPs both builds score. */
  readonly compared: number[];
  /** Score types of both builds: id with its position in each. */
  readonly types: Array<{ id: number; slug: string; name: string; old: number; new: number }>;
  readonly old: Snapshot;
  readonly current: Snapshot;

  constructor(old: Snapshot, current: Snapshot) {
    this.old = old;
    this.current = current;
    this.zips = [...new Set([...old.zips.code, ...current.zips.code])].sort();
    this.oldAt = Int32Array.from(this.zips, (zip) => old.zips.index.get(zip) ?? -1);
    this.newAt = Int32Array.from(this.zips, (zip) => current.zips.index.get(zip) ?? -1);
    this.compared = [];
    for (let p = 0; p < this.zips.length; p++) if (this.oldAt[p] >= 0 && this.newAt[p] >= 0) this.compared.push(p);
    const oldTypes = new Map(old.scores.types.map((t, i) => [t.id, i]));
    this.types = current.scores.types.flatMap((t, i) => (oldTypes.has(t.id) ? [{ ...t, old: oldTypes.get(t.id)!, new: i }] : []));
  }

  /** Residents of a ZIP: the NEW build's population, else the OLD's, 0 when neither has one. */
  residents(p: number): number {
    const now = this.newAt[p] >= 0 ? this.current.zips.population[this.newAt[p]] : Number.NaN;
    if (Number.isFinite(now)) return Math.max(0, now);
    const before = this.oldAt[p] >= 0 ? this.old.zips.population[this.oldAt[p]] : Number.NaN;
    return Number.isFinite(before) ? Math.max(0, before) : 0;
  }

  /** The state of a ZIP (NEW's, else OLD's). */
  state(p: number): string {
    return this.newAt[p] >= 0 ? this.current.zips.state[this.newAt[p]] : this.old.zips.state[this.oldAt[p]];
  }

  city(p: number): string {
    return this.newAt[p] >= 0 ? this.current.zips.city[this.newAt[p]] : this.old.zips.city[this.oldAt[p]];
  }
}

/** One score type's values of a compared ZIP in both builds. */
export type TypeValues = { [C in Component | 'healthscore']: [number, number] } & { label: [string, string] };

/** The values of score type `t` (a `Pairs.types` entry) for ZIP position `p`; NaN where a build has none. */
export function typeValues(pairs: Pairs, t: Pairs['types'][number], p: number): TypeValues {
  const [i, j] = [pairs.oldAt[p], pairs.newAt[p]];
  const [a, b] = [pairs.old.scores, pairs.current.scores];
  const pick = (x: Float32Array[], y: Float32Array[]): [number, number] => [
    i >= 0 ? x[t.old][i] : Number.NaN,
    j >= 0 ? y[t.new][j] : Number.NaN,
  ];
  return {
    healthscore: pick(a.healthscore, b.healthscore),
    ...perComponent((c) => pick(a[c], b[c])),
    label: [i >= 0 ? a.labels[a.label[t.old][i]] : '', j >= 0 ? b.labels[b.label[t.new][j]] : ''],
  };
}

/** Two numbers equal, NaN equal to NaN (a value absent in both builds has not changed). */
export const same = (a: number, b: number) => a === b || (Number.isNaN(a) && Number.isNaN(b));

/** Whether any score field of a ZIP differs between the builds. */
export function changed(v: TypeValues): boolean {
  return (
    !same(...v.healthscore) ||
    !same(...v.people) ||
    !same(...v.provider) ||
    !same(...v.hospital) ||
    !same(...v.travel) ||
    v.label[0] !== v.label[1]
  );
}

/** New minus old, null when either is absent. */
export const delta = ([a, b]: [number, number]): number | null => (Number.isFinite(a) && Number.isFinite(b) ? b - a : null);
