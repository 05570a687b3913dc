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
