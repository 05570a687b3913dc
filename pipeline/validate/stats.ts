/** Ranks with ties sharing their mean rank (1-based), as Spearman's rho wants them. */
export function averageRanks(values: number[]): number[] {
  const order = values.map((value, index) => ({ value, index })).sort((a, b) => a.value - b.value);
  const ranks = new Array<number>(values.length);
  for (let start = 0; start < order.length; ) {
    let end = start;
    while (end + 1 < order.length && order[end + 1].value === order[start].value) end++;
    const rank = (start + end) / 2 + 1;
    for (let k = start; k <= end; k++) ranks[order[k].index] = rank;
    start = end + 1;
  }
  return ranks;
}

/** Pearson correlation of two equally long series; NaN when either is constant or there are fewer than 3 pairs. */
export function pearson(x: number[], y: number[]): number {
  const n = x.length;
  if (n < 3 || y.length !== n) return NaN;
  const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / n;
  const [mx, my] = [mean(x), mean(y)];
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) ** 2;
    syy += (y[i] - my) ** 2;
  }
  return sxx > 0 && syy > 0 ? sxy / Math.sqrt(sxx * syy) : NaN;
}

/** Spearman's rank correlation: Pearson over average ranks (ties handled). */
export function spearman(x: number[], y: number[]): number {
  return pearson(averageRanks(x), averageRanks(y));
}

/** Weighted mean, or null when the weights sum to 0. */
export function weightedMean(values: number[], weights: number[]): number | null {
  let sum = 0;
  let total = 0;
  for (let i = 0; i < values.length; i++) {
    sum += values[i] * weights[i];
    total += weights[i];
  }
  return total > 0 ? sum / total : null;
}

/** The q-quantile (0-1) of the values by linear interpolation between order statistics; NaN when there are none. */
export function quantile(values: ArrayLike<number>, q: number): number {
  const sorted = Float64Array.from(values).sort();
  if (sorted.length === 0) return Number.NaN;
  const position = (sorted.length - 1) * q;
  const low = Math.floor(position);
  const high = Math.min(low + 1, sorted.length - 1);
  return sorted[low] + (sorted[high] - sorted[low]) * (position - low);
}
