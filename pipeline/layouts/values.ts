import { npiIsValid } from '../../core/npi.ts';
import { RowReject } from '../base/errors.ts';

/** Values that public files use for "no value": blank, NA, null, Not Available, and the like. */
const MISSING = new Set(['', 'na', 'n/a', 'null', 'none', 'not available', '-', '.', 'nan']);

export function isMissing(value: string | undefined): boolean {
  if (value === undefined) return true;
  // Most cells are numbers: one that starts with a digit is no "no value" word, answered without copying it
  // trimmed and lowered (a build reads millions of cells).
  const first = value.charCodeAt(0);
  if (first >= 48 && first <= 57) return false;
  return MISSING.has(value.trim().toLowerCase());
}

/** Census API annotation sentinels (-666666666 "cannot be computed", -999999999, -888888888, ...). */
function isCensusSentinel(value: number): boolean {
  return value <= -99_999_999;
}

/** A number or null when the source has no value; throws RowReject for text that is not a number. */
export function optionalNumber(value: string | undefined, field: string): number | null {
  if (isMissing(value)) return null;
  // Number() trims as String.trim does and gives NaN for a thousands separator, a dollar or a percent sign:
  // only such text is cleaned first, so a plain number is not copied twice.
  let parsed = Number(value);
  if (Number.isNaN(parsed)) parsed = Number(value!.trim().replace(/[,$%]/g, ''));
  if (!Number.isFinite(parsed)) throw new RowReject(`${field} is not a number: ${JSON.stringify(value)}`);
  return isCensusSentinel(parsed) ? null : parsed;
}

/** Like optionalNumber, but a missing value rejects the row. */
export function requiredNumber(value: string | undefined, field: string): number {
  const parsed = optionalNumber(value, field);
  if (parsed === null) throw new RowReject(`${field} is missing`);
  return parsed;
}

/**
 * Normalises a US ZIP code to 5 digits. Accepts ZIP+4 with or without a dash, numbers written as floats
 * by spreadsheet tools ("688482168.0") and codes that lost their leading zeros ("8065" -> "08065").
 */
export function zip5(value: string | undefined, field: string): string {
  const trimmed = (value ?? '').trim();
  // Most rows hold 5 or 9 plain digits: answered without the regular expressions below.
  if ((trimmed.length === 5 || trimmed.length === 9) && allDigits(trimmed)) return trimmed.length === 5 ? trimmed : trimmed.slice(0, 5);
  const text = trimmed.replace(/\.0+$/, '');
  if (text === '') throw new RowReject(`${field} is missing`);
  const digits = text.replace(/-/g, '');
  if (!/^\d+$/.test(digits)) throw new RowReject(`${field} is not a ZIP code: ${JSON.stringify(value)}`);
  if (digits.length <= 5) return digits.padStart(5, '0');
  if (digits.length <= 9) return digits.padStart(9, '0').slice(0, 5);
  throw new RowReject(`${field} has too many digits for a ZIP code: ${JSON.stringify(value)}`);
}

/** Strips a float suffix from an identifier written by a spreadsheet tool ("1679576722.0"). */
export function identifier(value: string | undefined): string {
  const text = (value ?? '').trim();
  // Only text ending in "0" can carry the float suffix.
  return text.charCodeAt(text.length - 1) === 48 ? text.replace(/\.0+$/, '') : text;
}

function allDigits(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

/** A 10-digit NPI with a valid check digit, or a RowReject naming what is wrong. */
export function requiredNpi(value: string | undefined, field: string): string {
  const npi = identifier(value);
  if (!/^\d{10}$/.test(npi)) throw new RowReject(`${field} must be 10 digits: ${JSON.stringify(value)}`);
  if (!npiIsValid(npi)) throw new RowReject(`${field} ${npi} fails the NPI check digit (Luhn with prefix 80840)`);
  return npi;
}

const STATE_CODE = /^[A-Z]{2}$/;

/** Two-letter state code in upper case, or a RowReject. */
export function stateCode(value: string | undefined, field: string): string {
  const code = (value ?? '').trim().toUpperCase();
  if (!STATE_CODE.test(code)) throw new RowReject(`${field} is not a two-letter state code: ${JSON.stringify(value)}`);
  return code;
}

/**
 * Title-cases an all-caps name from a federal file ("NEW YORK" -> "New York") for display; mixed case is kept
 * as written, but for the acronyms and Mc names a file already title-cased wrongly (Jber, Afb, Mckinney).
 */
export function displayName(value: string | undefined): string {
  const text = (value ?? '').trim();
  // It runs for every name, city and address of a national file. One pass decides the common cases (plain
  // ASCII, nothing to collapse): a lower-case letter means mixed case, kept as written; no lower-case letter
  // means all caps, title-cased below. Anything else (non-ASCII, runs of whitespace) takes the general path.
  let lower = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 97 && c <= 122) lower = true;
    else if (c > 127 || c === 9 || c === 10 || (c === 32 && text.charCodeAt(i + 1) === 32)) return displayNameOfAnyText(text);
  }
  return lower ? mixedCase(text) : titleCase(text);
}

