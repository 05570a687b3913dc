import type Database from 'better-sqlite3';
import type { BlogPost } from '../ingest/blog.ts';

/**
 * Writes the published and scheduled posts to `blog_posts`; drafts are left out, so no query can leak one.
 * Ids follow publication order (then slug), so the oldest post is 1. Returns the number written.
 */
export function emitBlog(db: Database.Database, posts: readonly BlogPost[]): number {
  const insert = db.prepare('INSERT INTO blog_posts (id, slug, title, excerpt, published_at, html) VALUES (?,?,?,?,?,?)');
  const kept = posts
    .filter((post) => !post.draft)
    .sort((a, b) => a.publishedAt.localeCompare(b.publishedAt) || a.slug.localeCompare(b.slug));
  db.transaction(() => {
    kept.forEach((post, i) => insert.run(i + 1, post.slug, post.title, post.excerpt, post.publishedAt, post.html));
  })();
  return kept.length;
}
