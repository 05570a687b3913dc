import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Marked } from 'marked';
import { PACKAGE_ROOT } from '../../core/package.ts';
import { BuildError } from '../base/errors.ts';

/** Where the blog's Markdown posts live: `content/blog/*.md` in the repository. */
export const DEFAULT_BLOG_DIR = path.join(PACKAGE_ROOT, 'content/blog/');

/** One post as the build read it: front matter, and the body rendered to HTML. */
export interface BlogPost {
  /** The file it came from, relative to the blog folder (for errors). */
  file: string;
  title: string;
  slug: string;
  excerpt: string;
  /** ISO 8601 UTC, normalised to seconds: `2024-06-03T09:00:00Z`. */
  publishedAt: string;
  draft: boolean;
  html: string;
}

const FIELDS = ['title', 'slug', 'excerpt', 'published_at', 'draft'] as const;
type Field = (typeof FIELDS)[number];
const REQUIRED: readonly Field[] = ['title', 'slug', 'excerpt', 'published_at'];
const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const UTC_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d{1,3})?Z$/;
const MAX_TITLE = 200;
const MAX_EXCERPT = 500;

// One renderer for every post: GitHub-flavoured Markdown; raw HTML in a post passes through (the posts are ours).
const markdown = new Marked({ gfm: true, async: false });

/** Reads every `*.md` post of a folder, in file-name order; a missing folder means no posts. */
export function readBlogPosts(dir: string = DEFAULT_BLOG_DIR): BlogPost[] {
  if (!existsSync(dir)) return [];
  const files = readdirSync(dir)
    .filter((name) => name.endsWith('.md'))
    .sort();
  const posts = files.map((name) => parseBlogPost(name, readFileSync(path.join(dir, name), 'utf8')));
  const seen = new Map<string, string>();
  for (const post of posts) {
    const other = seen.get(post.slug);
    if (other)
      throw new BuildError(`blog post ${post.file}: slug "${post.slug}" is already used by ${other}; every post needs its own slug`);
    seen.set(post.slug, post.file);
  }
  return posts;
}

/**
 * Parses one post: a front matter block between `---` lines of `key: value` pairs (a value may be a
 * double-quoted JSON string), then the Markdown body. Strict, so a typo fails the build instead of
 * publishing a post with a missing date: unknown, repeated or missing fields and bad values are errors
 * naming the file and the field.
 */
export function parseBlogPost(file: string, text: string): BlogPost {
  const fail = (message: string) => new BuildError(`blog post ${file}: ${message}`);
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  if (lines[0] !== '---')
    throw fail(
      'must start with a front matter block: a line "---", then "title: ...", "slug: ...", "excerpt: ...", "published_at: ...", then "---"',
    );
  const end = lines.indexOf('---', 1);
  if (end < 0) throw fail('front matter is not closed: add a line "---" after its last field');
  const values = new Map<Field, string>();
  for (let i = 1; i < end; i++) {
    const line = lines[i];
    if (line.trim() === '' || line.trimStart().startsWith('#')) continue;
    const match = /^([A-Za-z_]+):(.*)$/.exec(line);
    if (!match) throw fail(`front matter line ${i + 1} must be "field: value", got ${JSON.stringify(line)}`);
    const name = match[1] as Field;
    if (!FIELDS.includes(name))
      throw fail(`unknown front matter field "${match[1]}" on line ${i + 1}; the fields are ${FIELDS.join(', ')}`);
    if (values.has(name)) throw fail(`front matter field "${name}" is given twice`);
    values.set(
      name,
      unquote(match[2].trim(), () => fail(`front matter field "${name}" is not a valid double-quoted string`)),
    );
  }
  for (const name of REQUIRED) {
    if (!values.get(name)) throw fail(`front matter field "${name}" is missing or empty`);
  }
  const title = values.get('title')!;
  const slug = values.get('slug')!;
  const excerpt = values.get('excerpt')!;
  if (title.length > MAX_TITLE) throw fail(`front matter field "title" must be at most ${MAX_TITLE} characters, got ${title.length}`);
  if (excerpt.length > MAX_EXCERPT)
    throw fail(`front matter field "excerpt" must be at most ${MAX_EXCERPT} characters, got ${excerpt.length}`);
  if (!SLUG.test(slug))
    throw fail(`front matter field "slug" must be lower-case words joined by hyphens (how-the-score-works), got ${JSON.stringify(slug)}`);
  const publishedAt = utcTime(values.get('published_at')!);
  if (!publishedAt)
    throw fail(
      `front matter field "published_at" must be an ISO 8601 UTC time such as 2024-06-03T09:00:00Z, got ${JSON.stringify(values.get('published_at'))}`,
    );
  const draftText = values.get('draft') ?? 'false';
  if (draftText !== 'true' && draftText !== 'false')
    throw fail(`front matter field "draft" must be true or false, got ${JSON.stringify(draftText)}`);
  const body = lines
    .slice(end + 1)
    .join('\n')
    .trim();
  if (body === '') throw fail('has no text after its front matter');
  return { file, title, slug, excerpt, publishedAt, draft: draftText === 'true', html: markdown.parse(body) as string };
}

/** A digest of the posts, part of the build id: editing a post changes the build's ETags. */
export function blogDigest(posts: readonly BlogPost[]): string {
  const hash = createHash('sha256');
  for (const post of posts) hash.update(JSON.stringify(post));
  return hash.digest('hex');
}

function unquote(value: string, invalid: () => Error): string {
  if (!value.startsWith('"')) return value;
  try {
    const parsed: unknown = JSON.parse(value);
    if (typeof parsed !== 'string') throw invalid();
    return parsed;
  } catch {
    throw invalid();
  }
}

/** The time normalised to `YYYY-MM-DDTHH:MM:SSZ`, or undefined when it is not a real UTC time. */
function utcTime(text: string): string | undefined {
  const match = UTC_TIME.exec(text);
  if (!match) return undefined;
  const normalised = `${match[1]}-${match[2]}-${match[3]}T${match[4]}:${match[5]}:${match[6]}Z`;
  const time = new Date(normalised);
  // Date accepts 2024-02-30 by rolling over; a real date prints back as itself.
  return !Number.isNaN(time.getTime()) && time.toISOString().slice(0, 19) === normalised.slice(0, 19) ? normalised : undefined;
}
