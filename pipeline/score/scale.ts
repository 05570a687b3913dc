import type { Benchmark } from '../config/scoring.ts';

/** 0-100 on a log scale between a benchmark's zero and full points (works for rising and falling scales). */
export function logScore(value: number, benchmark: Benchmark): number {
  if (!Number.isFinite(value) || value <= 0) return benchmark.zeroAt < benchmark.fullAt ? 0 : 100;
  const position = Math.log(value / benchmark.zeroAt) / Math.log(benchmark.fullAt / benchmark.zeroAt);
  return 100 * Math.min(1, Math.max(0, position));
}

/** 0-100 on a linear scale: 100 at `bestAt`, 0 at `worstAt`, clamped. */
export function linearScore(value: number, bestAt: number, worstAt: number): number {
  return 100 * Math.min(1, Math.max(0, (value - worstAt) / (bestAt - worstAt)));
}

/** Median of the finite values, or `fallback` when there are none. */
export function median(values: Iterable<number | null | undefined>, fallback: number): number {
  const finite = [...values].filter((v): v is number => typeof v === 'number' && Number.isFinite(v)).sort((a, b) => a - b);
  if (finite.length === 0) return fallback;
  const mid = finite.length >> 1;
  return finite.length % 2 ? finite[mid] : (finite[mid - 1] + finite[mid]) / 2;
}
