/**
 * The orders of an in-memory list (the health scores of a score type, the ranked TVI rows, the facilities):
 * its rows have positions 0 .. n - 1 in the list's own order (ZIP code; facility name then id), and each sort
 * key is a column of values by position. A sort by a key is the positions ordered by its value, rows without a
 * value last in either direction, ties by position: the list's own order is every sort's tie-break, so every
 * page of every sort is deterministic. Each key's order is made once per list, on first use (a sort of at
 * most the 85,000 facilities), and a filtered subset is put in that order by a sort of its numbers alone.
 */

/** How a list is ordered: one of its sort keys, ascending unless `descending`. */
export interface SortOrder {
  key: string;
  descending: boolean;
}

/** The sort columns of a list: each key's value by position; NaN where a row has none. */
export type SortColumns = Readonly<Record<string, Float64Array>>;

interface Ordering {
  /** The positions in this order. */
  order: Uint32Array;
  /** Where each position is in `order`. */
  placeOf: Uint32Array;
}

/** The orders of one list by each of its sort columns, made on first use. */
export class ListOrders {
  private readonly orderings = new Map<string, Ordering>();
  private readonly columns: SortColumns;

  constructor(columns: SortColumns) {
    this.columns = columns;
  }

  /** Every position, in the order of `sort`. */
  order(sort: SortOrder): Uint32Array {
    return this.ordering(sort).order;
  }

  /** Where each position is in the order of `sort`. */
  placeOf(sort: SortOrder): Uint32Array {
    return this.ordering(sort).placeOf;
  }

  /** The given positions (any order, no repeats) in the order of `sort`: their places sorted as numbers, read back. */
  sorted(positions: ArrayLike<number>, sort: SortOrder): Uint32Array {
    const { order, placeOf } = this.ordering(sort);
    const places = new Uint32Array(positions.length);
    for (let i = 0; i < places.length; i++) places[i] = placeOf[positions[i]];
    places.sort();
    for (let i = 0; i < places.length; i++) places[i] = order[places[i]];
    return places;
  }

  private ordering(sort: SortOrder): Ordering {
    const id = `${sort.descending ? '-' : ''}${sort.key}`;
    let ordering = this.orderings.get(id);
    if (ordering === undefined) {
      const values = this.columns[sort.key];
      if (values === undefined) throw new Error(`the list has no sort column ${sort.key}`);
      const order = orderBy(values, sort.descending);
      const placeOf = new Uint32Array(order.length);
      for (let place = 0; place < order.length; place++) placeOf[order[place]] = place;
      ordering = { order, placeOf };
      this.orderings.set(id, ordering);
    }
    return ordering;
  }
}

/** Positions ordered by their value (NaN last either way), ties by position. */
export function orderBy(values: Float64Array, descending: boolean): Uint32Array {
  const order = new Uint32Array(values.length);
  for (let i = 0; i < order.length; i++) order[i] = i;
  const sign = descending ? -1 : 1;
  return order.sort((a, b) => {
    const x = values[a];
    const y = values[b];
    if (x !== y) {
      if (Number.isNaN(x)) return Number.isNaN(y) ? a - b : 1;
      if (Number.isNaN(y)) return -1;
      return sign * (x - y);
    }
    return a - b;
  });
}
