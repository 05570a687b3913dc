/** Mean of the values (weighted when weights are given); NaN when there are none or the weights sum to 0. */
export function mean(values: readonly number[], weights?: readonly number[]): number {
  let sum = 0;
  let total = 0;
  for (let i = 0; i < values.length; i++) {
    const w = weights ? weights[i] : 1;
    sum += values[i] * w;
    total += w;
  }
  return total > 0 ? sum / total : Number.NaN;
}
