import { COMPONENTS, perComponent } from '../../core/components.ts';
import { changed, delta, type Pairs, same, typeValues, type TypeValues } from './pairs.ts';
import type { ScoresPart, ScoreTypeLine, ShiftRow } from './report.ts';
import { finiteOrNull, median, round } from '../../core/numbers.ts';
import { mean } from './stats.ts';

/** A figure of the report at `digits` decimals, null where there is none (JSON has no NaN). */
const figure = (x: number, digits: number) => finiteOrNull(round(x, digits));

/** The scores part, and the positions of the ZIPs whose score of the chosen type changed (for the causes). */
export interface ScoreComparison {
  part: ScoresPart;
  changed: number[];
  values: Map<number, TypeValues>;
}

/** Part 2 for score type `typeId` (which both builds must have), with a summary line for every shared type. */
export function compareScores(pairs: Pairs, typeId: number): ScoreComparison {
  const type = pairs.types.find((t) => t.id === typeId)!;
  const values = new Map<number, TypeValues>();
  const changedZips: number[] = [];
  const bands = new Map<string, { from: string; to: string; zips: number; residents: number }>();
  let residents = 0;
  let movedResidents = 0;
  let bandResidents = 0;
  let moved = 0;
  for (const p of pairs.compared) {
    const v = typeValues(pairs, type, p);
    const people = pairs.residents(p);
    residents += people;
    if (!changed(v)) continue;
    changedZips.push(p);
    values.set(p, v);
    if (v.healthscore[0] !== v.healthscore[1]) {
      moved++;
      movedResidents += people;
    }
    if (v.label[0] !== v.label[1]) {
      const key = `${v.label[0]}\u0000${v.label[1]}`;
      const cell = bands.get(key) ?? bands.set(key, { from: v.label[0], to: v.label[1], zips: 0, residents: 0 }).get(key)!;
      cell.zips++;
      cell.residents += people;
      bandResidents += people;
    }
  }
  const byState = new Map<string, number[]>();
  for (const p of pairs.compared) {
    const state = pairs.state(p);
    (byState.get(state) ?? byState.set(state, []).get(state)!).push(p);
  }
  const row = (state: string | null, members: number[]) => shiftRow(pairs, state, members, values);
  return {
    changed: changedZips,
    values,
    part: {
      score_type: { id: type.id, slug: type.slug, name: type.name },
      zips: {
        compared: pairs.compared.length,
        changed: changedZips.length,
        moved,
        unchanged: pairs.compared.length - changedZips.length,
        only_old: countOnly(pairs.oldAt, pairs.newAt),
        only_new: countOnly(pairs.newAt, pairs.oldAt),
      },
      residents: {
        compared: residents,
        in_moved_zips: movedResidents,
        band_moved: bandResidents,
        band_moved_share: residents > 0 ? (figure(bandResidents / residents, 6) ?? 0) : 0,
      },
      bands: bandOrder(pairs),
      band_moves: [...bands.values()].sort((a, b) => b.residents - a.residents || b.zips - a.zips),
      national: row(null, pairs.compared),
      states: [...byState.keys()].sort().map((state) => row(state, byState.get(state)!)),
      score_types: pairs.types.map((t) => typeLine(pairs, t)),
    },
  };
}

/** Band labels best first, from the band tables of `meta.scoring` (NEW's first), then any other label seen. */
function bandOrder(pairs: Pairs): string[] {
  const labels: string[] = [];
  for (const meta of [pairs.current.meta, pairs.old.meta]) {
    const bands = (meta.scoring as { bands?: Array<{ label?: string }> } | undefined)?.bands;
    for (const band of Array.isArray(bands) ? bands : []) if (band.label && !labels.includes(band.label)) labels.push(band.label);
  }
  return labels;
}

/** ZIPs one build scores and the other does not. */
function countOnly(inThis: Int32Array, inOther: Int32Array): number {
  let n = 0;
  for (let p = 0; p < inThis.length; p++) if (inThis[p] >= 0 && inOther[p] < 0) n++;
  return n;
}

