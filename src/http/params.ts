import type { Queries } from '../query/index.ts';
import { invalidParameter } from './errors.ts';
import type { JsonSchema } from './openapi.ts';

/**
 * One parameter (path segment or query string): what it accepts, in words for errors and docs, and how to
 * read it. `read` gets the raw text (undefined when absent) and returns the value or throws a 400.
 */
export interface Param<T> {
  readonly accepts: string;
  /** The same constraints as JSON Schema, for openapi.json. */
  readonly schema?: JsonSchema;
  /** A query parameter without a default (path parameters always are). */
  readonly required?: boolean;
  read(name: string, raw: string | undefined, queries: Queries): T;
}

export type ParamSpecs = Record<string, Param<unknown>>;

/** The values of a set of parameters, typed from their specs. */
export type ParamValues<S extends ParamSpecs> = { [K in keyof S]: S[K] extends Param<infer T> ? T : never };

/** The 400 for a value outside what the parameter accepts: `page_size must be an integer from 1 to 100, got 500`. */
export function mustBe(name: string, accepts: string, raw: string): Error {
  const shown = raw === '' ? 'an empty value' : raw.length > 40 ? `${raw.slice(0, 40)}...` : raw;
  return invalidParameter(`${name} must be ${accepts}, got ${shown}`);
}

/** A parameter from what it accepts (words and schema), a parser that returns undefined for a bad value, and its default. */
export function param<T>(accepts: string, parse: (raw: string, queries: Queries) => T | undefined, fallback: T, schema?: JsonSchema): Param<T> {
  return {
    accepts,
    schema,
    read(name, raw, queries) {
      if (raw === undefined) return fallback;
      const value = parse(raw, queries);
      if (value === undefined) throw mustBe(name, accepts, raw);
      return value;
    },
  };
}

/** An integer from `min` to `max` inclusive; `fallback` when absent. */
export function integer<T extends number | undefined>(min: number, max: number, fallback: T): Param<number | T> {
  return param<number | T>(`an integer from ${min} to ${max}`, (raw) => {
    const value = /^[+-]?\d{1,15}$/.test(raw) ? Number(raw) : NaN;
    return value >= min && value <= max ? value : undefined;
  }, fallback, { type: 'integer', minimum: min, maximum: max, ...(fallback === undefined ? {} : { default: fallback }) });
}

/** A 5-digit ZIP code (path segment). */
export const zip = param('a 5-digit ZIP code', (raw) => (/^\d{5}$/.test(raw) ? raw : undefined), '', { type: 'string', pattern: '^[0-9]{5}$' });

/** A two-letter state code, any case; read as upper case. An unknown but well-formed code matches nothing. */
export const state = param('a two-letter state code such as NY', (raw) => (/^[A-Za-z]{2}$/.test(raw) ? raw.toUpperCase() : undefined), undefined, { type: 'string', pattern: '^[A-Za-z]{2}$' });

/** A city name, matched case-insensitively and exactly; surrounding spaces are ignored. */
export const city = param('a city name of 1 to 100 characters', (raw) => {
  const name = raw.trim();
  return name.length >= 1 && name.length <= 100 ? name : undefined;
}, undefined, { type: 'string', minLength: 1, maxLength: 100 });

/** A score 0-100, inclusive bound of a range filter. */
export const score = integer(0, 100, undefined);

/** A score type id or slug; defaults to the overall score (id 1). */
export const scoreType: Param<number> = {
  accepts: 'a score type id from 1 to 11 or its slug (see score-types/)',
  schema: { anyOf: [{ type: 'integer', minimum: 1, maximum: 11 }, { type: 'string', pattern: '^[a-z0-9]+(-[a-z0-9]+)*$' }], default: 1 },
  read(name, raw, queries) {
    if (raw === undefined) return queries.scoreTypes.overall.id;
    const type = queries.scoreTypes.find(raw);
    if (type) return type.id;
    const ids = queries.scoreTypes.all.map((t) => t.id);
    const slugs = queries.scoreTypes.all.map((t) => t.slug).join(', ');
    throw mustBe(name, `a score type id from ${Math.min(...ids)} to ${Math.max(...ids)} or one of ${slugs}`, raw);
  },
};

/** A page number from 1; a page past the last one is a 404, not a 400 (decisions.md). */
export const page = param('an integer of 1 or more', (raw) => (/^\d+$/.test(raw) && Number(raw) >= 1 ? Number(raw) : undefined), 1, { type: 'integer', minimum: 1, default: 1 });

export const MAX_PAGE_SIZE = 100;
export const DEFAULT_PAGE_SIZE = 20;

/** Records per page, 1-100, default 20. */
export const pageSize = integer(1, MAX_PAGE_SIZE, DEFAULT_PAGE_SIZE);

export const MAX_RADIUS_MILES = 100;

/** Search radius in miles: a decimal number greater than 0 and at most 100, default 10. */
export const radiusMiles = param(`a number of miles greater than 0 and at most ${MAX_RADIUS_MILES}`, (raw) => {
  const value = /^\d{1,6}(\.\d{1,6})?$|^\.\d{1,6}$/.test(raw) ? Number(raw) : NaN;
  return value > 0 && value <= MAX_RADIUS_MILES ? value : undefined;
}, 10, { type: 'number', exclusiveMinimum: 0, maximum: MAX_RADIUS_MILES, default: 10 });

/** How many nearby ZIPs to list: 1-50, default 10. */
export const nearbyLimit = integer(1, 50, 10);

/**
 * Reads a request's query string against a route's specs. Strict: an unknown or repeated parameter is a 400
 * naming what the route accepts, so a typo (`min_socre`) never silently returns unfiltered data.
 */
export function readQuery<S extends ParamSpecs>(specs: S, search: URLSearchParams, queries: Queries, routePath: string): ParamValues<S> {
  const seen = new Set<string>();
  for (const name of search.keys()) {
    if (!Object.hasOwn(specs, name)) {
      const names = Object.keys(specs);
      const accepted = names.length === 0 ? 'takes no query parameters' : `accepts ${names.join(', ')}`;
      throw invalidParameter(`unknown parameter ${name}: ${routePath} ${accepted}`);
    }
    if (seen.has(name)) throw invalidParameter(`${name} is given more than once; give it once`);
    seen.add(name);
  }
  return readAll(specs, (name) => search.get(name) ?? undefined, queries);
}

/** Reads the path parameters captured by the router (already percent-decoded). */
export function readPath<S extends ParamSpecs>(specs: S, captured: Record<string, string>, queries: Queries): ParamValues<S> {
  return readAll(specs, (name) => captured[name], queries);
}

function readAll<S extends ParamSpecs>(specs: S, raw: (name: string) => string | undefined, queries: Queries): ParamValues<S> {
  const values: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(specs)) values[name] = spec.read(name, raw(name), queries);
  return values as ParamValues<S>;
}
