/** A typed array of the build's growable buffers (heaps, edge lists, per-row indexes). */
type Growable = Int32Array | Uint32Array | Uint8Array | Float64Array;

/** A copy of `array` in a new array of the same kind with room for `length` values (the new ones 0). */
export function grown<T extends Growable>(array: T, length: number): T {
  const bigger = new (array.constructor as new (n: number) => T)(length);
  bigger.set(array);
  return bigger;
}