function shiftRow(pairs: Pairs, state: string | null, members: number[], values: Map<number, TypeValues>): ShiftRow {
  const shifts: number[] = [];
  const weights: number[] = [];
  const movedShifts: number[] = [];
  const parts = Object.fromEntries(COMPONENTS.map((c) => [c, [] as number[]])) as Record<(typeof COMPONENTS)[number], number[]>;
  const absent = new Set<string>();
  for (const p of members) {
    const v = values.get(p);
    const shift = v ? delta(v.healthscore) : 0;
    if (shift === null) continue;
    shifts.push(shift);
    weights.push(pairs.residents(p));
    if (shift !== 0) movedShifts.push(shift);
    for (const c of COMPONENTS) {
      const d = v ? delta(v[c]) : 0;
      if (d === null) absent.add(c);
      else parts[c].push(d);
    }
  }
  const averages = [pairs.old.stateAverages, pairs.current.stateAverages];
  const component = (c: (typeof COMPONENTS)[number]) => (absent.has(c) ? null : figure(mean(parts[c]), 2));
  return {
    state,
    zips: members.length,
    moved: movedShifts.length,
    mean: figure(mean(shifts), 2),
    residents_mean: figure(mean(shifts, weights), 2),
    median_moved: figure(median(movedShifts), 2),
    largest: movedShifts.length ? movedShifts.reduce((a, b) => (Math.abs(b) > Math.abs(a) ? b : a)) : shifts.length ? 0 : null,
    components: perComponent(component),
    average: {
      old: state && averages[0] ? (averages[0].get(state) ?? null) : null,
      new: state && averages[1] ? (averages[1].get(state) ?? null) : null,
    },
  };
}

/** One score type's summary: what the exit status judges for every type. Reads the arrays directly: it runs for every ZIP of every type. */
function typeLine(pairs: Pairs, t: Pairs['types'][number]): ScoreTypeLine {
  const [a, b] = [pairs.old.scores, pairs.current.scores];
  const fields: Array<[Float32Array, Float32Array]> = COMPONENTS.map((c) => [a[c][t.old], b[c][t.new]]);
  const [scoreOld, scoreNew] = [a.healthscore[t.old], b.healthscore[t.new]];
  const [labelOld, labelNew] = [a.label[t.old], b.label[t.new]];
  let changedZips = 0;
  let bandZips = 0;
  let bandResidents = 0;
  let residents = 0;
  let largestComponent = 0;
  let inOneBuild = 0;
  let sum = 0;
  let moved = 0;
  let largest = 0;
  for (const p of pairs.compared) {
    const [i, j] = [pairs.oldAt[p], pairs.newAt[p]];
    const people = pairs.residents(p);
    residents += people;
    let any = false;
    const shift = scoreNew[j] - scoreOld[i];
    if (!same(scoreOld[i], scoreNew[j])) {
      any = true;
      if (Number.isFinite(shift)) {
        moved++;
        sum += shift;
        if (Math.abs(shift) > Math.abs(largest)) largest = shift;
      }
    }
    for (const [x, y] of fields) {
      if (same(x[i], y[j])) continue;
      any = true;
      if (Number.isNaN(x[i]) !== Number.isNaN(y[j])) inOneBuild++;
      else largestComponent = Math.max(largestComponent, Math.abs(y[j] - x[i]));
    }
    const band = a.labels[labelOld[i]] !== b.labels[labelNew[j]];
    if (band) {
      bandZips++;
      bandResidents += people;
    }
    if (any || band) changedZips++;
  }
  return {
    id: t.id,
    slug: t.slug,
    changed: changedZips,
    moved,
    mean: figure(sum / Math.max(1, pairs.compared.length), 2),
    largest,
    largest_component: largestComponent,
    component_in_one_build: inOneBuild,
    band_moved_zips: bandZips,
    band_moved_share: residents > 0 ? (figure(bandResidents / residents, 6) ?? 0) : 0,
  };
}
