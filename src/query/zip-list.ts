import { ListOrders, type SortColumns, type SortOrder } from './list-order.ts';
import { lowerBound } from './rank-sets.ts';

/** The rows within a distance of a place: positions nearest first (ties by position), with their miles. */
export interface NearPositions {
  positions: Uint32Array;
  miles: Float64Array;
}

/** What a row of a ZIP list must be to be listed; absent fields do not filter. */
export interface ZipListFilter {
  /** Ascending position lists a row must be in (its state's, its city's). */
  places?: readonly Uint32Array[];
  /** Only these rows, with their distances (a `near=` filter). */
  near?: NearPositions;
  /** Inclusive bounds of the list's score. */
  minScore?: number;
  maxScore?: number;
  /** Any other test of a row. */
  also?: (position: number) => boolean;
}

/** A window of a list: how many rows match, and the positions of the window (with their miles under `near`). */
export interface ZipListWindow {
  count: number;
  positions: number[];
  miles?: number[];
}

/** The sort key of the distance from a `near=` place, which only a near filter has. */
export const DISTANCE_KEY = 'distance_miles';

/**
 * One list of ZIP codes as columns, in ZIP order (a score type's records, the ranked TVI rows): the ZIP of
 * each position, the score a range filters on, the positions of each state, and the sort columns. A count
 * and a window of any filter and sort walk the smallest candidate list (a city's, a state's, the rows near a
 * place, or every row in the sort's order) and test the rest in memory, so a request costs at most a pass over
 * the list's rows (about 34,000 national), never a scan of SQLite rows, whatever the page.
 */
export class ZipList {
  readonly zipNumbers: Uint32Array;
  readonly scores: Uint8Array;
  readonly byState: ReadonlyMap<string, Uint32Array>;
  private readonly orders: ListOrders;
  private readonly defaultKey: string;

  /** `defaultKey` is the column whose ascending order is ZIP order (that sort walks positions as they are). */
  constructor(zipNumbers: Uint32Array, scores: Uint8Array, states: readonly string[], columns: SortColumns, defaultKey: string) {
    this.zipNumbers = zipNumbers;
    this.scores = scores;
    this.orders = new ListOrders(columns);
    this.defaultKey = defaultKey;
    const byState = new Map<string, number[]>();
    states.forEach((state, position) => {
      const list = byState.get(state);
      if (list) list.push(position);
      else byState.set(state, [position]);
    });
    this.byState = new Map([...byState].map(([state, list]) => [state, Uint32Array.from(list)]));
  }

  /** The position of a ZIP (by number), or -1 when the list has no row for it. */
  positionOf(zipNumber: number): number {
    const at = lowerBound(this.zipNumbers, zipNumber);
    return at < this.zipNumbers.length && this.zipNumbers[at] === zipNumber ? at : -1;
  }

  /** The ZIP code of a position. */
  zipCode(position: number): string {
    return String(this.zipNumbers[position]).padStart(5, '0');
  }

  /** How many rows match, and the positions of `limit` of them from `offset`, in the order of `sort`. */
  select(filter: ZipListFilter, sort: SortOrder, offset: number, limit: number): ZipListWindow {
    const candidates = this.candidates(filter, sort);
    const { scores } = this;
    const min = filter.minScore ?? 0;
    const max = filter.maxScore ?? 100;
    const places = filter.places ?? [];
    const others = candidates.walked === undefined ? places : places.filter((list) => list !== candidates.walked);
    const positions: number[] = [];
    const miles: number[] | undefined = filter.near && [];
    let count = 0;
    for (let i = 0; i < candidates.order.length; i++) {
      const p = candidates.order[i];
      if (scores[p] < min || scores[p] > max) continue;
      if (others.length > 0 && !others.every((list) => contains(list, p))) continue;
      if (filter.also && !filter.also(p)) continue;
      if (count >= offset && positions.length < limit) {
        positions.push(p);
        miles?.push(candidates.miles![i]);
      }
      count++;
    }
    return miles ? { count, positions, miles } : { count, positions };
  }

  /**
   * The rows to test, already in the order of `sort`: those near the place, else the shortest place list,
   * else every row; `walked` is the place list walked (the others are tested), `miles` the distance of each
   * row of `order` under a near filter.
   */
  private candidates(filter: ZipListFilter, sort: SortOrder): { order: ArrayLike<number>; walked?: Uint32Array; miles?: Float64Array } {
    const { near } = filter;
    if (near !== undefined) {
      if (sort.key === DISTANCE_KEY && !sort.descending) return { order: near.positions, miles: near.miles };
      const indexes = Array.from(near.positions.keys());
      const at = near.positions;
      if (sort.key === DISTANCE_KEY) indexes.sort((a, b) => near.miles[b] - near.miles[a] || at[a] - at[b]);
      else {
        const place = this.orders.placeOf(sort);
        indexes.sort((a, b) => place[at[a]] - place[at[b]]);
      }
      return { order: Uint32Array.from(indexes, (i) => at[i]), miles: Float64Array.from(indexes, (i) => near.miles[i]) };
    }
    if (sort.key === DISTANCE_KEY) throw new Error(`sorting by ${DISTANCE_KEY} needs a near filter`);
    const places = filter.places ?? [];
    const walked = places.reduce<Uint32Array | undefined>(
      (shortest, list) => (shortest !== undefined && shortest.length <= list.length ? shortest : list),
      undefined,
    );
    const inZipOrder = sort.key === this.defaultKey && !sort.descending;
    if (walked === undefined) return { order: this.orders.order(sort) };
    return { order: inZipOrder ? walked : this.orders.sorted(walked, sort), walked };
  }
}

/** True when the ascending `sorted` holds `value`. */
export function contains(sorted: Uint32Array, value: number): boolean {
  const at = lowerBound(sorted, value);
  return at < sorted.length && sorted[at] === value;
}
