import { ok, type Context, type HandlerResult, type NoParams } from '../http/route.ts';

/** `score-types/`: every score type by id. */
export function getScoreTypes({ queries }: Context<NoParams, NoParams>): HandlerResult {
  return ok(queries.scoreTypes.all.map(({ id, name, description }) => ({ id, name, description })));
}

/** `states/`: every state with scored ZIPs, by state code. */
export function getStates({ queries }: Context<NoParams, NoParams>): HandlerResult {
  return ok(queries.states);
}

/** How long a `meta/` answer with the server's live state may be cached: the state changes at any time. */
const LIVE_STATUS_MS = 1_000;

/**
 * `meta/`: the build id and time, the dataset, its sources with vintages and row counts, the reconciliation;
 * from a server, also its live state (`rate_limits`: backend and whether it is degraded).
 */
export function getMeta({ queries, status, now }: Context<NoParams, NoParams>): HandlerResult {
  if (!status) return ok(queries.meta);
  return { status: 200, body: { ...queries.meta, ...status() }, validUntil: now().getTime() + LIVE_STATUS_MS };
}
