/**
 * Seeded pseudo-random numbers for the sample generator.
 *
 * Every random choice in `hcas sample` goes through an {@link Rng}, never Math.random, so that one seed
 * always yields byte-identical files. Each file family draws from its own stream (`rng.fork('census')`),
 * so changing how one family consumes numbers does not reshuffle every other file.
 */

/** 32-bit FNV-1a hash of a string, used to turn stream labels into seed material. */
export function hashString(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** splitmix32 step: spreads a small seed over all 32 bits so nearby seeds give unrelated streams. */
function splitmix32(state: number): [number, number] {
  state = (state + 0x9e3779b9) | 0;
  let z = state;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
  return [state, (z ^ (z >>> 16)) >>> 0];
}

/** A small, fast, seedable generator (sfc32) with the distributions the generator needs. */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;
  private spareNormal: number | undefined;

  readonly seed: number;
  readonly label: string;

  /** Creates a stream from a numeric seed and an optional label (the label selects an independent stream). */
  constructor(seed: number, label = '') {
    this.seed = seed;
    this.label = label;
    let s = (seed ^ hashString(label)) >>> 0;
    [s, this.a] = splitmix32(s);
    [s, this.b] = splitmix32(s);
    [s, this.c] = splitmix32(s);
    [, this.d] = splitmix32(s);
    for (let i = 0; i < 12; i++) this.nextU32(); // warm up: the first sfc32 outputs are weakly mixed
  }

  /** An independent stream derived from this one's seed and a label; does not consume from this stream. */
  fork(label: string): Rng {
    return new Rng(this.seed, `${this.label}/${label}`);
  }

  /** Next raw 32-bit unsigned integer (sfc32). */
  nextU32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Uniform float in [0, 1). */
  next(): number {
    return this.nextU32() / 4294967296;
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** Uniform integer in [lo, hi] (both inclusive). */
  between(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  /** Uniform float in [lo, hi). */
  uniform(lo: number, hi: number): number {
    return lo + this.next() * (hi - lo);
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  /** Standard normal deviate (Box-Muller, caching the second value). */
  normal(): number {
    if (this.spareNormal !== undefined) {
      const v = this.spareNormal;
      this.spareNormal = undefined;
      return v;
    }
    let u = 0;
    while (u === 0) u = this.next();
    const v = this.next();
    const r = Math.sqrt(-2 * Math.log(u));
    this.spareNormal = r * Math.sin(2 * Math.PI * v);
    return r * Math.cos(2 * Math.PI * v);
  }

  /** One element of a non-empty array, uniformly. */
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)] as T;
  }

  /** n random digits as a string (leading zeros kept). */
  digits(n: number): string {
    let out = '';
    for (let i = 0; i < n; i++) out += String(this.int(10));
    return out;
  }
}

/**
 * Weighted sampling over a fixed list by cumulative sums and binary search: O(log n) per draw, which
 * keeps placing 4 million providers over 33,791 ZCTAs cheap.
 */
export class WeightedSampler {
  private readonly cumulative: Float64Array;
  /** Sum of all weights (0 when every weight is 0). */
  readonly total: number;

  /** Builds the sampler; negative and non-finite weights count as 0. */
  constructor(weights: ArrayLike<number>) {
    this.cumulative = new Float64Array(weights.length);
    let sum = 0;
    for (let i = 0; i < weights.length; i++) {
      const w = weights[i] as number;
      sum += Number.isFinite(w) && w > 0 ? w : 0;
      this.cumulative[i] = sum;
    }
    this.total = sum;
  }

  /** Index drawn with probability proportional to its weight. */
  sample(rng: Rng): number {
    const target = rng.next() * this.total;
    let lo = 0;
    let hi = this.cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.cumulative[mid] as number) > target) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }
}

/** Picks a key of a {key: weight} table with probability proportional to the weight. */
export function pickWeighted<T>(rng: Rng, entries: readonly (readonly [T, number])[]): T {
  let total = 0;
  for (const [, w] of entries) total += w;
  let target = rng.next() * total;
  for (const [value, w] of entries) {
    target -= w;
    if (target < 0) return value;
  }
  return (entries[entries.length - 1] as readonly [T, number])[0];
}

/** Clamps x into [lo, hi]. */
export function clamp(x: number, lo: number, hi: number): number {
  return x < lo ? lo : x > hi ? hi : x;
}
