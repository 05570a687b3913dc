import { haversineMiles } from '../../core/distance.ts';
import type { FacilityChange, FactChange, RosterDiff } from './report.ts';

/** One facility of a build as the diff sees it: identity, place and what the scores read of it. */
export interface FacilityRecord {
  id: number;
  key: string;
  name: string;
  type: string;
  place: string;
  latitude: number;
  longitude: number;
  /** The scores count it: a general or emergency hospital, or a health centre site, with a location. */
  scored: boolean;
  hospital: boolean;
  values: Record<string, string | number | null>;
}

/** A facility added, removed or changed, with the score-relevant part of the change. */
export interface RosterChange {
  change: FacilityChange['change'];
  old: FacilityRecord | null;
  new: FacilityRecord | null;
  fields: FactChange[];
  /** Added or removed while counted by the scores, or changed in what the scores read (place, beds, ED, rating, type). */
  scoreRelevant: boolean;
}

/** Fields compared; the first group is what the scores read. `provider_count` follows the provider files and is counted apart. */
const SCORED_FIELDS = ['facility_type', 'staffed_beds', 'emergency_services', 'facility_rating', 'location_precision'];
const OTHER_FIELDS = ['facility_name', 'address', 'city_name', 'state_code', 'zip_code', 'ccn', 'sources'];
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
export function facilityRecords(columns: Map<string, unknown[]>, scoringMeta: unknown): FacilityRecord[] {
  const get = (column: string, row: number) => (columns.get(column)?.[row] ?? null) as string | number | null;
  const scoring = (scoringMeta ?? {}) as Record<string, unknown>;
  const pattern = (list: unknown) => (Array.isArray(list) && list.length ? new RegExp(list.join('|'), 'i') : null);
  const general = pattern(scoring.GENERAL_HOSPITAL_TYPES);
  const emergencyOnly = pattern(scoring.EMERGENCY_ONLY_TYPES);
  const ids = (columns.get('id') ?? []) as number[];
  const groups = new Map<string, FacilityRecord[]>();
  for (let row = 0; row < ids.length; row++) {
    const type = String(get('facility_type', row) ?? '');
    const hospital = Boolean(general?.test(type) || emergencyOnly?.test(type));
    const ccn = get('ccn', row);
    const base = ccn ? `ccn:${ccn}` : `site:${normal(get('facility_name', row))}|${get('zip_code', row) ?? ''}`;
    const located = get('location_precision', row) !== 'none' && typeof get('latitude', row) === 'number';
    const record: FacilityRecord = {
      id: ids[row],
      key: base,
      name: String(get('facility_name', row) ?? ''),
      type,
      place: [get('city_name', row), get('state_code', row)].filter(Boolean).join(', '),
      latitude: Number(get('latitude', row) ?? Number.NaN),
      longitude: Number(get('longitude', row) ?? Number.NaN),
      scored: located && (hospital || /health cent(er|re)/i.test(type)),
      hospital,
      values: Object.fromEntries([...SCORED_FIELDS, ...OTHER_FIELDS, 'provider_count'].map((f) => [f, get(f, row)])),
    };
    (groups.get(base) ?? groups.set(base, []).get(base)!).push(record);
  }
  for (const group of groups.values()) {
    if (group.length < 2) continue;
    group.sort(
      (a, b) => a.latitude - b.latitude || a.longitude - b.longitude || String(a.values.address).localeCompare(String(b.values.address)),
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
  const site = (f: FacilityRecord) => `${normal(f.name)}|${f.values.zip_code ?? ''}`;
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
      changes.push({ change: a ? 'removed' : 'added', old: a, new: b, fields: [], scoreRelevant: (a ?? b)!.scored });
      continue;
    }
    const fields = [...SCORED_FIELDS, ...OTHER_FIELDS]
      .filter((f) => a.values[f] !== b.values[f])
      .map((f) => ({ fact: f, old: a.values[f], new: b.values[f] }));
    const moved = haversineMiles(a.longitude, a.latitude, b.longitude, b.latitude);
    if (moved >= MOVE_MILES || Number.isNaN(a.latitude) !== Number.isNaN(b.latitude))
      fields.push({ fact: 'location', old: point(a), new: point(b) });
    if (!fields.length) {
      if (a.values.provider_count !== b.values.provider_count) providerCountOnly++;
      continue;
    }
    const relevant = fields.some((f) => SCORED_FIELDS.includes(f.fact) || f.fact === 'location') && (a.scored || b.scored);
    changes.push({ change: 'changed', old: a, new: b, fields, scoreRelevant: relevant });
  }
  return { changes, providerCountOnly };
}

const point = (f: FacilityRecord) => (Number.isNaN(f.latitude) ? null : `${f.latitude.toFixed(5)}, ${f.longitude.toFixed(5)}`);

/** The roster part of the report: counts, and the changes listed (added, removed and scored changes first) up to `limit`. */
export function rosterDiff(changes: RosterChange[], providerCountOnly: number, limit: number): RosterDiff {
  const byField: Record<string, number> = {};
  for (const c of changes) for (const f of c.fields) byField[f.fact] = (byField[f.fact] ?? 0) + 1;
  const order = { removed: 0, added: 1, changed: 2 };
  const sorted = [...changes].sort(
    (x, y) =>
      Number(y.scoreRelevant) - Number(x.scoreRelevant) ||
      order[x.change] - order[y.change] ||
      (x.old ?? x.new)!.key.localeCompare((y.old ?? y.new)!.key),
  );
  return {
    added: changes.filter((c) => c.change === 'added').length,
    removed: changes.filter((c) => c.change === 'removed').length,
    changed: changes.filter((c) => c.change === 'changed').length,
    by_field: byField,
    provider_count_only: providerCountOnly,
    list: sorted.slice(0, limit).map((c) => {
      const f = (c.new ?? c.old)!;
      return {
        change: c.change,
        key: f.key,
        name: f.name,
        type: f.type,
        place: f.place,
        scored: c.old?.scored || c.new?.scored || false,
        fields: c.fields,
      };
    }),
    listed_of: changes.length,
  };
}

/** How a facility is named in a cause: `Name, City, ST (CCN 010001)`. */
export function facilityLabel(f: FacilityRecord): string {
  return `${f.name}${f.place ? `, ${f.place}` : ''}${f.values.ccn ? ` (CCN ${f.values.ccn})` : ''}`;
}
