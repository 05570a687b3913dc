/**
 * National Provider Identifiers. An NPI is 9 identifier digits plus a Luhn check digit computed as if the
 * number were prefixed with 80840 (the ISO health-industry issuer prefix), per the CMS NPI standard.
 */
import { npiCheckDigit } from '../../core/npi.ts';
import type { Rng } from './prng.ts';

const SPACE = 200_000_000; // first-nine values 100000000..299999999: NPIs start with 1 or 2

/**
 * Issues unique NPIs in a random-looking order: an affine permutation i → (a·i + b) mod 2·10^8 of the
 * first nine digits never repeats for i below 2·10^8, so no set of issued numbers has to be kept.
 */
export class NpiIssuer {
  private readonly a: number;
  private readonly b: number;
  private next = 0;

  /** Draws the permutation from the random stream. */
  constructor(rng: Rng) {
    // a must be coprime with 2^9·5^8: odd and not a multiple of 5.
    let a = 10_000_000 + rng.int(SPACE - 10_000_000);
    while (a % 2 === 0 || a % 5 === 0) a++;
    this.a = a;
    this.b = rng.int(SPACE);
  }

  /** The first nine digits of the next NPI. */
  nextFirst9(): string {
    if (this.next >= SPACE) throw new Error('NPI space exhausted');
    // a < 2^28 and next < 2^28, so the product stays below 2^53 and is exact.
    return String(100_000_000 + ((this.a * this.next++ + this.b) % SPACE));
  }

  /** The next valid NPI. */
  issue(): string {
    const first9 = this.nextFirst9();
    return first9 + npiCheckDigit(first9);
  }
}
