import { TVI_TIER_NAMES } from '../../core/tvi-tiers.ts';
import { notFound } from '../http/errors.ts';
import { TviListEntry, TviRankings, TviRecord } from '../answers/tvi.ts';
import { withZipLookup } from '../answers/zip-lookup.ts';
import { ref, type JsonSchema } from '../http/json-schema.ts';
import { envelope, envelopeOf, page, pageSize, pageWindow } from '../http/pagination.ts';
import { integer, param } from '../http/params.ts';
import { type HandlerResult, NO_PARAMS, type NoParams, ok, ONCE, route, type Route } from '../http/route.ts';
import type { Context } from './context.ts';
import { sortParam, state, zip } from './params.ts';
import { TVI_OWN_ORDER, TVI_SORT_KEYS } from '../query/tvi.ts';
import { API_BASE } from './paths.ts';
import { answeringZipAliases } from './zip-lookup.ts';

const tag = {
  name: 'Transportation Vulnerability Index',
  description: 'The TVI per ZIP code, the most vulnerable ZIP codes, and metro areas and ZIP codes ranked by vulnerability.',
};

/** The five tier names, most vulnerable first (decisions.md). */
export const TIER_NAMES = TVI_TIER_NAMES;

/** Path parameters of `tvi/{zip}/`. */
const tviPath = { zip };

/** A TVI tier, any case; read as upper case. */
const tier = param(
  `one of ${TIER_NAMES.join(', ')} (any case)`,
  (raw) => {
    const name = raw.toUpperCase();
    return (TIER_NAMES as readonly string[]).includes(name) ? name : undefined;
  },
  undefined,
  { type: 'string', enum: TIER_NAMES },
);

const topVulnerableQuery = { state, tier, sort: sortParam(TVI_SORT_KEYS, '-tvi_score, most vulnerable first'), page, page_size: pageSize };

export const MAX_RANKING_LIMIT = 1000;
const rankingsQuery = { limit: integer(1, MAX_RANKING_LIMIT, 100) };

/** `tvi/{zip}/`: the TVI record of one ZIP. */
function getTvi({ params, queries }: Context<typeof tviPath, NoParams>): HandlerResult {
  const found = queries.tvi.byZip(params.zip);
  if (!found) throw notFound(`No TVI for ZIP code ${params.zip}`);
  return ok(found);
}

/** `tvi/top-vulnerable/`: a page of ranked ZIPs in the order of `sort` (default: highest `tvi_score` first), ties by ZIP code. */
function listTopVulnerable({ query, queries, url }: Context<NoParams, typeof topVulnerableQuery>): HandlerResult {
  const offset = (query.page - 1) * query.page_size;
  const { count, results } = queries.tvi.list(
    { state: query.state, tier: query.tier },
    query.sort ?? TVI_OWN_ORDER,
    offset,
    query.page_size,
  );
  return ok(envelope(url, pageWindow(count, query.page, query.page_size), count, results));
}

/** `tvi/rankings/`: the `limit` most vulnerable metro/micro areas and ZIPs, each ranked from 1. */
function getTviRankings({ query, queries }: Context<NoParams, typeof rankingsQuery>): HandlerResult {
  return ok({ metros: queries.tvi.topMetros(query.limit), zip_codes: queries.tvi.topZips(query.limit) });
}

/** The answers' shared schemas (openapi.json `components/schemas`). */
export const schemas: Record<string, JsonSchema> = {
  TviRecord: withZipLookup(TviRecord),
  TviListEntry,
  TviRankings,
};

export const routes: readonly Route[] = [
  route({
    path: `${API_BASE}tvi/top-vulnerable/`,
    exported: ONCE,
    summary: 'ZIP codes by Transportation Vulnerability Index, most vulnerable first (or sorted), filtered by state and tier',
    tag,
    pathParams: NO_PARAMS,
    query: topVulnerableQuery,
    response: {
      description: 'A page of TVI list entries, highest tvi_score first unless sort says otherwise, ties by ZIP code',
      schema: envelopeOf(ref('TviListEntry')),
    },
    handle: listTopVulnerable,
  }),
  route({
    path: `${API_BASE}tvi/rankings/`,
    exported: ONCE,
    summary: 'The metro/micro areas and ZIP codes most vulnerable by TVI, ranked from 1',
    tag,
    pathParams: NO_PARAMS,
    query: rankingsQuery,
    response: { description: 'Metro areas and ZIP codes, most vulnerable first', schema: ref('TviRankings') },
    handle: getTviRankings,
  }),
  route({
    path: `${API_BASE}tvi/:zip/`,
    exported: { write: 'per-key', keys: 'zips' },
    kind: 'lookup',
    summary: 'The Transportation Vulnerability Index of one ZIP code: score, tier and five sub-scores',
    tag,
    pathParams: tviPath,
    query: NO_PARAMS,
    response: { description: 'The TVI record', schema: ref('TviRecord'), notFound: 'no TVI for the ZIP code' },
    handle: answeringZipAliases(getTvi),
  }),
];
