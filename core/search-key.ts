/**
 * The one text normalisation of the directory: names, cities, specialties and facility names are stored under
 * this key at build time, and every search value is read through it at query time, so matching is
 * case-, accent- and punctuation-insensitive on both sides alike.
 *
 * `"O'Brien"` -> `obrien`, `"José"` -> `jose`, `"ST. LOUIS"` -> `st louis`, `"Allergy & Immunology"` ->
 * `allergy and immunology`, `"OBSTETRICS/GYNECOLOGY"` -> `obstetrics gynecology`.
 *
 * Keys contain no character at or above U+D800, so JavaScript's string order (UTF-16 code units) and SQLite's
 * BINARY order (UTF-8 bytes) agree on them, and `key + PREFIX_END` bounds every key that starts with `key`.
 */
export function searchKey(text: string): string {
  // Printable ASCII (nearly every value) takes a shorter path with the same result.
  if (PRINTABLE_ASCII.test(text)) {
    return text
      .toLowerCase()
      .replace(/&/g, ' and ')
      .replace(/['`.]/g, '')
      .replace(/[^a-z0-9]+/g, ' ')
      .trim();
  }
  return (
    text
      .normalize('NFKD')
      .replace(/\p{M}+/gu, '')
      .toLowerCase()
      .replace(/&/g, ' and ')
      .replace(/['’‘`.]/g, '')
      .replace(/[^\p{L}\p{N}]+/gu, ' ')
      // biome-ignore lint/suspicious/noControlCharactersInRegex: the range starts at U+0000 on purpose: it keeps everything below U+D800.
      .replace(/[^\u0000-\ud7ff]/g, '')
      .trim()
      .replace(/ {2,}/g, ' ')
  );
}

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/**
 * The key of a specialty name: its search key without the words `and` and `or`, so the NUCC code set's
 * "Obstetrics & Gynecology", CMS's "OBSTETRICS/GYNECOLOGY" and "OBSTETRICS GYNECOLOGY", and a user's
 * "obstetrics and gynecology" are one specialty.
 */
export function specialtyKey(text: string): string {
  return searchKey(text)
    .replace(/(^| )(and|or)(?= |$)/g, '')
    .trim()
    .replace(/ {2,}/g, ' ');
}

/** Greater than every character a key can hold: keys starting with `p` are exactly those in [p, p + PREFIX_END). */
export const PREFIX_END = '\ue000';
