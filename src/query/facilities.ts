import type Database from 'better-sqlite3';
import { decodeUint32, FACILITY_INDEX, KEY_SEPARATOR, stateNumber } from '../../core/directory-format.ts';
import { PREFIX_END, searchKey } from '../../core/search-key.ts';
import type { FacilityDetail, FacilitySummary, HospitalRanking } from '../answers/facilities.ts';
import { ListOrders, type SortOrder } from './list-order.ts';

/** Filters of the facilities list; absent fields do not filter. */
export interface FacilityFilter {
  /** A facility type (any case), or `hospital` for every hospital type. */
  type?: string;
  state?: string;
  emergency?: boolean;
  minRating?: number;
  /** Text the facility name contains (any case, accents and punctuation ignored). */
  search?: string;
}

/**
 * The keys the facilities list sorts by, each a field of its summaries: the name (the list's own order, ties
 * by id) and the CMS star rating (unrated last either way), ties by name then id.
 */
export const FACILITY_SORT_KEYS = ['facility_name', 'facility_rating'] as const;

/** The facilities list's own order. */
export const FACILITY_OWN_ORDER: SortOrder = { key: 'facility_name', descending: false };

/** The one facility type that is not a hospital: HRSA health center sites (pipeline/layouts/facilities.ts). */
export const HEALTH_CENTER_TYPE = 'Health Center';
/** The `type` value meaning every hospital type. */
export const HOSPITAL_GROUP = 'hospital';

const SUMMARY_COLUMNS = `id, facility_name, facility_type, city_name, state_name, state_code, latitude, longitude, facility_rating,
  emergency_services, telehealth`;

/**
 * The facilities endpoints. About 85,000 facilities fit in memory as a few typed arrays and their name keys,
 * in list order (name, then id); a list filters them in one pass, which is faster than SQL with a
 * `LIKE '%x%'` and gives the exact count on the way. Loaded on first use.
 */
export class FacilityQueries {
  private loaded: FacilityIndex | undefined;
  private typeNames: string[] | undefined;
  private readonly summary: Database.Statement;
  private readonly detailRow: Database.Statement;
  private readonly rankedRows: Database.Statement;
  private readonly rankings = new Map<string, HospitalRanking[]>();

  private readonly db: Database.Database;

  constructor(db: Database.Database) {
    this.db = db;
    this.summary = db.prepare(`SELECT ${SUMMARY_COLUMNS} FROM facilities WHERE id = ?`);
    this.detailRow = db.prepare(
      `SELECT ${SUMMARY_COLUMNS}, address, phone_number, website, staffed_beds, provider_count FROM facilities WHERE id = ?`,
    );
    this.rankedRows =
      db.prepare(`SELECT id, facility_name, facility_type, city_name, state_name, state_code, facility_rating, emergency_services, telehealth, staffed_beds
      FROM facilities WHERE facility_rating IS NOT NULL AND facility_type <> ?`);
  }

  /** Every facility type of the build, by name (read on first use). */
  get types(): readonly string[] {
    this.typeNames ??= this.db.prepare('SELECT DISTINCT facility_type FROM facilities ORDER BY facility_type').pluck().all() as string[];
    return this.typeNames;
  }

  /** The facility index, loaded on first use. */
  get index(): FacilityIndex {
    this.loaded ??= FacilityIndex.load(this.db);
    return this.loaded;
  }

  /** The count of matching facilities and the summaries of one window, in the order of `sort` (ties by name then id). */
  list(filter: FacilityFilter, offset: number, limit: number, sort = FACILITY_OWN_ORDER): { count: number; results: FacilitySummary[] } {
    const { count, ids } = this.index.search(filter, offset, limit, sort);
    return { count, results: ids.map((id) => summaryOf(this.summary.get(id) as SummaryRow)) };
  }

  /** One facility's detail, or undefined. */
  detail(id: number): FacilityDetail | undefined {
    const row = this.detailRow.get(id) as (SummaryRow & Omit<FacilityDetail, keyof FacilitySummary>) | undefined;
    if (!row) return undefined;
    const { address, phone_number, website, staffed_beds, provider_count } = row;
    return { ...summaryOf(row), address, phone_number, website, staffed_beds, provider_count };
  }

  /** Summaries of some facilities, in the order given. */
  summaries(ids: readonly number[]): FacilitySummary[] {
    return ids.map((id) => summaryOf(this.summary.get(id) as SummaryRow));
  }

