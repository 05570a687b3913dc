import { ok, type Context, type HandlerResult, type NoParams } from '../http/route.ts';

/** `score-types/`: every score type by id. */
export function getScoreTypes({ queries }: Context<NoParams, NoParams>): HandlerResult {
  return ok(queries.scoreTypes.all.map(({ id, name, description }) => ({ id, name, description })));
}

/** `states/`: every state with scored ZIPs, by state code. */
export function getStates({ queries }: Context<NoParams, NoParams>): HandlerResult {
  return ok(queries.states);
}

/** `meta/`: the build id and time, the dataset, its sources with vintages and row counts, the reconciliation. */
export function getMeta({ queries }: Context<NoParams, NoParams>): HandlerResult {
  return ok(queries.meta);
}