/** A title-cased acronym of the list (Jber, Afb, Ob) or a Mc name with a small third letter (Mckinney). */
const MIXED_CASE_FIXES = /\b([A-Z][a-z]{1,3})\b|\bMc([a-z])(?=[a-z]{2})/g;

/** Mixed-case text as written, with the fixes above: the wrongly title-cased files of the bundle have them. */
function mixedCase(text: string): string {
  return text.replace(MIXED_CASE_FIXES, (word: string, short: string | undefined, third: string | undefined) => {
    if (third !== undefined) return `Mc${third.toUpperCase()}`;
    const acronym = short!.toUpperCase();
    return SHORT_WORDS.get(packedKey(acronym)) === acronym ? acronym : word;
  });
}

function displayNameOfAnyText(text: string): string {
  const spaced = text.includes('  ') || /[\t\n]/.test(text) ? text.replace(/\s+/g, ' ') : text;
  if (spaced !== spaced.toUpperCase()) return mixedCase(spaced);
  return titleCase(spaced);
}

/**
 * Words a name keeps in capitals wherever they stand, as the federal files' names spell them out: legal forms,
 * health systems and universities, the VA, military bases, state codes without vowels (University of MD),
 * compass points of addresses, roman numerals. An explicit list, not a rule such as "no vowel": Hlth, Ctr, St,
 * Blvd and the surname Ng have none either. Nothing that is also a person's name (CHI Health stays Chi: Chi is
 * a given name in NPPES). At most four letters each (the lookup key below).
 */
const ACRONYMS = words(`
  LLC LLP PLLC LP PC VA NYU AHMC JBER AFB USA US UCLA UCSF UCSD UCI UC USC UNC UVA UW UF UT UAB UMC UPMC HCA SSM
  OSF CAH ARH AMG HSHS IHS PHS MUSC CAMC TMC BHC PHF APH JFK LTCU SNF ER ICU HIV ENT OB GYN MD MS MN NC SC NJ
  NH NM NV ND SD WV TX DC II III IV NW NE SE SW CHC FQHC SBHC RHC MCR MCHC MRI EMS WCA
`);
/** Short words written in lower case inside a name ("Hospital for Special Surgery", "Isle of Palms"). */
const SMALL_WORDS = words('of for the and at in on by to');
/** Mac names (MacArthur); most words that start with Mac are not (Macon, Machias, Mackinaw). */
const MAC_NAMES = new Map(words('MacArthur MacGregor MacCorkle MacNeal MacDonald MacDill').map((name) => [name.toLowerCase(), name]));

function words(text: string): string[] {
  return text.trim().split(/\s+/);
}

/** A word of one to four letters a-z as a number, five bits a letter: a Map lookup without a slice. */
function packedKey(word: string): number {
  let key = 0;
  for (let i = 0; i < word.length; i++) key = key * 32 + (word.toLowerCase().charCodeAt(i) - 96);
  return key;
}

/** By packed key: the acronym in capitals, or '' for a small word. */
const SHORT_WORDS = new Map<number, string>([
  ...ACRONYMS.map((word): [number, string] => [packedKey(word), word]),
  ...SMALL_WORDS.map((word): [number, string] => [packedKey(word), '']),
]);
/** 1 for each (length, first letter, last letter) of the words above: most short words (John, Lee, Ave) are turned away by one read. */
const MAYBE_SHORT_WORD = new Uint8Array(5 << 10);
for (const word of [...ACRONYMS, ...SMALL_WORDS]) MAYBE_SHORT_WORD[filterIndex(word.toLowerCase(), 0, word.length)] = 1;

function filterIndex(lower: string, start: number, end: number): number {
  return ((end - start) << 10) | ((lower.charCodeAt(start) - 96) << 5) | (lower.charCodeAt(end - 1) - 96);
}

/** The acronym or small word (as SHORT_WORDS has it) that the 1 to 4 characters lower[start, end) are, if any. */
function shortWord(lower: string, start: number, end: number): string | undefined {
  const first = lower.charCodeAt(start);
  const last = lower.charCodeAt(end - 1);
  if (first < 97 || first > 122 || last < 97 || last > 122 || MAYBE_SHORT_WORD[filterIndex(lower, start, end)] === 0) return undefined;
  let key = 0;
  for (let i = start; i < end; i++) {
    const c = lower.charCodeAt(i);
    if (c < 97 || c > 122) return undefined;
    key = key * 32 + (c - 96);
  }
  return SHORT_WORDS.get(key);
}

/** 1 for the characters that end a word (space, hyphen, slash, parentheses, full stop, comma, ampersand, quote). */
const ENDS_WORD = new Uint8Array(48);
for (const c of ' -/()&,."') ENDS_WORD[c.charCodeAt(0)] = 1;

