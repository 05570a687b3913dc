import { invalidParameter } from './errors.ts';
import type { JsonSchema } from './json-schema.ts';

/**
 * One parameter (path segment or query string): what it accepts, in words for errors and docs, and how to
 * read it. `read` gets the raw text (undefined when absent) and the data of the build being served (a
 * parameter may check a value against it, e.g. a score type), and returns the value or throws a 400.
 */
export interface Param<T, D = unknown> {
  readonly accepts: string;
  /** The same constraints as JSON Schema, for openapi.json. */
  readonly schema?: JsonSchema;
  /** A query parameter without a default (path parameters always are). */
  readonly required?: boolean;
  read(name: string, raw: string | undefined, data: D): T;
  /**
   * The one spelling of a value read (`NY` for `ny`, `10` for `10.0`): the response cache keys on it and
   * pagination links use it. Default: the value as text (arrays joined with commas).
   */
  canonical?(value: T, data: D): string;
}

// biome-ignore lint/suspicious/noExplicitAny: a spec may read any kind of build data; handlers see their own type.
export type ParamSpecs = Record<string, Param<unknown, any>>;

/** The values of a set of parameters, typed from their specs. */
// biome-ignore lint/suspicious/noExplicitAny: matches a Param of any build data.
export type ParamValues<S extends ParamSpecs> = { [K in keyof S]: S[K] extends Param<infer T, any> ? T : never };

/**
 * The query specs of a static file: any query string is accepted and ignored (pages add cache busters such
 * as `widget.js?v=2`). Every other route rejects parameters it does not know.
 */
export const IGNORED_QUERY: ParamSpecs = Object.freeze({});

/**
 * The 400 for a value outside what the parameter accepts: `page_size must be an integer from 1 to 100, got 500`;
 * `hint` follows it (` (did you mean cardiology?)`, suggest.ts).
 */
export function mustBe(name: string, accepts: string, raw: string, hint = ''): Error {
  const shown = raw === '' ? 'an empty value' : raw.length > 40 ? `${raw.slice(0, 40)}...` : raw;
  return invalidParameter(`${name} must be ${accepts}, got ${shown}${hint}`);
}

/** The canonical text of a parameter's value (see Param.canonical). */
export function canonicalText<T, D>(spec: Param<T, D>, value: T, data: D): string {
  if (spec.canonical) return spec.canonical(value, data);
  return Array.isArray(value) ? value.join(',') : String(value);
}

/** A parameter from what it accepts (words and schema), a parser that returns undefined for a bad value, and its default. */
export function param<T, D = unknown>(
  accepts: string,
  parse: (raw: string, data: D) => T | undefined,
  fallback: T,
  schema?: JsonSchema,
  canonical?: (value: T, data: D) => string,
): Param<T, D> {
  return {
    accepts,
    schema,
    canonical,
    read(name, raw, data) {
      if (raw === undefined) return fallback;
      const value = parse(raw, data);
      if (value === undefined) throw mustBe(name, accepts, raw);
      return value;
    },
  };
}

/**
 * Digits of an integer written the one way: no sign on a positive number, no leading zero (`0`, `7`, `-3`;
 * never `+0`, `00`, `007`, `-0`). Each value has one spelling, so equivalent URLs cannot multiply.
 */
export const INTEGER_TEXT = /^(?:0|-?[1-9]\d{0,14})$/;

/** An integer from `min` to `max` inclusive, written plainly (INTEGER_TEXT); `fallback` when absent. */
export function integer<T extends number | undefined>(min: number, max: number, fallback: T): Param<number | T> {
  const schema = { type: 'integer', minimum: min, maximum: max, ...(fallback === undefined ? {} : { default: fallback }) };
  return plainInteger(`an integer from ${min} to ${max}`, (value) => value >= min && value <= max, fallback, schema);
}

/**
 * An integer parameter that `accepts` the values `valid` allows, in their one spelling: `+0`, `00` or `007`
 * get a 400 that shows how to write them (`min_score must be written 0, without a sign or leading zeros`).
 */
export function plainInteger<T>(accepts: string, valid: (value: number) => boolean, fallback: T, schema?: JsonSchema): Param<number | T> {
  return {
    accepts,
    schema,
    read(name, raw) {
      if (raw === undefined) return fallback;
      if (INTEGER_TEXT.test(raw)) {
        const value = Number(raw);
        if (valid(value)) return value;
      } else if (/^[+-]?\d{1,16}$/.test(raw) && valid(Number(raw))) {
        throw invalidParameter(`${name} must be written ${Number(raw)}, without a sign or leading zeros, got ${raw}`);
      }
      throw mustBe(name, accepts, raw);
    },
  };
}

/** A boolean: true, false, 1 or 0, any case (decisions.md); absent means no filter. */
export const boolean = param(
  'true, false, 1 or 0',
  (raw) => {
    const value = raw.toLowerCase();
    return value === 'true' || value === '1' ? true : value === 'false' || value === '0' ? false : undefined;
  },
  undefined as boolean | undefined,
  { type: 'boolean' },
);

/**
 * Reads a request's query string against a route's specs. Strict: an unknown or repeated parameter is a 400
 * naming what the route accepts, so a typo (`min_socre`) never silently returns unfiltered data.
 */
export function readQuery<S extends ParamSpecs>(specs: S, search: URLSearchParams, data: unknown, routePath: string): ParamValues<S> {
  if (specs === IGNORED_QUERY) return {} as ParamValues<S>;
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
  return readAll(specs, (name) => search.get(name) ?? undefined, data);
}

/** Reads the path parameters captured by the router (already percent-decoded). */
export function readPath<S extends ParamSpecs>(specs: S, captured: Record<string, string>, data: unknown): ParamValues<S> {
  return readAll(specs, (name) => captured[name], data);
}

function readAll<S extends ParamSpecs>(specs: S, raw: (name: string) => string | undefined, data: unknown): ParamValues<S> {
  const values: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(specs)) values[name] = spec.read(name, raw(name), data);
  return values as ParamValues<S>;
}
