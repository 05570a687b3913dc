import { npiIsValid } from '../../core/npi.ts';
import { RowReject } from '../errors.ts';

/** Values that public files use for "no value": blank, NA, null, Not Available, and the like. */
const MISSING = new Set(['', 'na', 'n/a', 'null', 'none', 'not available', '-', '.', 'nan']);

export function isMissing(value: string | undefined): boolean {
  return value === undefined || MISSING.has(value.trim().toLowerCase());
}

/** Census API annotation sentinels (-666666666 "cannot be computed", -999999999, -888888888, ...). */
function isCensusSentinel(value: number): boolean {
  return value <= -99_999_999;
}

/** A number or null when the source has no value; throws RowReject for text that is not a number. */
export function optionalNumber(value: string | undefined, field: string): number | null {
  if (isMissing(value)) return null;
  const cleaned = value!.trim().replace(/[,$%]/g, '');
  const parsed = Number(cleaned);
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

/** Title-cases an all-caps name from a federal file ("NEW YORK" -> "New York") for display; mixed case is kept. */
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
  return lower ? text : titleCase(text);
}

function displayNameOfAnyText(text: string): string {
  const spaced = text.includes('  ') || /[\t\n]/.test(text) ? text.replace(/\s+/g, ' ') : text;
  if (spaced !== spaced.toUpperCase()) return spaced;
  return titleCase(spaced);
}

/**
 * Lower case but the first letter of each word. A character loop rather than a regex with a callback (about
 * four times faster, which is seconds per national build). A letter after a space, hyphen, apostrophe,
 * slash, parenthesis or full stop starts a word. Those six are compared inline: 145 ns a name, against 190
 * with a Set lookup a character (four names a NPPES row).
 */
function titleCase(upper: string): string {
  const lower = upper.toLowerCase();
  let out = '';
  let start = 0;
  let capitalize = true;
  for (let i = 0; i < lower.length; i++) {
    const c = lower.charCodeAt(i);
    if (capitalize && c >= 97 && c <= 122) {
      out += lower.slice(start, i) + String.fromCharCode(c - 32);
      start = i + 1;
    }
    capitalize = c === 32 || c === 45 || c === 39 || c === 47 || c === 40 || c === 46;
  }
  return out + lower.slice(start);
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
