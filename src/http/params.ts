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

/** The 400 for a value outside what the parameter accepts: `page_size must be an integer from 1 to 100, got 500`. */
export function mustBe(name: string, accepts: string, raw: string): Error {
  const shown = raw === '' ? 'an empty value' : raw.length > 40 ? `${raw.slice(0, 40)}...` : raw;
  return invalidParameter(`${name} must be ${accepts}, got ${shown}`);
}

/** A parameter from what it accepts (words and schema), a parser that returns undefined for a bad value, and its default. */
export function param<T, D = unknown>(accepts: string, parse: (raw: string, data: D) => T | undefined, fallback: T, schema?: JsonSchema): Param<T, D> {
  return {
    accepts,
    schema,
    read(name, raw, data) {
      if (raw === undefined) return fallback;
      const value = parse(raw, data);
      if (value === undefined) throw mustBe(name, accepts, raw);
      return value;
    },
  };
}

/** An integer from `min` to `max` inclusive; `fallback` when absent. */
export function integer<T extends number | undefined>(min: number, max: number, fallback: T): Param<number | T> {
  const schema = { type: 'integer', minimum: min, maximum: max, ...(fallback === undefined ? {} : { default: fallback }) };
  return param<number | T>(`an integer from ${min} to ${max}`, (raw) => {
    const value = /^[+-]?\d{1,15}$/.test(raw) ? Number(raw) : NaN;
    return value >= min && value <= max ? value : undefined;
  }, fallback, schema);
}

/** A boolean: true, false, 1 or 0, any case (decisions.md); absent means no filter. */
export const boolean = param('true, false, 1 or 0', (raw) => {
  const value = raw.toLowerCase();
  return value === 'true' || value === '1' ? true : value === 'false' || value === '0' ? false : undefined;
}, undefined as boolean | undefined, { type: 'boolean' });

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
