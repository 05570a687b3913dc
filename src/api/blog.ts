import { notFound } from '../http/errors.ts';
import { BlogPost, BlogPostSummary } from '../answers/blog.ts';
import { ref, type JsonSchema } from '../http/json-schema.ts';
import { envelope, envelopeOf, page, pageSize, pageWindow } from '../http/pagination.ts';
import { param } from '../http/params.ts';
import { type HandlerResult, NO_PARAMS, type NoParams, ok, ONCE, route, type Route } from '../http/route.ts';
import { blogTime } from '../query/blog.ts';
import type { Context } from './context.ts';
import { API_BASE } from './paths.ts';

const tag = { name: 'Blog', description: 'Published posts about the methodology and data.' };

const blogQuery = { page, page_size: pageSize };

const slug = param(
  'a post slug: lower-case words joined by hyphens',
  (raw) => (/^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(raw) ? raw : undefined),
  '',
  {
    type: 'string',
    pattern: '^[a-z0-9]+(-[a-z0-9]+)*$',
  },
);
const blogPath = { slug };

/**
 * `blog/`: posts published at the time of the request, newest first. The answer changes when the next
 * scheduled post goes out, so it is cached only until then (`validUntil`).
 */
function listBlogPosts({ query, queries, url, now }: Context<NoParams, typeof blogQuery>): HandlerResult {
  const time = blogTime(now());
  const count = queries.blog.count(time);
  const window = pageWindow(count, query.page, query.page_size);
  const next = queries.blog.nextPublication(time);
  return {
    ...ok(envelope(url, window, count, queries.blog.page(time, window.pageSize, window.offset))),
    validUntil: next === undefined ? undefined : Date.parse(next),
  };
}

/** `blog/{slug}/`: one published post with its HTML body; a scheduled post is a 404 until it is published. */
function getBlogPost({ params, queries, now }: Context<typeof blogPath, NoParams>): HandlerResult {
  const post = queries.blog.bySlug(params.slug, blogTime(now()));
  if (!post) throw notFound(`No published blog post with slug ${params.slug}`);
  return ok(post);
}

/** The answers' shared schemas (openapi.json `components/schemas`). */
export const schemas: Record<string, JsonSchema> = { BlogPostSummary, BlogPost };

export const routes: readonly Route[] = [
  route({
    path: `${API_BASE}blog/`,
    exported: ONCE,
    summary: 'Published blog posts, newest first',
    tag,
    pathParams: NO_PARAMS,
    query: blogQuery,
    response: { description: 'A page of blog post summaries', schema: envelopeOf(ref('BlogPostSummary')) },
    handle: listBlogPosts,
  }),
  route({
    path: `${API_BASE}blog/:slug/`,
    exported: { write: 'per-key', keys: 'blog-slugs' },
    kind: 'lookup',
    summary: 'One published blog post with its HTML body',
    tag,
    pathParams: blogPath,
    query: NO_PARAMS,
    response: {
      description: 'The post',
      schema: ref('BlogPost'),
      notFound: 'no published post has the slug (drafts and scheduled posts are not published)',
    },
    handle: getBlogPost,
  }),
];