/**
 * Title case of an all-caps name, by the rules for proper names: each word capitalised (O'Neil, D'Angelo,
 * McKinney, MacArthur; Children's, not Children'S), the acronyms above in capitals, and the small words in
 * lower case inside the name (not first, not last, not after a dash or parenthesis). A character loop
 * rather than regexes (it runs on four names of every NPPES row: bench/title-case.ts measures it); short
 * words are looked up by a number packed from their letters, so the common word costs no slice.
 */
export function titleCase(upper: string): string {
  const lower = upper.toLowerCase();
  const n = lower.length;
  let out = '';
  let copied = 0;
  let start = -1;
  for (let i = 0; i <= n; i++) {
    const c = i < n ? lower.charCodeAt(i) : 32;
    // Letters and digits are past every character that ends a word ('/' is 47): one compare for most.
    if (c > 47 || ENDS_WORD[c] === 0) {
      if (start < 0) start = i;
      continue;
    }
    if (start < 0) continue;
    // The word lower[start, i).
    const short = i - start <= 4 ? shortWord(lower, start, i) : undefined;
    if (short !== undefined) {
      if (short !== '') {
        out += lower.slice(copied, start) + short;
        copied = i;
      } else if (!insideName(lower, start, i)) {
        out += lower.slice(copied, start) + String.fromCharCode(lower.charCodeAt(start) - 32);
        copied = start + 1;
      }
    } else {
      const first = lower.charCodeAt(start);
      if (first >= 97 && first <= 122) {
        out += lower.slice(copied, start) + String.fromCharCode(first - 32);
        copied = start + 1;
        // A second capital (O'Neil, McKinney, MacArthur): looked for only where the second character is an
        // apostrophe, or the word begins Mc or Mac (the length first: a character past the end reads NaN).
        const second = i - start > 2 ? lower.charCodeAt(start + 1) : 0;
        if (second === 39 || (first === 109 && (second === 99 || (second === 97 && lower.charCodeAt(start + 2) === 99)))) {
          const rest = secondCapital(lower, start, i);
          if (rest !== undefined) {
            out += rest;
            copied = i;
          }
        }
      } else if (first > 127) {
        const letter = lower[start].toUpperCase();
        if (letter.length === 1) {
          out += lower.slice(copied, start) + letter;
          copied = start + 1;
        }
      }
    }
    start = -1;
  }
  return out + lower.slice(copied);
}

/**
 * The rest of the word lower[start, end) after its first letter when it takes a second capital: O'Neil,
 * D'Angelo (one letter, an apostrophe), McKinney (Mc and a letter), the Mac names; otherwise undefined.
 */
function secondCapital(lower: string, start: number, end: number): string | undefined {
  const second = lower.charCodeAt(start + 1);
  if (second === 97 && lower.charCodeAt(start) === 109)
    return lower.charCodeAt(start + 2) === 99 && end - start > 6 ? MAC_NAMES.get(lower.slice(start, end))?.slice(1) : undefined;
  // Mc needs four letters (McCoy): MCR and MCHC are acronyms, looked up before this.
  if (second !== 39 && !(second === 99 && lower.charCodeAt(start) === 109)) return undefined;
  const third = lower.charCodeAt(start + 2);
  if (third < 97 || third > 122) return undefined;
  return `${lower[start + 1]}${String.fromCharCode(third - 32)}${lower.slice(start + 3, end)}`;
}

/** True when the word lower[start, end) stands inside a name: after a space that follows a word, and not last. */
function insideName(lower: string, start: number, end: number): boolean {
  if (start < 2 || end >= lower.length || lower.charCodeAt(start - 1) !== 32) return false;
  const before = lower.charCodeAt(start - 2);
  return (
    (before >= 97 && before <= 122) || (before >= 48 && before <= 57) || before === 46 || before === 44 || before === 39 || before > 127
  );
}

/** Yes/No/Y/N/True/False/1/0 to a boolean; null when missing. */
export function optionalBoolean(value: string | undefined, field: string): boolean | null {
  if (isMissing(value)) return null;
  const text = value!.trim().toLowerCase();
  if (['y', 'yes', 'true', '1', 't'].includes(text)) return true;
  if (['n', 'no', 'false', '0', 'f'].includes(text)) return false;
  throw new RowReject(`${field} is not yes/no: ${JSON.stringify(value)}`);
}

/** A latitude and longitude in degrees, both required and in range, or a RowReject naming what is wrong. */
export function requiredPoint(
  latitudeText: string,
  longitudeText: string,
  fields: { latitude: string; longitude: string; what?: string },
): { latitude: number; longitude: number } {
  const latitude = requiredNumber(latitudeText, fields.latitude);
  const longitude = requiredNumber(longitudeText, fields.longitude);
  if (latitude < -90 || latitude > 90 || longitude < -180 || longitude > 180) {
    throw new RowReject(`${fields.what ?? 'point'} ${latitude},${longitude} is not a latitude/longitude`);
  }
  return { latitude, longitude };
}
