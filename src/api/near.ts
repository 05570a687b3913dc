import { invalidParameter, notFound } from '../http/errors.ts';
import type { SortOrder } from '../query/list-order.ts';
import type { Queries } from '../query/index.ts';
import type { NearPlaces } from '../query/nearby.ts';
import { DISTANCE_KEY } from '../query/zip-list.ts';
import { DEFAULT_RADIUS_MILES, radiusMiles, zipFilter } from './params.ts';

/**
 * `near` and `radius` of the lists (health-scores/, providers/): only what lies within `radius` miles of a ZIP
 * code's point (where its residents live), ordered nearest first unless `sort` says otherwise, each record with
 * its `distance_miles`. The one distance of the product (core/distance.ts) over the build's KD-tree.
 */
export const nearQuery = { near: zipFilter, radius: radiusMiles(undefined) };

/** The sort key of the distance from `near`: a list sorts by it only with a near filter. */
export { DISTANCE_KEY };

/**
 * The places within the radius of `near`, or undefined without one. A PO-box or single-address ZIP code is
 * measured from the ZIP code it lies in; a ZIP code the build has no point for is a 404. `radius` or a sort by
 * distance without `near` is a 400 naming it.
 */
export function nearPlaces(
  queries: Queries,
  query: { near: string | undefined; radius: number | undefined; sort?: SortOrder | undefined },
): NearPlaces | undefined {
  if (query.near === undefined) {
    if (query.radius !== undefined) throw invalidParameter('radius is the distance from near: give near=ZIP too, or leave radius out');
    if (query.sort?.key === DISTANCE_KEY)
      throw invalidParameter(`sort=${DISTANCE_KEY} orders by the distance from near: give near=ZIP too`);
    return undefined;
  }
  const zip = queries.nearby.has(query.near) ? query.near : queries.zipAliases.of(query.near)?.zcta;
  const places = zip === undefined ? undefined : queries.nearby.within(zip, query.radius ?? DEFAULT_RADIUS_MILES);
  if (places === undefined) throw notFound(`No ZIP code ${query.near} in this build to measure near= from`);
  return places;
}

/** The sort asked, else the distance from `near` when there is one, else the list's own order. */
export function sortOrNear(sort: SortOrder | undefined, near: NearPlaces | undefined, own: SortOrder): SortOrder {
  return sort ?? (near ? { key: DISTANCE_KEY, descending: false } : own);
}
