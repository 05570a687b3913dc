import { invalidParameter, notFound } from '../http/errors.ts';
import { arrayOf, ref } from '../http/json-schema.ts';
import { mustBe, type Param } from '../http/params.ts';
import { NO_PARAMS, ok, route, type HandlerResult, type NoParams, type Route } from '../http/route.ts';
import type { Context } from './context.ts';
import { scoreType } from './params.ts';
import { API_BASE } from './paths.ts';

export const MIN_COMPARED = 2;
export const MAX_COMPARED = 10;
const ACCEPTS = `${MIN_COMPARED} to ${MAX_COMPARED} distinct 5-digit ZIP codes separated by commas`;

/** `zips=10001,94110,60614`: required, 2-10 distinct ZIP codes, kept in the order given. */
const zipList: Param<string[]> = {
  accepts: ACCEPTS,
  required: true,
  schema: { type: 'string', pattern: `^[0-9]{5}(,[0-9]{5}){${MIN_COMPARED - 1},${MAX_COMPARED - 1}}$` },
  read(name, raw) {
    if (raw === undefined) throw invalidParameter(`${name} is required: give ${ACCEPTS}, e.g. ${name}=10001,94110`);
    const zips = raw.split(',');
    const valid =
      zips.length >= MIN_COMPARED &&
      zips.length <= MAX_COMPARED &&
      zips.every((z) => /^\d{5}$/.test(z)) &&
      new Set(zips).size === zips.length;
    if (!valid) throw mustBe(name, ACCEPTS, raw);
    return zips;
  },
};

const compareQuery = { zips: zipList, score_type: scoreType };

/**
 * `compare/?zips=...`: the score records of the ZIPs side by side, in the order given. All or nothing: a ZIP
 * without a score is a 404 naming every such ZIP, so a comparison never silently drops a column.
 */
function compareScores({ query, queries }: Context<NoParams, typeof compareQuery>): HandlerResult {
  const records = query.zips.map((zip) => queries.healthScores.byZip(zip, query.score_type));
  const missing = query.zips.filter((_, i) => records[i] === undefined);
  if (missing.length === 1) throw notFound(`No health score for ZIP code ${missing[0]}`);
  if (missing.length > 1) throw notFound(`No health score for ZIP codes ${missing.join(', ')}`);
  return ok(records);
}

export const routes: readonly Route[] = [
  route({
    path: `${API_BASE}compare/`,
    exported: { write: 'server', why: 'needs the ZIP codes to compare' },
    summary: 'The score records of 2 to 10 ZIP codes side by side, in the order given',
    tag: { name: 'Comparison', description: 'Score records of several ZIP codes side by side.' },
    pathParams: NO_PARAMS,
    query: compareQuery,
    response: {
      description: 'One score record per ZIP code, in the order of zips',
      schema: arrayOf(ref('HealthScoreRecord'), { minItems: 2, maxItems: 10 }),
      notFound: 'a ZIP code of zips has no score (the message names every such ZIP)',
    },
    handle: compareScores,
  }),
];
