import { haversineMiles } from '../../core/distance.ts';
import type { FacilityChange, FactChange, RosterDiff } from './report.ts';

/** One facility of a build as the diff sees it: identity, place and what the scores read of it. */
export interface FacilityRecord {
  id: number;
  key: string;
  name: string;
  type: string;
  latitude: number;
  longitude: number;
  /** The scores count it: a general or emergency hospital, or a health centre site, with a location. */
  scored: boolean;
  hospital: boolean;
  /** The compared fields, in `FIELDS` order (an array: 85,000 facilities a build, each with 13 fields). */
  values: Array<string | number | null>;
}

/** A facility added, removed or changed, with the score-relevant part of the change. */
export interface RosterChange {
  change: FacilityChange['change'];
  old: FacilityRecord | null;
  new: FacilityRecord | null;
  /** The fields that differ, one bit each in `FIELDS` order and `LOCATION` for the place (`fieldsOf` spells them out). */
  mask: number;
  /** Added or removed while counted by the scores, or changed in what the scores read (place, beds, ED, rating, type). */
  scoreRelevant: boolean;
}

/** Fields compared; the first group is what the scores read. `provider_count` follows the provider files and is counted apart. */
const SCORED_FIELDS = ['facility_type', 'staffed_beds', 'emergency_services', 'facility_rating', 'location_precision'];
const OTHER_FIELDS = ['facility_name', 'address', 'city_name', 'state_code', 'zip_code', 'ccn', 'sources'];
const FIELDS = [...SCORED_FIELDS, ...OTHER_FIELDS, 'provider_count'];
/** The fields a change is made of: all but `provider_count`, the last. */
const COMPARED = FIELDS.length - 1;
/** The bit of a changed place (in the `provider_count` slot, which is never part of a change). */
const LOCATION = 1 << COMPARED;
const SCORED_MASK = SCORED_FIELDS.reduce((mask, f) => mask | (1 << FIELDS.indexOf(f)), LOCATION);
const at = (field: string) => FIELDS.indexOf(field);
const [ADDRESS, ZIP_CODE, CCN, PRECISION, PROVIDER_COUNT, TYPE, NAME, CITY, STATE] = [
  'address',
  'zip_code',
  'ccn',
  'location_precision',
  'provider_count',
  'facility_type',
  'facility_name',
  'city_name',
  'state_code',
].map(at);

/** The columns of `facilities` a record is made of. */
export const FACILITY_COLUMNS = ['id', 'latitude', 'longitude', ...FIELDS];
/** A move shorter than this (miles) is a rounding of the same point. */
const MOVE_MILES = 0.01;