  /**
   * Rated hospitals of a state (or all), best first: CMS star rating, then emergency services, then staffed
   * beds (unknown last), then name and id. Rank 1 is the first of the list asked for.
   */
  hospitalRankings(state: string | undefined): HospitalRanking[] {
    const key = state ?? '';
    let ranking = this.rankings.get(key);
    if (!ranking) {
      const rows = (this.rankedRows.all(HEALTH_CENTER_TYPE) as Array<SummaryRow & { facility_rating: number; staffed_beds: number | null }>)
        .filter((row) => state === undefined || row.state_code === state)
        .map((row) => ({ row, name: searchKey(row.facility_name) }));
      rows.sort(
        (a, b) =>
          b.row.facility_rating - a.row.facility_rating ||
          b.row.emergency_services - a.row.emergency_services ||
          (b.row.staffed_beds ?? -1) - (a.row.staffed_beds ?? -1) ||
          (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) ||
          a.row.id - b.row.id,
      );
      ranking = rows.map(({ row }, i) => ({
        id: row.id,
        rank: i + 1,
        facility_name: row.facility_name,
        facility_type: row.facility_type,
        city_name: row.city_name,
        state_name: row.state_name,
        state_code: row.state_code,
        facility_rating: row.facility_rating,
        emergency_services: row.emergency_services === 1,
        telehealth: row.telehealth === 1,
      }));
      this.rankings.set(key, ranking);
    }
    return ranking;
  }
}

interface SummaryRow {
  id: number;
  facility_name: string;
  facility_type: string;
  city_name: string;
  state_name: string;
  state_code: string;
  latitude: number | null;
  longitude: number | null;
  facility_rating: number | null;
  emergency_services: number;
  telehealth: number;
}

function summaryOf(row: SummaryRow): FacilitySummary {
  return {
    id: row.id,
    facility_name: row.facility_name,
    facility_type: row.facility_type,
    city_name: row.city_name,
    state_name: row.state_name,
    state_code: row.state_code,
    latitude: row.latitude,
    longitude: row.longitude,
    facility_rating: row.facility_rating,
    emergency_services: row.emergency_services === 1,
    telehealth: row.telehealth === 1,
  };
}

/** Every facility's filter columns, in list order (name key, then id): the build's `facility_index`. */
export class FacilityIndex {
  /** Name keys in list order: a name prefix is one range of positions. */
  readonly names: string[];
  /** Where each name starts in `text`, every name key in list order separated by newlines. */
  private readonly starts: Uint32Array;

  readonly ids: Uint32Array;
  private readonly text: string;
  private readonly typeIds: Uint32Array;
  private readonly typeKeys: string[];
  private readonly states: Uint32Array;
  private readonly emergency: Uint32Array;
  private readonly ratings: Uint32Array;
  private readonly orders: ListOrders;

  private constructor(
    ids: Uint32Array,
    text: string,
    typeIds: Uint32Array,
    typeKeys: string[],
    states: Uint32Array,
    emergency: Uint32Array,
    ratings: Uint32Array,
  ) {
    this.ids = ids;
    this.text = text;
    this.typeIds = typeIds;
    this.typeKeys = typeKeys;
    this.states = states;
    this.emergency = emergency;
    this.ratings = ratings;
    this.names = text === '' ? [] : text.split(KEY_SEPARATOR);
    this.starts = new Uint32Array(this.names.length);
    for (let i = 1; i < this.names.length; i++) this.starts[i] = this.starts[i - 1] + this.names[i - 1].length + 1;
    // A name's value is the position of its first facility, so facilities of one name tie (and go by id).
    const nameValue = new Float64Array(this.names.length);
    for (let i = 1; i < nameValue.length; i++) nameValue[i] = this.names[i] === this.names[i - 1] ? nameValue[i - 1] : i;
    this.orders = new ListOrders({
      facility_name: nameValue,
      facility_rating: Float64Array.from(ratings, (rating) => (rating === 0 ? NaN : rating)),
    });
  }

  static load(db: Database.Database): FacilityIndex {
    const data = new Map(db.prepare('SELECT name, data FROM facility_index').raw().all() as Array<[string, Buffer]>);
    const part = (name: string) => {
      const bytes = data.get(name);
      if (!bytes) throw new Error(`${db.name} has no facility index (${name}); rebuild it with \`hcas build\``);
      return bytes;
    };
    const numbers = (name: string) => decodeUint32(part(name));
    const typeKeys = part(FACILITY_INDEX.typeKeys).toString('utf8');
    return new FacilityIndex(
      numbers(FACILITY_INDEX.id),
      part(FACILITY_INDEX.nameKeys).toString('utf8'),
      numbers(FACILITY_INDEX.type),
      typeKeys === '' ? [] : typeKeys.split(KEY_SEPARATOR),
      numbers(FACILITY_INDEX.state),
      numbers(FACILITY_INDEX.emergency),
      numbers(FACILITY_INDEX.rating),
    );
  }

