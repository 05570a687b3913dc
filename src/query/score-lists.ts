import type Database from 'better-sqlite3';
import { bound } from './database.ts';
import { searchKey } from '../../core/search-key.ts';
import type { SortOrder } from './list-order.ts';
import type { NearPlaces } from './nearby.ts';
import { ZipList, type NearPositions, type ZipListWindow } from './zip-list.ts';
import { COMPONENT_COLUMNS } from '../../core/components.ts';

/** Filters of the health-scores list; absent fields do not filter. Scores are inclusive bounds. */
export interface ScoreFilter {
  scoreTypeId: number;
  state?: string;
  /** Matched on its search key (core/search-key.ts): any case, accents and punctuation. */
  city?: string;
  minScore?: number;
  maxScore?: number;
  /** Fewest residents (ZIPs whose population the ACS suppressed never match a bound). */
  minPopulation?: number;
  /** Only the ZIPs within a distance of a place, with their miles. */
  near?: NearPlaces;
}

/**
 * The keys the health-scores list sorts by: each a column of the record (population: the ZIP's residents),
 * ties by ZIP code. ZIP code is the default; `distance_miles` (from `near=`) is the distance module's.
 */
export const SCORE_SORT_KEYS = ['zip_code', 'healthscore', 'population', ...COMPONENT_COLUMNS] as const;

/** The row's columns as the list index reads them, in SCORE_SORT_KEYS order after the ZIP and state. */
type ScoreRow = [zip: string, state: string, healthscore: number, population: number | null, ...components: Array<number | null>];

/** One score type's list, and the positions of each city once a city filter asked for them. */
interface TypeList {
  list: ZipList;
  population: Float64Array;
  zipNumbers: Uint32Array;
  byCity?: CityPositions;
}

/** The positions of every city's ZIPs as one array: city `c`'s from `start[c]` to `start[c + 1]`, ascending. */
interface CityPositions {
  order: Uint32Array;
  start: Uint32Array;
}

/** Every ZIP's city, as an id per search key (read once, shared by the score types). */
interface Cities {
  idOfKey: Map<string, number>;
  /** The city id of each ZIP, by ZIP number (-1: not in `zips`). */
  idOfZip: Int32Array;
}

/**
 * The index of the health-scores list: for each score type, every scored ZIP in ZIP order with its score,
 * residents and components (zip-list.ts), and the positions of the ZIPs of each state and each city (by search
 * key). A count or a page of any filter and sort reads the smallest of those position lists (a city: a few
 * dozen ZIPs; a state: at most a few thousand; the ZIPs near a place; no place filter: every ZIP of the type
 * in the sort's order) and tests the rest in memory: bounded by the ZIPs of one score type (about 34,000
 * national), never a scan of SQLite rows, whatever the page: a deep page costs what the first does, where
 * SQLite's sort costs each page a national sort (bench/directory.ts, "health-scores/ and tvi/ sorted"). Read
 * from SQLite the first time a score type is listed (about 1 MB per type); the cities' keys (2 MB, once) and
 * each sort's order are made on their first use.
 */
export class ScoreListIndex {
  private readonly types = new Map<number, TypeList>();
  private readonly rows: Database.Statement;
  private readonly zipRows: Database.Statement;
  private cities: Cities | undefined;

  constructor(db: Database.Database) {
    this.rows = db
      .prepare(
        `SELECT h.zip_code, h.state, h.healthscore, z.population, ${COMPONENT_COLUMNS.map((c) => `h.${c}`).join(', ')}
        FROM health_scores h LEFT JOIN zips z ON z.zip_code = h.zip_code WHERE h.score_type_id = ${bound('INTEGER')} ORDER BY h.zip_code`,
      )
      .raw();
    this.zipRows = db.prepare('SELECT zip_code, city FROM zips').raw();
  }

  /** How many records match, and the ZIP codes of one window of them in the order of `sort` (with their miles under `near`). */
  select(filter: ScoreFilter, sort: SortOrder, offset: number, limit: number): { count: number; zips: string[]; miles?: number[] } {
    const type = this.typeList(filter.scoreTypeId);
    const { list } = type;
    const places: Uint32Array[] = [];
    if (filter.state !== undefined) places.push(list.byState.get(filter.state) ?? EMPTY);
    if (filter.city !== undefined) places.push(this.inCity(type, searchKey(filter.city)));
    const { minPopulation } = filter;
    const window: ZipListWindow = list.select(
      {
        places,
        near: filter.near && nearPositions(list, filter.near),
        minScore: filter.minScore,
        maxScore: filter.maxScore,
        also: minPopulation === undefined ? undefined : (p) => type.population[p] >= minPopulation,
      },
      sort,
      offset,
      limit,
    );
    return { count: window.count, zips: window.positions.map((p) => list.zipCode(p)), ...(window.miles && { miles: window.miles }) };
  }

