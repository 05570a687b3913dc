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

/**
 * A number as people read it: thousands separated by commas, at most `decimals` decimals, trailing zeros
 * dropped (`1234567.5` -> `1,234,567.5`). `toLocaleString` says the same through the locale machinery, many
 * times slower a call, and a national diff names hundreds of thousands of numbers (bench/diff.ts).
 */
export function readable(x: number, decimals = 2): string {
  if (!Number.isFinite(x)) return String(x);
  const [whole, fraction] = Math.abs(x).toFixed(decimals).split('.');
  const digits = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const tail = fraction?.replace(/0+$/, '');
  const text = tail ? `${digits}.${tail}` : digits;
  return x < 0 && text !== '0' ? `-${text}` : text;
}
