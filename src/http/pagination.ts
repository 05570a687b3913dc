import { notFound } from './errors.ts';
import { record, type JsonSchema } from './json-schema.ts';
import { integer, plainInteger } from './params.ts';

export const MAX_PAGE_SIZE = 100;
export const DEFAULT_PAGE_SIZE = 20;

/** A page number from 1, written plainly (`2`, not `02`); a page past the last one is a 404, not a 400 (decisions.md). */
export const page = plainInteger('an integer of 1 or more', (value) => value >= 1, 1, { type: 'integer', minimum: 1, default: 1 });

/** Records per page, 1-100, default 20. */
export const pageSize = integer(1, MAX_PAGE_SIZE, DEFAULT_PAGE_SIZE);

/** The pagination envelope (interface specification 2.1). */
export interface Envelope<T> {
  count: number;
  next: string | null;
  previous: string | null;
  results: T[];
}

/** A page of a list: which records to fetch. */
export interface PageWindow {
  page: number;
  pageSize: number;
  offset: number;
}

/**
 * The window of `page` in a list of `count` records; a page past the last is a 404 (decisions.md).
 * An empty list still has page 1, so a filter that matches nothing is a 200 with no results.
 */
export function pageWindow(count: number, page: number, pageSize: number): PageWindow {
  const lastPage = Math.max(1, Math.ceil(count / pageSize));
  if (page > lastPage) {
    const pages = lastPage === 1 ? '1 page' : `${lastPage} pages`;
    throw notFound(`page ${page} does not exist: ${count} matching records make ${pages} of ${pageSize}`);
  }
  return { page, pageSize, offset: (page - 1) * pageSize };
}

/** The envelope of one page, with `next`/`previous` as relative links that keep every other parameter. */
export function envelope<T>(url: { path: string; search: URLSearchParams }, window: PageWindow, count: number, results: T[]): Envelope<T> {
  const link = (page: number) => {
    const search = new URLSearchParams(url.search);
    search.set('page', String(page));
    return `${url.path}?${search}`;
  };
  return {
    count,
    next: window.offset + results.length < count ? link(window.page + 1) : null,
    previous: window.page > 1 ? link(window.page - 1) : null,
    results,
  };
}

const link: JsonSchema = {
  type: ['string', 'null'],
  description: 'Relative link that keeps every other parameter; null when there is none.',
};

/** The schema of the pagination envelope (interface specification 2.1) of `item` records. */
export function envelopeOf(item: JsonSchema, description?: string): JsonSchema {
  return record(
    { count: { type: 'integer', minimum: 0 }, next: link, previous: link, results: { type: 'array', items: item } },
    description,
  );
}
