import { Meta, ScoreType, StateRecord } from '../answers/reference.ts';
import { arrayOf, ref, type JsonSchema } from '../http/json-schema.ts';
import { type HandlerResult, NO_PARAMS, type NoParams, ok, ONCE, route, type Route, type RouteTag } from '../http/route.ts';
import type { Context } from './context.ts';
import { API_BASE } from './paths.ts';

/** The reference group: score types, states, the dataset build and this API's own description. */
export const REFERENCE_TAG: RouteTag = { name: 'Reference', description: 'Score types, states and the dataset build.' };
const tag = REFERENCE_TAG;

/** `score-types/`: every score type by id. */
function getScoreTypes({ queries }: Context<NoParams, NoParams>): HandlerResult {
  return ok(queries.scoreTypes.all.map(({ id, name, description }) => ({ id, name, description })));
}

/** `states/`: every state with scored ZIPs, by state code. */
function getStates({ queries }: Context<NoParams, NoParams>): HandlerResult {
  return ok(queries.states);
}

/** How long a `meta/` answer with the server's live state may be cached: the state changes at any time. */
const LIVE_STATUS_MS = 1_000;

/**
 * `meta/`: the build id and time, the dataset, its sources with vintages and row counts, the reconciliation,
 * what the scores rest on and the validation report;
 * from a server, also its live state (`rate_limits`: backend and whether it is degraded).
 */
function getMeta({ queries, status, now }: Context<NoParams, NoParams>): HandlerResult {
  if (!status) return ok(queries.meta);
  return { status: 200, body: { ...queries.meta, ...status() }, validUntil: now().getTime() + LIVE_STATUS_MS };
}

/** The answers' shared schemas (openapi.json `components/schemas`). */
export const schemas: Record<string, JsonSchema> = { ScoreType, StateRecord, Meta };

export const routes: readonly Route[] = [
  route({
    path: `${API_BASE}score-types/`,
    exported: ONCE,
    kind: 'lookup',
    summary: 'The 11 score types: id, name, description',
    tag,
    pathParams: NO_PARAMS,
    query: NO_PARAMS,
    response: { description: 'Every score type', schema: arrayOf(ref('ScoreType')) },
    handle: getScoreTypes,
  }),
  route({
    path: `${API_BASE}states/`,
    exported: ONCE,
    kind: 'lookup',
    summary: 'Every state with scored ZIP codes, its ZIP count and average overall score',
    tag,
    pathParams: NO_PARAMS,
    query: NO_PARAMS,
    response: { description: 'Every state with scored ZIP codes', schema: arrayOf(ref('StateRecord')) },
    handle: getStates,
  }),
  route({
    path: `${API_BASE}meta/`,
    exported: { write: 'server', why: "the server's live state (its rate-limit backend and health) is part of the answer" },
    kind: 'lookup',
    summary: 'The dataset build: id, time, sources with vintages and row counts, reconciliation',
    tag,
    pathParams: NO_PARAMS,
    query: NO_PARAMS,
    response: { description: 'The dataset build', schema: ref('Meta') },
    handle: getMeta,
  }),
];
