import type Database from 'better-sqlite3';
import { searchKey } from '../../core/search-key.ts';
import { lowerBound } from './rank-sets.ts';

/** Filters of the health-scores list; absent fields do not filter. Scores are inclusive bounds. */
export interface ScoreFilter {
  scoreTypeId: number;
  state?: string;
  /** Matched on its search key (core/search-key.ts): any case, accents and punctuation. */
  city?: string;
  minScore?: number;
  maxScore?: number;
}

/**
 * One score type's records in ZIP order, as columns, with the positions of each state, and of each city as
 * one array: the positions grouped by city id (`cityOrder`), city `c`'s from `cityStart[c]` to
 * `cityStart[c + 1]` (a typed array per city would cost an object each, for some 25,000 cities per type).
 */
interface TypeColumns {
  zipNumbers: Int32Array;
  scores: Uint8Array;
  byState: Map<string, Uint32Array>;
  cityOrder: Uint32Array;
  cityStart: Uint32Array;
}

/** Every ZIP's city, as an id per search key (read once, shared by the score types). */
interface Cities {
  idOfKey: Map<string, number>;
  /** The city id of each ZIP, by ZIP number (-1: not in `zips`). */
  idOfZip: Int32Array;
}

/**
 * The index of the health-scores list: for each score type, every scored ZIP in ZIP order with its score,
 * and the positions of the ZIPs of each state and each city (by search key). A count or a page of any
 * filter reads the smallest of those position lists (a city: a few dozen ZIPs; a state: at most a few
 * thousand; no place filter: every ZIP of the type) and tests the score in memory: bounded by the ZIPs of
 * one score type (about 34,000 national: under a millisecond), never a scan of SQLite rows, whatever the
 * page. Read from SQLite the first time a score type is listed (40 to 140 ms national on a busy 2-core machine,
 * the cities' keys included; about 0.5 MB per type, and 2 MB once for the cities). Measured: 1,000 national pages of 100 deep in a score range
 * in 90 ms, where SQLite's sort took 45-115 ms for each.
 */
export class ScoreListIndex {
  private readonly types = new Map<number, TypeColumns>();
  private readonly rows: Database.Statement;
  private readonly zipRows: Database.Statement;
  private cities: Cities | undefined;

  constructor(db: Database.Database) {
    this.rows = db.prepare('SELECT zip_code, state, healthscore FROM health_scores WHERE score_type_id = ? ORDER BY zip_code').raw();
    this.zipRows = db.prepare('SELECT zip_code, city FROM zips').raw();
  }

  /** How many records match. */
  count(filter: ScoreFilter): number {
    let n = 0;
    this.visit(filter, () => {
      n++;
      return true;
    });
    return n;
  }

  /** The ZIP codes of one page of matching records, in ZIP order. */
  page(filter: ScoreFilter, limit: number, offset: number): string[] {
    const zips: string[] = [];
    if (limit <= 0) return zips;
    const { zipNumbers } = this.columns(filter.scoreTypeId);
    let seen = 0;
    this.visit(filter, (position) => {
      if (seen++ < offset) return true;
      zips.push(String(zipNumbers[position]).padStart(5, '0'));
      return zips.length < limit;
    });
    return zips;
  }

  /** Calls `each` with the position of every match, in ZIP order, until it returns false. */
  private visit(filter: ScoreFilter, each: (position: number) => boolean): void {
    const columns = this.columns(filter.scoreTypeId);
    const { scores } = columns;
    const min = filter.minScore ?? 0;
    const max = filter.maxScore ?? 100;
    const inState = filter.state === undefined ? undefined : (columns.byState.get(filter.state) ?? EMPTY);
    const inCity = filter.city === undefined ? undefined : this.inCity(columns, searchKey(filter.city));
    if (inState === undefined && inCity === undefined) {
      for (let p = 0; p < scores.length; p++) if (scores[p] >= min && scores[p] <= max && !each(p)) return;
      return;
    }
    // The shorter list is walked; the other place filter is tested by a search in its (sorted) list.
    const [walk, other] =
      inCity === undefined || (inState !== undefined && inState.length < inCity.length) ? [inState!, inCity] : [inCity, inState];
    for (let i = 0; i < walk.length; i++) {
      const p = walk[i];
      if (scores[p] < min || scores[p] > max) continue;
      if (other !== undefined && !contains(other, p)) continue;
      if (!each(p)) return;
    }
  }

  private columns(scoreTypeId: number): TypeColumns {
    let columns = this.types.get(scoreTypeId);
    if (columns === undefined) {
      columns = this.read(scoreTypeId);
      this.types.set(scoreTypeId, columns);
    }
    return columns;
  }

  /** The positions of a city's ZIPs (a view of `cityOrder`), ascending. */
  private inCity(columns: TypeColumns, key: string): Uint32Array {
    const id = this.citiesOfZips().idOfKey.get(key);
    return id === undefined ? EMPTY : columns.cityOrder.subarray(columns.cityStart[id], columns.cityStart[id + 1]);
  }

  private read(scoreTypeId: number): TypeColumns {
    const { idOfKey, idOfZip } = this.citiesOfZips();
    const rows = this.rows.all(scoreTypeId) as Array<[string, string, number]>;
    const zipNumbers = new Int32Array(rows.length);
    const scores = new Uint8Array(rows.length);
    const cityOf = new Int32Array(rows.length);
    const states = new Map<string, number[]>();
    // Counting sort by city: the size of each city, then each position in its place (ascending within a city).
    const cityStart = new Uint32Array(idOfKey.size + 1);
    rows.forEach(([zip, state, score], position) => {
      const number = Number(zip);
      zipNumbers[position] = number;
      scores[position] = score;
      cityOf[position] = idOfZip[number];
      if (cityOf[position] >= 0) cityStart[cityOf[position] + 1]++;
      const list = states.get(state);
      if (list) list.push(position);
      else states.set(state, [position]);
    });
    for (let c = 0; c < idOfKey.size; c++) cityStart[c + 1] += cityStart[c];
    const cityOrder = new Uint32Array(cityStart[idOfKey.size]);
    const next = cityStart.slice(0, idOfKey.size);
    for (let p = 0; p < rows.length; p++) if (cityOf[p] >= 0) cityOrder[next[cityOf[p]]++] = p;
    const byState = new Map([...states].map(([state, list]) => [state, Uint32Array.from(list)]));
    return { zipNumbers, scores, byState, cityOrder, cityStart };
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

const EMPTY = new Uint32Array(0);

/** True when the ascending `sorted` holds `value`. */
function contains(sorted: Uint32Array, value: number): boolean {
  const at = lowerBound(sorted, value);
  return at < sorted.length && sorted[at] === value;
}
