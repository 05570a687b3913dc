/**
 * Sets of provider ranks as sorted, duplicate-free uint32 arrays: the posting lists of the directory
 * (pipeline/emit/directory.ts) and the results of combining them. Every function returns ascending ranks.
 */

/** A posting list, with a bitmap over all ranks once it is large enough that testing a bit beats searching. */
export interface RankSet {
  ranks: Uint32Array;
  bits?: Uint32Array;
}

/** A list with at least 1/32 of all ranks gets a bitmap: it is then no larger than the list itself. */
export function withBitmap(ranks: Uint32Array, size: number): RankSet {
  return ranks.length * 32 < size ? { ranks } : { ranks, bits: bitmapOf(ranks, size) };
}

/** A bitmap of `size` bits with the bit of every rank in `ranks` (in any order) set. */
export function bitmapOf(ranks: Uint32Array, size: number): Uint32Array {
  const bits = new Uint32Array((size + 31) >>> 5);
  for (let i = 0; i < ranks.length; i++) bits[ranks[i] >>> 5] |= 1 << (ranks[i] & 31);
  return bits;
}

/** The union of two ascending arrays without common values, ascending. */
export function mergeSorted(a: Uint32Array, b: Uint32Array): Uint32Array {
  if (b.length === 0) return a;
  if (a.length === 0) return b;
  const out = new Uint32Array(a.length + b.length);
  let i = 0;
  let j = 0;
  let n = 0;
  while (i < a.length && j < b.length) out[n++] = a[i] < b[j] ? a[i++] : b[j++];
  while (i < a.length) out[n++] = a[i++];
  while (j < b.length) out[n++] = b[j++];
  return out;
}

/** The ranks of `small` that are also in `other`: a bit test, a galloping search or a merge, whichever is cheapest. */
export function intersect(small: Uint32Array, other: RankSet): Uint32Array {
  const out = new Uint32Array(Math.min(small.length, other.ranks.length));
  let n = 0;
  if (other.bits) {
    const bits = other.bits;
    for (let i = 0; i < small.length; i++) {
      const r = small[i];
      if (bits[r >>> 5] & (1 << (r & 31))) out[n++] = r;
    }
  } else if (other.ranks.length > 16 * small.length) {
    const big = other.ranks;
    let from = 0;
    for (let i = 0; i < small.length && from < big.length; i++) {
      from = lowerBound(big, small[i], from);
      if (from < big.length && big[from] === small[i]) out[n++] = small[i];
    }
  } else {
    const big = other.ranks;
    let i = 0;
    let j = 0;
    while (i < small.length && j < big.length) {
      const a = small[i];
      const b = big[j];
      if (a < b) i++;
      else if (a > b) j++;
      else {
        out[n++] = a;
        i++;
        j++;
      }
    }
  }
  return out.subarray(0, n);
}

/**
 * The ranks in every set. The smallest set drives, testing the others; when every set is large enough to
 * have a bitmap, the bitmaps are ANDed a word (32 ranks) at a time instead, which touches fewer words than
 * the smallest set has ranks.
 */
export function intersectAll(sets: readonly RankSet[]): Uint32Array {
  const sorted = [...sets].sort((a, b) => a.ranks.length - b.ranks.length);
  if (sorted.length > 1 && sorted.every((set) => set.bits))
    return andBitmaps(
      sorted.map((set) => set.bits!),
      sorted[0].ranks.length,
    );
  let result = sorted[0].ranks;
  for (let i = 1; i < sorted.length && result.length > 0; i++) result = intersect(result, sorted[i]);
  return result;
}

/** The ranks whose bit is set in every bitmap, ascending; `most` bounds how many there can be. */
function andBitmaps(bitmaps: readonly Uint32Array[], most: number): Uint32Array {
  const out = new Uint32Array(most);
  let n = 0;
  const first = bitmaps[0];
  for (let w = 0; w < first.length; w++) {
    let word = first[w];
    for (let b = 1; b < bitmaps.length && word !== 0; b++) word &= bitmaps[b][w];
    const base = w << 5;
    while (word !== 0) {
      out[n++] = base + 31 - Math.clz32(word & -word);
      word &= word - 1;
    }
  }
  return out.subarray(0, n);
}

/** The first index at or after `from` whose value is at least `value` (exponential, then binary search). */
export function lowerBound(sorted: Uint32Array, value: number, from = 0): number {
  let step = 1;
  let lo = from;
  let hi = from;
  while (hi < sorted.length && sorted[hi] < value) {
    lo = hi + 1;
    hi += step;
    step *= 2;
  }
  if (hi > sorted.length) hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid] < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The first `limit` values (at most) of the union of sorted runs, in order; duplicates across runs are kept
 * once. For a handful of runs: each step takes the smallest head.
 */
export function mergeRuns(runs: readonly Uint32Array[], limit: number): Uint32Array {
  const heads = new Array<number>(runs.length).fill(0);
  const out = new Uint32Array(
    Math.min(
      limit,
      runs.reduce((sum, run) => sum + run.length, 0),
    ),
  );
  let n = 0;
  let last = -1;
  while (n < out.length) {
    let best = -1;
    for (let r = 0; r < runs.length; r++) {
      if (heads[r] < runs[r].length && (best < 0 || runs[r][heads[r]] < runs[best][heads[best]])) best = r;
    }
    if (best < 0) break;
    const value = runs[best][heads[best]++];
    if (value !== last) out[n++] = last = value;
  }
  return out.subarray(0, n);
}

/** The union of a sorted list and the interval [lo, hi), sorted, at most `limit` values. */
export function unionWithInterval(sorted: Uint32Array, lo: number, hi: number, limit: number): Uint32Array {
  const out = new Uint32Array(Math.min(limit, sorted.length + Math.max(0, hi - lo)));
  let n = 0;
  let i = 0;
  let r = lo;
  while (n < out.length) {
    const fromList = i < sorted.length ? sorted[i] : Infinity;
    const fromInterval = r < hi ? r : Infinity;
    if (fromList === Infinity && fromInterval === Infinity) break;
    if (fromList < fromInterval) {
      out[n++] = fromList;
      i++;
    } else {
      out[n++] = fromInterval;
      if (fromList === fromInterval) i++;
      r++;
    }
  }
  return out.subarray(0, n);
}
