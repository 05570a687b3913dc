import { TVI_TIER_NAMES } from '../../core/tvi-tiers.ts';
import { notFound } from '../http/errors.ts';
import { envelope, pageWindow } from '../http/pagination.ts';
import * as param from '../http/params.ts';
import { ok, type Context, type HandlerResult, type NoParams } from '../http/route.ts';

/** The five tier names, most vulnerable first (decisions.md). */
export const TIER_NAMES = TVI_TIER_NAMES;

/** Path parameters of `tvi/{zip}/`. */
export const tviPath = { zip: param.zip };

/** A TVI tier, any case; read as upper case. */
const tier = param.param(`one of ${TIER_NAMES.join(', ')} (any case)`, (raw) => {
  const name = raw.toUpperCase();
  return (TIER_NAMES as readonly string[]).includes(name) ? name : undefined;
}, undefined, { type: 'string', enum: TIER_NAMES });

export const topVulnerableQuery = { state: param.state, tier, page: param.page, page_size: param.pageSize };

export const MAX_RANKING_LIMIT = 1000;
export const rankingsQuery = { limit: param.integer(1, MAX_RANKING_LIMIT, 100) };

/** `tvi/{zip}/`: the TVI record of one ZIP. */
export function getTvi({ params, queries }: Context<typeof tviPath, NoParams>): HandlerResult {
  const record = queries.tvi.byZip(params.zip);
  if (!record) throw notFound(`No TVI for ZIP code ${params.zip}`);
  return ok(record);
}

/** `tvi/top-vulnerable/`: a page of ZIPs, highest `tvi_score` first, ties by ZIP code. */
export function listTopVulnerable({ query, queries, url }: Context<NoParams, typeof topVulnerableQuery>): HandlerResult {
  const filter = { state: query.state, tier: query.tier };
  const count = queries.tvi.count(filter);
  const window = pageWindow(count, query.page, query.page_size);
  return ok(envelope(url, window, count, queries.tvi.page(filter, window.pageSize, window.offset)));
}

/** `tvi/rankings/`: the `limit` most vulnerable metro/micro areas and ZIPs, each ranked from 1. */
export function getTviRankings({ query, queries }: Context<NoParams, typeof rankingsQuery>): HandlerResult {
  return ok({ metros: queries.tvi.topMetros(query.limit), zip_codes: queries.tvi.topZips(query.limit) });
}
