/**
 * The number a five-digit ZIP or ZCTA code spells ('00501' -> 501), or -1 for any other text: a compact key
 * for tables indexed by ZIP, where a Map of code strings would cost a hash, a string compare and cache misses.
 */
export function zipNumber(code: string): number {
  return code.length === 5 ? zipNumberAt(code, 0) : -1;
}

/** The number the five characters of `text` from `start` spell, or -1 unless all five are ASCII digits. */
export function zipNumberAt(text: string, start: number): number {
  let number = 0;
  for (let i = start; i < start + 5; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (!(digit >= 0 && digit <= 9)) return -1;
    number = number * 10 + digit;
  }
  return number;
}