  /** How many records match. */
  count(filter: ScoreFilter): number {
    return this.select(filter, { key: 'zip_code', descending: false }, 0, 0).count;
  }

  /** The ZIP codes of one page of matching records, in ZIP order. */
  page(filter: ScoreFilter, limit: number, offset: number): string[] {
    return this.select(filter, { key: 'zip_code', descending: false }, offset, limit).zips;
  }

  private typeList(scoreTypeId: number): TypeList {
    let type = this.types.get(scoreTypeId);
    if (type === undefined) {
      type = this.read(scoreTypeId);
      this.types.set(scoreTypeId, type);
    }
    return type;
  }

  /**
   * The positions of a city's ZIPs (a view of the type's city positions), ascending. The cities are read and
   * the positions made on the first city filter: a one-shot `hcas scores --state NY` never pays for them.
   */
  private inCity(type: TypeList, key: string): Uint32Array {
    const id = this.citiesOfZips().idOfKey.get(key);
    if (id === undefined) return EMPTY;
    type.byCity ??= this.cityPositions(type.zipNumbers);
    return type.byCity.order.subarray(type.byCity.start[id], type.byCity.start[id + 1]);
  }

  /** A counting sort by city: the size of each city, then each position in its place (ascending within a city). */
  private cityPositions(zipNumbers: Uint32Array): CityPositions {
    const { idOfKey, idOfZip } = this.citiesOfZips();
    const start = new Uint32Array(idOfKey.size + 1);
    for (const number of zipNumbers) if (idOfZip[number] >= 0) start[idOfZip[number] + 1]++;
    for (let c = 0; c < idOfKey.size; c++) start[c + 1] += start[c];
    const order = new Uint32Array(start[idOfKey.size]);
    const next = start.slice(0, idOfKey.size);
    for (let p = 0; p < zipNumbers.length; p++) {
      const city = idOfZip[zipNumbers[p]];
      if (city >= 0) order[next[city]++] = p;
    }
    return { order, start };
  }

  private read(scoreTypeId: number): TypeList {
    const rows = this.rows.all(scoreTypeId) as ScoreRow[];
    const zipNumbers = new Uint32Array(rows.length);
    const scores = new Uint8Array(rows.length);
    const states = new Array<string>(rows.length);
    const columns = Object.fromEntries(SCORE_SORT_KEYS.map((key) => [key, new Float64Array(rows.length)]));
    rows.forEach((row, position) => {
      const number = Number(row[0]);
      zipNumbers[position] = number;
      states[position] = row[1];
      scores[position] = row[2];
      columns.zip_code[position] = number;
      // The columns after the ZIP code, in the row's order: healthscore, population, the four components.
      for (let k = 1; k < SCORE_SORT_KEYS.length; k++) columns[SCORE_SORT_KEYS[k]][position] = (row[k + 1] as number | null) ?? NaN;
    });
    const list = new ZipList(zipNumbers, scores, states, columns, 'zip_code');
    return { list, population: columns.population, zipNumbers };
  }

  private citiesOfZips(): Cities {
    if (this.cities === undefined) {
      const idOfKey = new Map<string, number>();
      const keyOf = new Map<string, string>();
      const idOfZip = new Int32Array(100_000).fill(-1);
      for (const [zip, city] of this.zipRows.all() as Array<[string, string]>) {
        let key = keyOf.get(city);
        if (key === undefined) {
          key = searchKey(city);
          keyOf.set(city, key);
        }
        let id = idOfKey.get(key);
        if (id === undefined) {
          id = idOfKey.size;
          idOfKey.set(key, id);
        }
        idOfZip[Number(zip)] = id;
      }
      this.cities = { idOfKey, idOfZip };
    }
    return this.cities;
  }
}

/** The places near a point as positions of a list: those the list has, in the same order. */
export function nearPositions(list: ZipList, near: NearPlaces): NearPositions {
  const positions: number[] = [];
  const miles: number[] = [];
  for (let i = 0; i < near.zipNumbers.length; i++) {
    const p = list.positionOf(near.zipNumbers[i]);
    if (p >= 0) {
      positions.push(p);
      miles.push(near.miles[i]);
    }
  }
  return { positions: Uint32Array.from(positions), miles: Float64Array.from(miles) };
}

const EMPTY = new Uint32Array(0);