const normal = (text: unknown) =>
  String(text ?? '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '');

/**
 * The facilities of a build with keys that survive a rebuild: `ccn:` and the CMS certification number where
 * there is one, else `site:` and the name (case and punctuation ignored) and ZIP code, numbered when several
 * share them. Row ids are not used: they are positions, renumbered when a facility is added or removed.
 * Which facilities the scores count follows the build's own `meta.scoring` hospital types.
 */
export function facilityRecords(table: { columns: string[]; rows: Iterable<unknown[]> }, scoringMeta: unknown): FacilityRecord[] {
  const column = new Map(table.columns.map((name, i) => [name, i]));
  const fields = FIELDS.map((f) => column.get(f) ?? -1);
  const [id, latitude, longitude] = ['id', 'latitude', 'longitude'].map((c) => column.get(c) ?? -1);
  const scoring = (scoringMeta ?? {}) as Record<string, unknown>;
  const pattern = (list: unknown) => (Array.isArray(list) && list.length ? new RegExp(list.join('|'), 'i') : null);
  const general = pattern(scoring.GENERAL_HOSPITAL_TYPES);
  const emergencyOnly = pattern(scoring.EMERGENCY_ONLY_TYPES);
  const groups = new Map<string, FacilityRecord[]>();
  // A few dozen types among 85,000 facilities: each is classified once.
  const kinds = new Map<string, { hospital: boolean; healthCenter: boolean }>();
  const kindOf = (type: string) => {
    let kind = kinds.get(type);
    if (!kind)
      kinds.set(
        type,
        (kind = { hospital: Boolean(general?.test(type) || emergencyOnly?.test(type)), healthCenter: /health cent(er|re)/i.test(type) }),
      );
    return kind;
  };
  // The same few types, states, cities and source lists recur: one string each (SQLite hands out a new one per row).
  const strings = new Map<string, string>();
  const intern = (value: unknown) => {
    if (typeof value !== 'string') return (value ?? null) as number | null;
    let one = strings.get(value);
    if (one === undefined) strings.set(value, (one = value));
    return one;
  };
  for (const row of table.rows) {
    const values = fields.map((c, f) =>
      c < 0 ? null : f === NAME || f === ADDRESS ? ((row[c] ?? null) as string | null) : intern(row[c]),
    );
    const [type, name] = [String(values[TYPE] ?? ''), String(values[NAME] ?? '')];
    const { hospital, healthCenter } = kindOf(type);
    const base = values[CCN] ? `ccn:${values[CCN]}` : `site:${normal(name)}|${values[ZIP_CODE] ?? ''}`;
    const lat = typeof row[latitude] === 'number' ? (row[latitude] as number) : Number.NaN;
    const record: FacilityRecord = {
      id: row[id] as number,
      key: base,
      name,
      type,
      latitude: lat,
      longitude: typeof row[longitude] === 'number' ? (row[longitude] as number) : Number.NaN,
      scored: values[PRECISION] !== 'none' && !Number.isNaN(lat) && (hospital || healthCenter),
      hospital,
      values,
    };
    (groups.get(base) ?? groups.set(base, []).get(base)!).push(record);
  }
  for (const group of groups.values()) {
    if (group.length < 2) continue;
    group.sort(
      (a, b) => a.latitude - b.latitude || a.longitude - b.longitude || String(a.values[ADDRESS]).localeCompare(String(b.values[ADDRESS])),
    );
    group.forEach((record, k) => k > 0 && (record.key = `${record.key}#${k}`));
  }
  return [...groups.values()].flat();
}

/** The roster's own diff, matched by key; an unmatched pair with the same name and ZIP code (one lost its CCN) is one facility changed. */
export function compareRoster(old: FacilityRecord[], current: FacilityRecord[]): { changes: RosterChange[]; providerCountOnly: number } {
  const before = new Map(old.map((f) => [f.key, f]));
  const after = new Map(current.map((f) => [f.key, f]));
  const pairs: Array<[FacilityRecord | null, FacilityRecord | null]> = [];
  for (const [key, f] of before) if (after.has(key)) pairs.push([f, after.get(key)!]);
  const site = (f: FacilityRecord) => `${normal(f.name)}|${f.values[ZIP_CODE] ?? ''}`;
  const addedBySite = new Map<string, FacilityRecord>();
  for (const [key, f] of after) if (!before.has(key)) addedBySite.set(site(f), f);
  for (const [key, f] of before) {
    if (after.has(key)) continue;
    const partner = addedBySite.get(site(f));
    if (partner) addedBySite.delete(site(f));
    pairs.push([f, partner ?? null]);
  }
  for (const f of addedBySite.values()) pairs.push([null, f]);

  const changes: RosterChange[] = [];
  let providerCountOnly = 0;
  for (const [a, b] of pairs) {
    if (!a || !b) {
      changes.push({ change: a ? 'removed' : 'added', old: a, new: b, mask: 0, scoreRelevant: (a ?? b)!.scored });
      continue;
    }
    let mask = 0;
    for (let f = 0; f < COMPARED; f++) if (a.values[f] !== b.values[f]) mask |= 1 << f;
    const samePoint = a.latitude === b.latitude && a.longitude === b.longitude;
    if (
      !samePoint &&
      (haversineMiles(a.longitude, a.latitude, b.longitude, b.latitude) >= MOVE_MILES ||
        Number.isNaN(a.latitude) !== Number.isNaN(b.latitude))
    )
      mask |= LOCATION;
    if (!mask) {
      if (a.values[PROVIDER_COUNT] !== b.values[PROVIDER_COUNT]) providerCountOnly++;
      continue;
    }
    changes.push({ change: 'changed', old: a, new: b, mask, scoreRelevant: (mask & SCORED_MASK) !== 0 && (a.scored || b.scored) });
  }
  return { changes, providerCountOnly };
}

/** The fields of a change, old and new: the bits of its mask spelled out (made only for what is shown). */
export function fieldsOf(change: RosterChange): FactChange[] {
  const [a, b] = [change.old, change.new];
  if (!a || !b) return [];
  const out: FactChange[] = [];
  for (let f = 0; f < COMPARED; f++) if (change.mask & (1 << f)) out.push({ fact: FIELDS[f], old: a.values[f], new: b.values[f] });
  if (change.mask & LOCATION) out.push({ fact: 'location', old: point(a), new: point(b) });
  return out;
}

const point = (f: FacilityRecord) => (Number.isNaN(f.latitude) ? null : `${f.latitude.toFixed(5)}, ${f.longitude.toFixed(5)}`);

/** The roster part of the report: counts, and the changes listed (added, removed and scored changes first) up to `limit`. */
export function rosterDiff(changes: RosterChange[], providerCountOnly: number, limit: number): RosterDiff {
  const byField: Record<string, number> = {};
  for (const c of changes)
    for (let f = 0; f <= COMPARED; f++) {
      if (!(c.mask & (1 << f))) continue;
      const name = f === COMPARED ? 'location' : FIELDS[f];
      byField[name] = (byField[name] ?? 0) + 1;
    }
  const order = { removed: 0, added: 1, changed: 2 };
  // What the scores read first; a facility that only followed its ZIP's point after the other changes.
  const rank = (c: RosterChange) => (movedWithItsZip(c) ? 1 : c.scoreRelevant ? 0 : 2);
  const sorted = [...changes].sort(
    (x, y) => rank(x) - rank(y) || order[x.change] - order[y.change] || (x.old ?? x.new)!.key.localeCompare((y.old ?? y.new)!.key),
  );
  return {
    added: changes.filter((c) => c.change === 'added').length,
    removed: changes.filter((c) => c.change === 'removed').length,
    changed: changes.filter((c) => c.change === 'changed').length,
    by_field: byField,
    provider_count_only: providerCountOnly,
    moved_with_zip_point: changes.filter(movedWithItsZip).length,
    list: sorted.slice(0, limit).map((c) => {
      const f = (c.new ?? c.old)!;
      return {
        change: c.change,
        key: f.key,
        name: f.name,
        type: f.type,
        place: placeOf(f),
        scored: c.old?.scored || c.new?.scored || false,
        with_zip_point: movedWithItsZip(c),
        fields: fieldsOf(c),
      };
    }),
    listed_of: changes.length,
  };
}

/** `City, ST` of a facility (either alone when the other is missing). */
export function placeOf(f: FacilityRecord): string {
  const [city, state] = [f.values[CITY], f.values[STATE]];
  return city && state ? `${city}, ${state}` : String(city ?? state ?? '');
}

/** How a facility is named in a cause: `Name, City, ST (CCN 010001)`. */
export function facilityLabel(f: FacilityRecord): string {
  const place = placeOf(f);
  return `${f.name}${place ? `, ${place}` : ''}${f.values[CCN] ? ` (CCN ${f.values[CCN]})` : ''}`;
}

/** A facility placed at its ZIP's point (no coordinates of its own) that moved only because that point moved. */
export function movedWithItsZip(change: RosterChange): boolean {
  return (
    change.change === 'changed' &&
    change.mask === LOCATION &&
    change.old?.values[PRECISION] === 'zip' &&
    change.new?.values[PRECISION] === 'zip'
  );
}
