import { round } from '../../core/numbers.ts';
import { haversineMiles } from '../../core/distance.ts';
import { type FacilityRecord, placeOf } from './facilities.ts';
import type { Pairs } from './pairs.ts';
import type { FactChange } from './report.ts';
import { ACCESS_COLUMNS, censusValue, MOBILITY_MEASURES } from './snapshot.ts';

/** A fact's value as the report shows it: numbers to two decimals, text as it is, nothing as null. */
const shown = (x: unknown) => (typeof x === 'number' ? round(x, 2) : x === undefined ? null : (x as string | null));

/**
 * The input facts of one ZIP that differ between the builds, in the order a reader checks them: residents and
 * their point, social need, then what is within reach (`zip_access`: the nearest hospital by name, minutes,
 * beds, ratings, clinicians), then any other column both builds have.
 */
export function zipFacts(
  pairs: Pairs,
  p: number,
  nearestHospital: (side: 'old' | 'new', p: number) => FacilityRecord | null,
  needMeasures: readonly string[],
  accessExtras: readonly string[],
): FactChange[] {
  const [i, j] = [pairs.oldAt[p], pairs.newAt[p]];
  const [a, b] = [pairs.old, pairs.current];
  const facts: FactChange[] = [];
  const add = (fact: string, x: unknown, y: unknown) => {
    const [old, now] = [shown(x), shown(y)];
    if (old !== now && !(Number.isNaN(old) && Number.isNaN(now))) facts.push({ fact, old: nanToNull(old), new: nanToNull(now) });
  };
  add('residents', a.zips.population[i], b.zips.population[j]);
  add('small_population', a.zips.smallPopulation[i], b.zips.smallPopulation[j]);
  const moved = haversineMiles(a.zips.longitude[i], a.zips.latitude[i], b.zips.longitude[j], b.zips.latitude[j]);
  if (moved >= 0.01) facts.push({ fact: 'residents_point_moved_miles', old: null, new: round(moved, 2) });
  for (const [column, values] of b.zips.extra) add(`zips.${column}`, a.zips.extra.get(column)?.[i], values[j]);
  for (const measure of [...needMeasures, ...MOBILITY_MEASURES])
    add(measure, censusValue(a, measure, i).value, censusValue(b, measure, j).value);
  add('road_times', a.zips.roadTimes[i], b.zips.roadTimes[j]);
  if (a.access && b.access) {
    const [before, after] = [nearestHospital('old', p), nearestHospital('new', p)];
    const miles = [a.access.get('nearest_hospital_miles')?.[i], b.access.get('nearest_hospital_miles')?.[j]];
    const named = (f: FacilityRecord | null, m: unknown) => (f ? `${f.name}${placeOf(f) ? `, ${placeOf(f)}` : ''} (${m ?? '?'} mi)` : null);
    if (before?.key !== after?.key || miles[0] !== miles[1]) add('nearest_hospital', named(before, miles[0]), named(after, miles[1]));
    for (const column of [...ACCESS_COLUMNS.filter((c) => !c.startsWith('nearest_hospital')), ...accessExtras])
      add(column, a.access.get(column)?.[i], b.access.get(column)?.[j]);
  }
  return facts;
}

const nanToNull = (x: string | number | null) => (typeof x === 'number' && Number.isNaN(x) ? null : x);

/** The facility each build names as a ZIP's nearest hospital (`zip_access.nearest_hospital_id`), by row id. */
export function nearestHospitalOf(pairs: Pairs, old: FacilityRecord[], current: FacilityRecord[]) {
  // Ids are small whole numbers (1..n): an array by id is a tenth of a Map's size for 85,000 facilities.
  const byId = [old, current].map((records) => {
    const list: FacilityRecord[] = [];
    for (const f of records) list[f.id] = f;
    return list;
  });
  return (side: 'old' | 'new', p: number): FacilityRecord | null => {
    const [snapshot, at, ids] = side === 'old' ? [pairs.old, pairs.oldAt[p], byId[0]] : [pairs.current, pairs.newAt[p], byId[1]];
    const id = snapshot.access?.get('nearest_hospital_id')?.[at];
    return typeof id === 'number' ? (ids[id] ?? null) : null;
  };
}
