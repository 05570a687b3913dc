import { searchKey } from '../../core/search-key.ts';
import { STATE_NAMES } from '../../core/states.ts';
import { invalidParameter } from '../http/errors.ts';
import { mustBe, param, type Param } from '../http/params.ts';
import { didYouMean, type Candidate } from '../http/suggest.ts';
import type { SortOrder } from '../query/list-order.ts';
import type { Queries } from '../query/index.ts';

/**
 * The parameters several endpoint groups share. A parameter only one group takes is defined in that
 * group's module.
 */

/** Longest search text any text parameter accepts, in characters (code points). */
export const MAX_TEXT_CHARACTERS = 100;

const ZIP_ACCEPTS = 'a 5-digit ZIP code (ZIP+4 such as 10001-1234 is read by its first five digits)';
const ZIP_SCHEMA = { type: 'string', pattern: '^[0-9]{5}(-[0-9]{4})?$' };

/**
 * A ZIP code as people write it: five digits, or ZIP+4 read by its first five (the canonical spelling, so
 * both share one cached answer). A city name gets a 400 that names the endpoints taking one.
 */
function zipParam<T extends string | undefined>(fallback: T): Param<string | T> {
  return {
    accepts: ZIP_ACCEPTS,
    schema: ZIP_SCHEMA,
    read(name, raw) {
      if (raw === undefined) return fallback;
      const five = /^(\d{5})(?:-\d{4})?$/.exec(raw)?.[1];
      if (five !== undefined) return five;
      if (/\p{L}{2}/u.test(raw)) {
        const q = encodeURIComponent(raw.trim());
        throw invalidParameter(
          `${mustBe(name, ZIP_ACCEPTS, raw).message}; for the ZIP codes of a place, ask autocomplete/?q=${q} or health-scores/?city=${q} (hcas autocomplete, hcas scores --city)`,
        );
      }
      throw mustBe(name, ZIP_ACCEPTS, raw);
    },
  };
}

/** A ZIP code (path segment). */
export const zip = zipParam('');

/** A ZIP code filter (query string); absent means no filter. */
export const zipFilter = zipParam(undefined);

const STATE_ACCEPTS = 'a two-letter USPS state code such as NY (states/ lists those with scored ZIP codes)';

/** Every state code and name, as `state` suggests them: a name, or a code a letter away, points at the code. */
const STATE_CANDIDATES: readonly Candidate[] = [
  ...Object.keys(STATE_NAMES).map((code) => ({ key: code.toLowerCase(), shown: code })),
  ...Object.entries(STATE_NAMES).map(([code, name]) => ({ key: searchKey(name), shown: code })),
];

/**
 * A two-letter USPS state or territory code (core/states.ts, or one the build has), any case; read as upper
 * case. A state without data matches nothing; anything else is a 400 that names the code it may mean.
 */
export const state: Param<string | undefined, Queries> = {
  accepts: STATE_ACCEPTS,
  schema: { type: 'string', pattern: '^[A-Za-z]{2}$', description: 'USPS code, any case: NY, ny' },
  read(name, raw, queries) {
    if (raw === undefined) return undefined;
    const code = raw.trim().toUpperCase();
    if (Object.hasOwn(STATE_NAMES, code) || queries.states.some((s) => s.state_code === code)) return code;
    throw mustBe(name, STATE_ACCEPTS, raw, didYouMean(/^[A-Z]{2}$/.test(code) ? code.toLowerCase() : searchKey(raw), STATE_CANDIDATES));
  },
};

/**
 * A city name, matched whole on its search key (core/search-key.ts: any case, accents and punctuation), so
 * `New York`, `NEW YORK` and `new-york` are one request: one cache entry and one ETag, written `new york`.
 */
export const city = param(
  'a city name of 1 to 100 characters',
  (raw) => {
    const name = raw.trim();
    return name.length >= 1 && name.length <= 100 ? name : undefined;
  },
  undefined,
  { type: 'string', minLength: 1, maxLength: 100 },
  (name) => (name === undefined ? '' : searchKey(name) || name),
);

/** A score type id or slug; defaults to the overall score (id 1). */
export const scoreType: Param<number, Queries> = {
  accepts: 'a score type id from 1 to 11 or its slug (see score-types/)',
  schema: {
    anyOf: [
      { type: 'integer', minimum: 1, maximum: 11 },
      { type: 'string', pattern: '^[a-z0-9]+(-[a-z0-9]+)*$' },
    ],
    default: 1,
  },
  // The slug, the spelling links show (`score_type=asthma`), whether the id or the slug was sent.
  canonical: (id, queries) => queries.scoreTypes.all.find((type) => type.id === id)?.slug ?? String(id),
  read(name, raw, queries) {
    if (raw === undefined) return queries.scoreTypes.overall.id;
    const type = queries.scoreTypes.find(raw);
    if (type) return type.id;
    const ids = queries.scoreTypes.all.map((t) => t.id);
    const slugs = queries.scoreTypes.all.map((t) => t.slug).join(', ');
    // Slugs and names alike point at the slug: `diabetes` at type-1-diabetes and type-2-diabetes, `astma` at asthma.
    const candidates = queries.scoreTypes.all.flatMap((t) => [
      { key: t.slug.replace(/-/g, ' '), shown: t.slug },
      { key: searchKey(t.name).replace(/ score$/, ''), shown: t.slug },
    ]);
    const hint = didYouMean(searchKey(raw).replace(/ score$/, ''), candidates);
    throw mustBe(name, `a score type id from ${Math.min(...ids)} to ${Math.max(...ids)} or one of ${slugs}`, raw, hint);
  },
};