  /**
   * The exact count of matching facilities and the ids of one window, in the order of `sort`: the list's own
   * order is walked as it is; another order walks every facility in it, or, under a filter, puts the matches
   * in it (at most the 85,000 facilities, one sort of their numbers).
   */
  search(filter: FacilityFilter, offset: number, limit: number, sort = FACILITY_OWN_ORDER): { count: number; ids: number[] } {
    const types = this.typeSet(filter.type);
    if (types && !types.some(Boolean)) return { count: 0, ids: [] };
    // With a search text, only the names containing it are visited (one indexOf pass over all names).
    const candidates = filter.search === undefined ? undefined : this.containing(searchKey(filter.search));
    const state = filter.state === undefined ? undefined : stateNumber(filter.state);
    const passes = (i: number) =>
      !(types && !types[this.typeIds[i]]) &&
      !(state !== undefined && this.states[i] !== state) &&
      !(filter.emergency !== undefined && (this.emergency[i] === 1) !== filter.emergency) &&
      !(filter.minRating !== undefined && this.ratings[i] < filter.minRating);
    const own = sort.key === FACILITY_OWN_ORDER.key && !sort.descending;
    const unfiltered =
      candidates === undefined &&
      types === undefined &&
      state === undefined &&
      filter.emergency === undefined &&
      filter.minRating === undefined;
    if (!own && unfiltered) {
      const order = this.orders.order(sort);
      return { count: order.length, ids: Array.from(order.subarray(offset, offset + limit), (i) => this.ids[i]) };
    }
    const total = candidates ? candidates.length : this.ids.length;
    const matches: number[] = [];
    const ids: number[] = [];
    let count = 0;
    for (let c = 0; c < total; c++) {
      const i = candidates ? candidates[c] : c;
      if (!passes(i)) continue;
      if (!own) matches.push(i);
      else if (count >= offset && ids.length < limit) ids.push(this.ids[i]);
      count++;
    }
    if (own) return { count, ids };
    return { count, ids: Array.from(this.orders.sorted(matches, sort).subarray(offset, offset + limit), (i) => this.ids[i]) };
  }

  /** Positions (list order) of the names that contain a key. */
  private containing(key: string): number[] {
    const positions: number[] = [];
    if (key === '') return positions;
    const { text, starts } = this;
    let i = 0;
    for (let at = text.indexOf(key); at >= 0; ) {
      while (i + 1 < starts.length && starts[i + 1] <= at) i++;
      positions.push(i);
      if (i + 1 >= starts.length) break;
      at = text.indexOf(key, starts[i + 1]);
    }
    return positions;
  }

  /**
   * Up to `limit` facility ids whose name has a word starting with a search key: names starting with it first
   * (one range of the sorted names), then names with a later word starting with it, each in list order.
   */
  byWordPrefix(key: string, limit: number): number[] {
    if (key === '' || limit <= 0) return [];
    const out: number[] = [];
    const start = lowerBoundText(this.names, key);
    const end = lowerBoundText(this.names, key + PREFIX_END);
    for (let i = start; i < end && out.length < limit; i++) out.push(this.ids[i]);
    const { text, starts } = this;
    const needle = ` ${key}`;
    for (let at = text.indexOf(needle); at >= 0 && out.length < limit; ) {
      const i = upperBound(starts, at) - 1;
      if (i < start || i >= end) out.push(this.ids[i]);
      at = i + 1 < starts.length ? text.indexOf(needle, starts[i + 1]) : -1;
    }
    return out;
  }

  /** Which type ids a `type` value selects: undefined for no filter. */
  private typeSet(type: string | undefined): boolean[] | undefined {
    if (type === undefined) return undefined;
    const key = searchKey(type);
    const healthCenter = searchKey(HEALTH_CENTER_TYPE);
    const group = key === HOSPITAL_GROUP || key === `${HOSPITAL_GROUP}s`;
    return this.typeKeys.map((t) => (group ? t !== healthCenter : namesType(t, key)));
  }
}

/**
 * True when a search key names a facility type (its search key): the type itself, or the type without its last
 * word "hospital" (`psychiatric` and `critical access hospitals` for Psychiatric Hospital and Critical Access
 * Hospital, as HIFLD and CMS name them).
 */
export function namesType(typeKey: string, key: string): boolean {
  return typeKey === key || typeKey === `${key} ${HOSPITAL_GROUP}` || `${typeKey}s` === key;
}

/** The number of values at most `value` in an ascending array. */
function upperBound(sorted: Uint32Array, value: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid] <= value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function lowerBoundText(sorted: readonly string[], value: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid] < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
