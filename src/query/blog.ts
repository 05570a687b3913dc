import type Database from 'better-sqlite3';
import type { BlogPost, BlogPostSummary } from '../answers/blog.ts';

const SUMMARY = 'id, title, slug, excerpt, published_at';

/**
 * The blog's SQL. Which posts are published depends on the time of the request (`published_at` at or before
 * it), so every statement takes that time: `YYYY-MM-DDTHH:MM:SSZ`, compared as text as the build stores it.
 * Drafts are not in the database.
 */
export class BlogQueries {
  private readonly counted: Database.Statement;
  private readonly listed: Database.Statement;
  private readonly one: Database.Statement;
  private readonly upcoming: Database.Statement;

  constructor(db: Database.Database) {
    this.counted = db.prepare('SELECT count(*) AS n FROM blog_posts WHERE published_at <= ?');
    this.listed = db.prepare(
      `SELECT ${SUMMARY} FROM blog_posts WHERE published_at <= ? ORDER BY published_at DESC, id DESC LIMIT ? OFFSET ?`,
    );
    this.one = db.prepare(`SELECT ${SUMMARY}, html FROM blog_posts WHERE slug = ? AND published_at <= ?`);
    this.upcoming = db.prepare('SELECT min(published_at) AS next FROM blog_posts WHERE published_at > ?');
  }

  /** How many posts are published at `now`. */
  count(now: string): number {
    return (this.counted.get(now) as { n: number }).n;
  }

  /** A page of the posts published at `now`, newest first. */
  page(now: string, limit: number, offset: number): BlogPostSummary[] {
    return this.listed.all(now, limit, offset) as BlogPostSummary[];
  }

  /** The post with this slug if it is published at `now`. */
  bySlug(slug: string, now: string): BlogPost | undefined {
    return this.one.get(slug, now) as BlogPost | undefined;
  }

  /** When the next scheduled post goes out after `now`, or undefined when none is scheduled. */
  nextPublication(now: string): string | undefined {
    return (this.upcoming.get(now) as { next: string | null }).next ?? undefined;
  }
}

/** A time as the blog compares it: ISO 8601 UTC to the second, like the stored `published_at`. */
export function blogTime(time: Date): string {
  return `${time.toISOString().slice(0, 19)}Z`;
}
