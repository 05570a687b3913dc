/**
 * The number a five-digit ZIP or ZCTA code spells ('00501' -> 501), or -1 for any other text: a compact key
 * for tables indexed by ZIP, where a Map of code strings would cost a hash, a string compare and cache misses.
 */
export function zipNumber(code: string): number {
  if (code.length !== 5) return -1;
  let number = 0;
  for (let i = 0; i < 5; i++) {
    const digit = code.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return -1;
    number = number * 10 + digit;
  }
  return number;
}
