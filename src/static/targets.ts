import { FixableError } from '../../core/errors.ts';
import { ALL_ROUTES } from '../api/index.ts';
import { API_BASE } from '../api/paths.ts';
import type { AccessTable } from '../auth/access.ts';
import { patternCovers } from '../auth/plans.ts';
import type { Route } from '../http/route.ts';
import type { Queries } from '../query/index.ts';
import { blogTime } from '../query/blog.ts';
import type { StaticKeyQueries } from '../query/static-keys.ts';

/** What the key lists of the export read: the build's queries, its key walks, and the time of the export (the blog). */
export interface KeySource {
  queries: Queries;
  keys: StaticKeyQueries;
  now: Date;
}

/**
 * One route as the static export writes it: once (no path parameter, default query), or once per key of
 * `keys` (the values of its one path parameter). Made from the route's own `exported` (src/http/route.ts).
 */
export interface StaticRoute {
  path: string;
  keys?: (source: KeySource) => Iterable<string | number>;
  /** How many keys, for the progress total without walking them (default: the length of the list). */
  count?: (source: KeySource) => number;
  /** Written only with `--providers`: four million profiles. */
  providers?: true;
  /** The file name of a folder path whatever `--index-name` says: the map's page is `index.html`, for static hosts to serve it as a page. */
  index?: string;
}

/** The key lists a route's `exported: { write: 'per-key', keys: NAME }` names: the values of its path parameter. */
const KEY_LISTS: Readonly<Record<string, Pick<StaticRoute, 'keys' | 'count'>>> = {
  zips: { keys: ({ keys }) => keys.zipCodes() },
  'facility-ids': { keys: ({ keys }) => keys.facilityIds() },
  npis: { keys: ({ keys }) => keys.providerNpis(), count: ({ keys }) => keys.providerCount() },
  'score-types': { keys: ({ queries }) => queries.scoreTypes.all.map((type) => type.slug) },
  'blog-slugs': {
    keys: ({ queries, now }) => {
      const time = blogTime(now);
      return queries.blog.page(time, queries.blog.count(time), 0).map((post) => post.slug);
    },
  },
};

/** A route's StaticExport as the export writes it, or null for a route left to the server. */
function staticRoute({ path, exported }: Route): StaticRoute | null {
  if (exported.write === 'server') return null;
  if (exported.write === 'once') return exported.index === undefined ? { path } : { path, index: exported.index };
  const list = KEY_LISTS[exported.keys];
  if (list === undefined) throw new Error(`${path} names the key list ${exported.keys}, which src/static/targets.ts does not have`);
  return { path, ...list, ...(exported.providers ? { providers: true } : {}) };
}

/**
 * Every answer the API gives without a query parameter, and the first page of each list at its default
 * parameters: the files of the static API, in the route table's order, the providers' profiles last (the
 * most, and optional). Each route says where it stands (`exported`), so a new one cannot be left out unseen.
 */
export const STATIC_ROUTES: readonly StaticRoute[] = ALL_ROUTES.map(staticRoute)
  .filter((route) => route !== null)
  .sort((a, b) => Number(a.providers === true) - Number(b.providers === true));

/** The routes the export leaves to `hcas serve`, and why: an answer that needs parameters, or is not the same for everyone. */
export const SERVER_ONLY: Readonly<Record<string, string>> = Object.fromEntries(
  ALL_ROUTES.flatMap(({ path, exported }) => (exported.write === 'server' ? [[path, exported.why]] : [])),
);

/** The request path of one answer: the route's path with its parameter replaced by the key. */
export function urlOf(routePath: string, key: string | number | undefined): string {
  if (key === undefined) return routePath;
  return routePath.replace(/:\w+/, encodeURIComponent(String(key)));
}

/**
 * The file of a request path, relative to the export's folder: a path ending in `/` is a folder whose
 * index document holds the answer (`api/v1/states/index.json`, what static hosts serve for `/api/v1/states/`);
 * a file name is kept (`api/v1/openapi.json`).
 */
export function fileOf(url: string, indexName: string): string {
  const relative = url.slice(1);
  return relative === '' || relative.endsWith('/') ? `${relative}${indexName}` : relative;
}

/**
 * Why the export leaves a route to the server under the plans in force, or undefined when callers without a
 * key may read it there anyway (an open route, or one of the anonymous tier's plan). Files are served to anyone
 * who reaches them, with no key asked and no quota counted, so a paid answer in the export is given away.
 */
export function paidReason(access: AccessTable, routePath: string): string | undefined {
  const route = access.of(routePath);
  if (route === undefined) throw new Error(`${routePath} is not in the route table of the plans' access`);
  const { planSet } = access;
  if (route.open || route.plans.has(planSet.anonymous.access.id)) return undefined;
  return `a paid endpoint (${route.cheapest?.name ?? 'no plan'} and up, ${planSet.name}): callers without a key get 403 from the server; --publish-paid-answers would give it to anyone who can reach the files`;
}

/**
 * The routes `--endpoints` names, in the plan files' pattern language (`widget-score/*`, `health-scores/:zip/`,
 * `/widget/*`; relative to /api/v1/ unless they start with /), or as the API root and openapi.json write path
 * parameters (`health-scores/{zip}/`). A pattern that names no route the export writes is refused, saying why
 * (the route is left to the server, or needs --providers).
 */
export function endpointFilter(patterns: readonly string[], providers: boolean): (routePath: string) => boolean {
  const planPatterns = patterns.map(planPattern);
  const covers = (pattern: string, routePath: string) => patternCovers(pattern, routePath, API_BASE);
  for (const [i, pattern] of planPatterns.entries()) {
    const written = STATIC_ROUTES.filter((route) => covers(pattern, route.path));
    if (written.some((route) => providers || !route.providers)) continue;
    const shown = patterns[i];
    if (written.length > 0) throw new FixableError(`--endpoints ${shown} names providers' profiles alone: add --providers`);
    const left = Object.entries(SERVER_ONLY).find(([routePath]) => covers(pattern, routePath));
    throw new FixableError(
      left
        ? `--endpoints ${shown} names no route the export writes: ${left[0]} is left to the server (${left[1]})`
        : `--endpoints ${shown} names no route: give route paths relative to ${API_BASE}, such as widget-score/* or health-scores/{zip}/ (hcas get /api/v1/ lists them)`,
    );
  }
  return (routePath) => planPatterns.some((pattern) => covers(pattern, routePath));
}

/** A route pattern as the plan files write it: `{zip}` (the API root's and openapi.json's way) becomes `:zip`. */
function planPattern(pattern: string): string {
  return pattern.replace(/\{(\w+)\}/g, ':$1');
}

/**
 * True for a route the export writes once at its default parameters although it takes some (a list's first
 * page, the GeoJSON): `--no-lists` leaves those out for hosts that ignore query strings, which would answer
 * `?page=2` or `?state=NY` with the first page of everything.
 */
export function takesQuery(routePath: string): boolean {
  const route = ALL_ROUTES.find((candidate) => candidate.path === routePath);
  if (route === undefined) throw new Error(`${routePath} is not in the route table`);
  return Object.keys(route.query).length > 0;
}
