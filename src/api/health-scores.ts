import { invalidParameter, notFound } from '../http/errors.ts';
import { envelope, pageWindow } from '../http/pagination.ts';
import * as param from '../http/params.ts';
import { ok, type Context, type HandlerResult, type NoParams } from '../http/route.ts';

/** Path parameters of every `health-scores/{zip}/...` endpoint. */
export const zipPath = { zip: param.zip };

export const listQuery = {
  state: param.state,
  city: param.city,
  min_score: param.score,
  max_score: param.score,
  score_type: param.scoreType,
  page: param.page,
  page_size: param.pageSize,
};

/** `health-scores/`: a page of records of one score type, filtered, ordered by ZIP code ascending. */
export function listHealthScores({ query, queries, url }: Context<NoParams, typeof listQuery>): HandlerResult {
  if (query.min_score !== undefined && query.max_score !== undefined && query.min_score > query.max_score) {
    throw invalidParameter(`min_score must be at most max_score, got min_score ${query.min_score} and max_score ${query.max_score}`);
  }
  const filter = {
    scoreTypeId: query.score_type,
    state: query.state,
    city: query.city,
    minScore: query.min_score,
    maxScore: query.max_score,
  };
  const count = queries.healthScores.count(filter);
  const window = pageWindow(count, query.page, query.page_size);
  return ok(envelope(url, window, count, queries.healthScores.page(filter, window.pageSize, window.offset)));
}

/** `health-scores/{zip}/`: the overall record of one ZIP. */
export function getHealthScore({ params, queries }: Context<typeof zipPath, NoParams>): HandlerResult {
  const record = queries.healthScores.byZip(params.zip, queries.scoreTypes.overall.id);
  if (!record) throw noScore(params.zip);
  return ok(record);
}

/** `health-scores/{zip}/all-scores/`: one summary per score type, in score type id order. */
export function getAllScores({ params, queries }: Context<typeof zipPath, NoParams>): HandlerResult {
  const summaries = queries.healthScores.allScores(params.zip);
  if (summaries.length === 0) throw noScore(params.zip);
  return ok(summaries);
}

/** The 404 of a ZIP without a score; the wording is part of the interface specification (section 7). */
export function noScore(zipCode: string): Error {
  return notFound(`No health score for ZIP code ${zipCode}`);
}
