import { notFound } from '../http/errors.ts';
import { envelope, pageWindow } from '../http/pagination.ts';
import * as param from '../http/params.ts';
import { ok, type Context, type HandlerResult, type NoParams } from '../http/route.ts';
import { blogTime } from '../query/blog.ts';

export const blogQuery = { page: param.page, page_size: param.pageSize };

const slug = param.param('a post slug: lower-case words joined by hyphens', (raw) => (/^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(raw) ? raw : undefined), '', {
  type: 'string', pattern: '^[a-z0-9]+(-[a-z0-9]+)*$',
});
export const blogPath = { slug };

/**
 * `blog/`: posts published at the time of the request, newest first. The answer changes when the next
 * scheduled post goes out, so it is cached only until then (`validUntil`).
 */
export function listBlogPosts({ query, queries, url, now }: Context<NoParams, typeof blogQuery>): HandlerResult {
  const time = blogTime(now());
  const count = queries.blog.count(time);
  const window = pageWindow(count, query.page, query.page_size);
  const next = queries.blog.nextPublication(time);
  return { ...ok(envelope(url, window, count, queries.blog.page(time, window.pageSize, window.offset))), validUntil: next === undefined ? undefined : Date.parse(next) };
}

/** `blog/{slug}/`: one published post with its HTML body; a scheduled post is a 404 until it is published. */
export function getBlogPost({ params, queries, now }: Context<typeof blogPath, NoParams>): HandlerResult {
  const post = queries.blog.bySlug(params.slug, blogTime(now()));
  if (!post) throw notFound(`No published blog post with slug ${params.slug}`);
  return ok(post);
}
