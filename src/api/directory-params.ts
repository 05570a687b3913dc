import { searchKey } from '../../core/search-key.ts';
import { npiIsValid } from '../../core/npi.ts';
import { invalidParameter } from '../http/errors.ts';
import { mustBe, param, type Param } from '../http/params.ts';

/** Longest search text any directory parameter accepts, in characters (code points). */
export const MAX_TEXT_CHARACTERS = 100;

/** A 10-digit NPI with a valid check digit (Luhn over `80840` + the NPI), path segment of `providers/{npi}/`. */
export const npi = param('a 10-digit NPI with a valid check digit', (raw) => (npiIsValid(raw) ? raw : undefined), '', {
  type: 'string', pattern: '^[12][0-9]{9}$', description: 'Luhn check digit over the prefix 80840 and the first 9 digits',
});

/** A facility id, path segment of `facilities/{id}/`. */
export const facilityId = param('a facility id, an integer of 1 or more', (raw) => (/^\d{1,10}$/.test(raw) && Number(raw) >= 1 && Number(raw) <= 2 ** 31 - 1 ? Number(raw) : undefined), 0, {
  type: 'integer', minimum: 1,
});

/**
 * Search text: 1-100 characters after trimming; with `needsWord`, at least one letter or digit too. Absent:
 * undefined, or a 400 when `required`. A value of only spaces is reported as empty.
 */
function text(accepts: string, needsWord: boolean, required = false): Param<string | undefined> {
  return {
    accepts,
    schema: { type: 'string', minLength: 1, maxLength: MAX_TEXT_CHARACTERS },
    required,
    read(paramName, raw) {
      if (raw === undefined) {
        if (required) throw invalidParameter(`${paramName} must be ${accepts}; it is missing (for example ?${paramName}=new+york)`);
        return undefined;
      }
      const value = raw.trim();
      const characters = [...value].length;
      if (characters < 1 || characters > MAX_TEXT_CHARACTERS || (needsWord && searchKey(value) === '')) throw mustBe(paramName, accepts, value === '' ? '' : raw);
      return value;
    },
  };
}

/** A specialty name or alias; an unknown one matches nothing (200, empty), it is not an error. */
export const specialty = text(`a specialty name of 1 to ${MAX_TEXT_CHARACTERS} characters, such as Cardiovascular Disease or cardiology`, true);

/** The start of a first or last name. */
export const name = text(`the start of a first or last name, 1 to ${MAX_TEXT_CHARACTERS} characters with a letter or digit`, true);

/** A facility type, or `hospital` for every hospital type. */
export const facilityType = text(`a facility type of 1 to ${MAX_TEXT_CHARACTERS} characters, such as hospital or Critical Access Hospital`, true);

/** Text the facility name contains. */
export const search = text(`text of 1 to ${MAX_TEXT_CHARACTERS} characters with a letter or digit`, true);

/** A 5-digit ZIP code filter (query string); absent means no filter. */
export const zipFilter = param('a 5-digit ZIP code', (raw) => (/^\d{5}$/.test(raw) ? raw : undefined), undefined as string | undefined, {
  type: 'string', pattern: '^[0-9]{5}$',
});

/** A boolean: true, false, 1 or 0, any case (decisions.md). */
export const boolean = param('true, false, 1 or 0', (raw) => {
  const value = raw.toLowerCase();
  return value === 'true' || value === '1' ? true : value === 'false' || value === '0' ? false : undefined;
}, undefined as boolean | undefined, { type: 'boolean' });

/** A CMS star rating bound, 1-5. */
export const minRating = param('an integer from 1 to 5', (raw) => (/^[1-5]$/.test(raw) ? Number(raw) : undefined), undefined as number | undefined, {
  type: 'integer', minimum: 1, maximum: 5,
});

/** The autocomplete text: required, 1-100 characters after trimming; any other text is fine (it may match nothing). */
export const autocompleteText = text(`search text of 1 to ${MAX_TEXT_CHARACTERS} characters`, false, true) as Param<string>;
