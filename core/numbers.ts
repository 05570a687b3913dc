/**
 * The one rounding rule, the one median and the one way numbers are written for people: the pipeline's stored
 * values, the validation report, `hcas diff`, the widget and the benchmarks all use these, so a figure rounds
 * the same wherever it is printed.
 */

/**
 * `x` rounded to `digits` decimals, halves away from zero (2.5 -> 3, -2.5 -> -3: the same size either side,
 * where Math.round alone sends -2.5 to -2). NaN and infinities stay as they are.
 */
export function round(x: number, digits = 0): number {
  const scale = 10 ** digits;
  return (Math.sign(x) * Math.round(Math.abs(x) * scale)) / scale;
}

/** `x`, or null when it is NaN or an infinity (JSON has no such numbers). */
export function finiteOrNull(x: number): number | null {
  return Number.isFinite(x) ? x : null;
}

/**
 * The median of the finite values (missing ones, NaN and infinities left out): the middle one, or the mean of
 * the middle two; `whenNone` when there are none.
 */
export function median(values: Iterable<number | null | undefined>, whenNone = Number.NaN): number {
  const finite: number[] = [];
  for (const value of values) if (typeof value === 'number' && Number.isFinite(value)) finite.push(value);
  if (finite.length === 0) return whenNone;
  const sorted = Float64Array.from(finite).sort();
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * A number as people read it: thousands separated by commas, at most `decimals` decimals, trailing zeros
 * dropped (`1234567.5` -> `1,234,567.5`). `toLocaleString('en-US')` says the same through the locale
 * machinery, many times slower a call: a national diff names hundreds of thousands of numbers (bench/diff.ts),
 * and the widget's sentence is made for every ZIP code of a static export.
 */
export function readable(x: number, decimals = 2): string {
  if (!Number.isFinite(x)) return String(x);
  const [whole, fraction] = Math.abs(x).toFixed(decimals).split('.');
  const digits = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const tail = fraction?.replace(/0+$/, '');
  const text = tail ? `${digits}.${tail}` : digits;
  return x < 0 && text !== '0' ? `-${text}` : text;
}
