/**
 * National Provider Identifiers. An NPI is 9 identifier digits plus a Luhn check digit computed as if the
 * number were prefixed with 80840 (the ISO health-industry issuer prefix), per the CMS NPI standard. The
 * build rejects rows whose NPI fails the check, the sample generator issues valid ones, and the API answers
 * `providers/{npi}/` with a 400 for a number that cannot be an NPI.
 */

/** The Luhn check digit of an NPI's first nine digits, computed over "80840" + first9. */
export function npiCheckDigit(first9: string): string {
  if (!/^\d{9}$/.test(first9)) throw new Error(`npiCheckDigit needs 9 digits, got ${JSON.stringify(first9)}`);
  const digits = `80840${first9}`;
  let sum = 0;
  // Walk from the right; the rightmost payload digit is doubled because the check digit will follow it.
  for (let i = digits.length - 1, double = true; i >= 0; i--, double = !double) {
    let digit = digits.charCodeAt(i) - 48;
    if (double) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return String((10 - (sum % 10)) % 10);
}

/** True when a 10-digit NPI starts with 1 or 2 and has a valid check digit. */
export function npiIsValid(npi: string): boolean {
  return /^[12]\d{9}$/.test(npi) && npiCheckDigit(npi.slice(0, 9)) === npi[9];
}
