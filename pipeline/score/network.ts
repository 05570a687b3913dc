import { grown } from '../base/typed-arrays.ts';
import type { ZipPlace } from '../geo/places.ts';
import type { PointIndex } from '../geo/point-index.ts';

/**
 * The ZIP-to-ZIP travel network: every pair of ZIP points within `maxMiles`, as parallel typed arrays
 * (a few million edges nationally, so no per-edge objects). Cost is straight-line miles; a ZIP's edge to
 * itself costs half the radius of a disc of its land area, the typical trip inside it. Each ZIP's edges lie
 * together, in the KD-tree's order: its own first, then the others nearest first (nearestSupplyMiles reads it so).
 */
export interface ZipNetwork {
  from: Uint32Array;
  to: Uint32Array;
  miles: Float64Array;
}

export function buildNetwork(places: ZipPlace[], index: PointIndex, maxMiles: number): ZipNetwork {
  // Typed arrays grown by doubling: millions of edges as plain arrays would cost several times the memory.
  let capacity = places.length * 64;
  let from = new Uint32Array(capacity);
  let to = new Uint32Array(capacity);
  let miles = new Float64Array(capacity);
  let count = 0;
  places.forEach((place, i) => {
    for (const hit of index.within(place.longitude, place.latitude, maxMiles)) {
      if (count === capacity) {
        capacity *= 2;
        from = grown(from, capacity);
        to = grown(to, capacity);
        miles = grown(miles, capacity);
      }
      from[count] = i;
      to[count] = hit.id;
      miles[count] = hit.id === i ? internalMiles(place) : hit.miles;
      count++;
    }
  });
  // Views of the filled part, not copies: the unused capacity they keep is smaller than a copy, which would hold
  // the network twice at once (measured: the national build's peak fell with views).
  return { from: from.subarray(0, count), to: to.subarray(0, count), miles: miles.subarray(0, count) };
}

/** Typical distance travelled inside a ZIP: half the radius of a disc with its land area, at least 0.25 mile. */
export function internalMiles(place: ZipPlace): number {
  return Math.max(0.25, 0.5 * Math.sqrt(Math.max(place.landSqMi, 0) / Math.PI));
}

/** The step weight of each edge for a set of E2SFCA steps (0 beyond the last step). */
export function stepWeights(network: ZipNetwork, steps: Array<[number, number]>): Float64Array {
  const sorted = [...steps].sort((a, b) => a[0] - b[0]);
  const limits = Float64Array.from(sorted, ([maxMiles]) => maxMiles);
  const values = Float64Array.from(sorted, ([, weight]) => weight);
  const { miles } = network;
  const weights = new Float64Array(miles.length);
  // A plain loop over the few steps: this runs over millions of edges, once per set of steps.
  for (let e = 0; e < weights.length; e++) {
    const m = miles[e];
    let s = 0;
    while (s < limits.length && !(m <= limits[s])) s++;
    weights[e] = s < limits.length ? values[s] : 0;
  }
  return weights;
}

/**
 * For each ZIP, miles to the nearest ZIP with positive supply over the network, or NaN when none is within
 * the network's reach (the caller then searches further with the KD-tree). A ZIP's edges lie together, its own
 * first and the others nearest first (buildNetwork, in the KD-tree's order), so the walk stops at the first
 * other ZIP with supply: the minimum over all of them, which its own edge's cost (the trip inside it) may beat.
 */
export function nearestSupplyMiles(network: ZipNetwork, supply: Float64Array, count: number): Float64Array {
  const nearest = new Float64Array(count).fill(NaN);
  const { from, to, miles } = network;
  const edges = from.length;
  let e = 0;
  while (e < edges) {
    const i = from[e];
    let best = NaN;
    for (; e < edges && from[e] === i; e++) {
      if (supply[to[e]] <= 0) continue;
      if (!(best <= miles[e])) best = miles[e];
      if (to[e] !== i) {
        // The nearest other ZIP with supply: no later edge of this ZIP is nearer.
        while (e < edges && from[e] === i) e++;
        break;
      }
    }
    nearest[i] = best;
  }
  return nearest;
}