/**
 * Search text: 1-100 characters after trimming; with `needsWord`, at least one letter or digit too. Absent:
 * undefined, or a 400 when `required`. A value of only spaces is reported as empty. `canonical` is the one
 * spelling of what the text means to its query (the search key it is matched on), so spellings that differ
 * only in case or punctuation share one cache entry and one ETag; default: the trimmed text.
 */
export function text(
  accepts: string,
  needsWord: boolean,
  required = false,
  canonical?: (value: string) => string,
): Param<string | undefined> {
  return {
    accepts,
    schema: { type: 'string', minLength: 1, maxLength: MAX_TEXT_CHARACTERS },
    required,
    ...(canonical && { canonical: (value: string | undefined) => canonical(value!) }),
    read(paramName, raw) {
      if (raw === undefined) {
        if (required) throw invalidParameter(`${paramName} must be ${accepts}; it is missing (for example ?${paramName}=new+york)`);
        return undefined;
      }
      const value = raw.trim();
      const characters = [...value].length;
      if (characters < 1 || characters > MAX_TEXT_CHARACTERS || (needsWord && searchKey(value) === ''))
        throw mustBe(paramName, accepts, value === '' ? '' : raw);
      return value;
    },
  };
}

/** What a value of the build's own set is checked against: its keys, the candidates to suggest, and what to say. */
export interface BuildValues {
  /** True when a value's key is one of the build's. */
  has(key: string, queries: Queries): boolean;
  /** The values a refused one may mean, likeliest first. */
  candidates(queries: Queries): readonly Candidate[];
  /** What the parameter accepts in this build, for the 400 (the values, or where they are). */
  accepts(queries: Queries): string;
}

/**
 * Search text that must name one of the build's values (a specialty, a facility type), matched on its key
 * (`keyOf`: any case, accents and punctuation); any other value is a 400 that says what the parameter
 * accepts and names the values it may mean. `accepts` is the build-independent wording (OpenAPI, docs).
 */
export function buildValue(accepts: string, keyOf: (value: string) => string, values: BuildValues): Param<string | undefined, Queries> {
  const words = text(accepts, true, false, keyOf);
  return {
    accepts,
    schema: words.schema,
    canonical: (value) => (value === undefined ? '' : keyOf(value)),
    read(name, raw, queries) {
      const value = words.read(name, raw, undefined);
      if (value === undefined) return undefined;
      const key = keyOf(value);
      if (values.has(key, queries)) return value;
      throw mustBe(name, values.accepts(queries), raw!, didYouMean(key, values.candidates(queries)));
    },
  };
}

/** Text with its ASCII capitals lower-cased: the one spelling of text matched case-insensitively but not by search key. */
export function asciiLowerCase(value: string): string {
  return value.replace(/[A-Z]+/g, (capitals) => capitals.toLowerCase());
}

/**
 * The `sort` of a list: one of its sort keys (field names of its records), ascending, or with `-` before it
 * descending (`-healthscore`: highest first). Ties always go by the list's own order, so every page is
 * deterministic. Absent: undefined, the list's own order (which may depend on its other parameters).
 */
export function sortParam(keys: readonly string[], ownOrder: string): Param<SortOrder | undefined> {
  const accepts = `one of ${keys.join(', ')}, with - before it for descending (-${keys[1] ?? keys[0]}); default: ${ownOrder}`;
  return {
    accepts,
    schema: { type: 'string', enum: keys.flatMap((key) => [key, `-${key}`]), description: `Default: ${ownOrder}; ties by that order.` },
    canonical: (sort) => (sort === undefined ? '' : `${sort.descending ? '-' : ''}${sort.key}`),
    read(name, raw) {
      if (raw === undefined) return undefined;
      const descending = raw.startsWith('-');
      const key = descending ? raw.slice(1) : raw;
      if (keys.includes(key)) return { key, descending };
      const hint = didYouMean(
        searchKey(key),
        keys.map((k) => ({ key: searchKey(k), shown: `${descending ? '-' : ''}${k}` })),
      );
      throw mustBe(name, accepts, raw, hint);
    },
  };
}

/** The most miles `radius` accepts (decisions.md, nearby). */
export const MAX_RADIUS_MILES = 100;

/** The radius of a search when none is given, in miles (decisions.md, nearby). */
export const DEFAULT_RADIUS_MILES = 10;

/** A search radius in miles: a decimal number greater than 0 and at most 100; `fallback` when absent. */
export function radiusMiles<T extends number | undefined>(fallback: T): Param<number | T> {
  return param<number | T>(
    `a number of miles greater than 0 and at most ${MAX_RADIUS_MILES}`,
    (raw) => {
      const value = /^\d{1,6}(\.\d{1,6})?$|^\.\d{1,6}$/.test(raw) ? Number(raw) : NaN;
      return value > 0 && value <= MAX_RADIUS_MILES ? value : undefined;
    },
    fallback,
    { type: 'number', exclusiveMinimum: 0, maximum: MAX_RADIUS_MILES, default: DEFAULT_RADIUS_MILES },
  );
}
