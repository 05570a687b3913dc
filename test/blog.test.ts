import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../pipeline/run/index.ts';
import { emitBlog } from '../pipeline/emit/blog.ts';
import { createSchema } from '../pipeline/store/schema.ts';
import { parseBlogPost, readBlogPosts } from '../pipeline/ingest/blog.ts';
import { BuildError } from '../pipeline/base/errors.ts';
import { Api } from '../src/api/index.ts';
import { tempDir, writeInput } from './helpers/files.ts';
import { fixtureDb } from './helpers/fixture-db.ts';
import { BANDS } from '../pipeline/config/bands.ts';
import { COMPOSITE_WEIGHTS, NP_PA_PRIMARY_CARE_WEIGHT, PEOPLE_FLOOR, PROVIDER_STEPS } from '../pipeline/config/scoring.ts';

const front = (fields: Record<string, string>, body = 'Some text.') =>
  `---\n${Object.entries(fields)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\n')}\n---\n${body}\n`;
const VALID = { title: 'A post', slug: 'a-post', excerpt: 'What it says.', published_at: '2025-01-14T09:00:00Z' };

describe('blog posts: front matter and Markdown', () => {
  it('parses a post, renders its Markdown once, and normalises the time to seconds', () => {
    const post = parseBlogPost(
      'a.md',
      front(
        { ...VALID, title: '"Quoted: with a colon"', published_at: '2025-01-14T09:00:00.250Z' },
        '# Heading\n\nText with <b>html</b> & an ampersand, `code` and **bold**.',
      ),
    );
    expect(post).toMatchObject({
      title: 'Quoted: with a colon',
      slug: 'a-post',
      excerpt: 'What it says.',
      publishedAt: '2025-01-14T09:00:00Z',
      draft: false,
    });
    expect(post.html).toBe(
      '<h1>Heading</h1>\n<p>Text with <b>html</b> &amp; an ampersand, <code>code</code> and <strong>bold</strong>.</p>\n',
    );
  });

  const broken: Array<[string, string, RegExp]> = [
    ['no front matter', 'just text', /a\.md: must start with a front matter block/],
    ['unclosed front matter', '---\ntitle: x\n', /a\.md: front matter is not closed/],
    ['a missing field', front({ ...VALID, excerpt: '' }), /a\.md: front matter field "excerpt" is missing or empty/],
    ['an absent field', front({ title: 'x', slug: 'x', excerpt: 'x' }), /a\.md: front matter field "published_at" is missing or empty/],
    [
      'an unknown field',
      front({ ...VALID, author: 'me' }),
      /a\.md: unknown front matter field "author" on line 6; the fields are title, slug, excerpt, published_at, draft/,
    ],
    [
      'a local time',
      front({ ...VALID, published_at: '2025-01-14T09:00:00+02:00' }),
      /a\.md: front matter field "published_at" must be an ISO 8601 UTC time such as 2024-06-03T09:00:00Z, got "2025-01-14T09:00:00\+02:00"/,
    ],
    ['a date without a time', front({ ...VALID, published_at: '2025-01-14' }), /field "published_at" must be an ISO 8601 UTC time/],
    [
      'a day that does not exist',
      front({ ...VALID, published_at: '2025-02-30T09:00:00Z' }),
      /field "published_at" must be an ISO 8601 UTC time/,
    ],
    ['a bad slug', front({ ...VALID, slug: 'A Post' }), /a\.md: front matter field "slug" must be lower-case words joined by hyphens/],
    [
      'a draft flag that is not a boolean',
      front({ ...VALID, draft: 'yes' }),
      /a\.md: front matter field "draft" must be true or false, got "yes"/,
    ],
    ['a field given twice', `---\ntitle: a\ntitle: b\n---\nx\n`, /a\.md: front matter field "title" is given twice/],
    [
      'a bad quoted string',
      front({ ...VALID, title: '"unterminated' }),
      /a\.md: front matter field "title" is not a valid double-quoted string/,
    ],
    ['no body', front(VALID, ''), /a\.md: has no text after its front matter/],
  ];
  for (const [what, text, message] of broken) {
    it(`rejects ${what}, naming the file and the field`, () => {
      expect(() => parseBlogPost('a.md', text)).toThrow(BuildError);
      expect(() => parseBlogPost('a.md', text)).toThrow(message);
    });
  }

  it('rejects two posts with one slug, naming both files', () => {
    const dir = tempDir();
    writeInput(path.join(dir, 'one.md'), front(VALID));
    writeInput(path.join(dir, 'two.md'), front(VALID));
    expect(() => readBlogPosts(dir)).toThrow('blog post two.md: slug "a-post" is already used by one.md');
  });

  it('the posts in content/blog are valid and published', () => {
    const posts = readBlogPosts();
    expect(posts.length).toBeGreaterThanOrEqual(3);
    for (const post of posts) {
      expect(post.draft, post.file).toBe(false);
      expect(post.html.split(/\s+/).length, post.file).toBeGreaterThan(300);
    }
  });

  it('the build writes no drafts, and numbers posts by publication time', () => {
    const db = new Database(':memory:');
    createSchema(db);
    const posts = [
      parseBlogPost('b.md', front({ ...VALID, slug: 'later', published_at: '2025-03-01T00:00:00Z' })),
      parseBlogPost('c.md', front({ ...VALID, slug: 'draft', draft: 'true' })),
      parseBlogPost('a.md', front({ ...VALID, slug: 'earlier' })),
    ];
    expect(emitBlog(db, posts)).toBe(2);
    expect(db.prepare('SELECT id, slug FROM blog_posts ORDER BY id').all()).toEqual([
      { id: 1, slug: 'earlier' },
      { id: 2, slug: 'later' },
    ]);
  });

  it('a build with an invalid post fails at once, naming the file and the field, and writes nothing', async () => {
    const dir = tempDir();
    const blogDir = path.join(dir, 'blog');
    mkdirSync(blogDir);
    writeInput(path.join(blogDir, 'bad.md'), front({ ...VALID, published_at: 'next Tuesday' }));
    const out = path.join(dir, 'out.sqlite');
    await expect(build({ manifest: path.resolve(import.meta.dirname, '../raw/manifests/public.json'), out, blogDir })).rejects.toThrow(
      'blog post bad.md: front matter field "published_at" must be an ISO 8601 UTC time',
    );
    expect(existsSync(out)).toBe(false);
  });
});

describe('blog endpoints and the clock', () => {
  let file: string;
  let time: Date;
  let api: Api;
  const get = async (url: string, headers: Record<string, string> = {}) => {
    const response = await api.respond({ method: 'GET', url, headers });
    return {
      status: response.status,
      etag: response.headers.ETag as string | undefined,
      body: response.body.length ? JSON.parse(response.body.toString('utf8')) : undefined,
    };
  };
  beforeAll(async () => {
    file = await fixtureDb();
    time = new Date('2025-02-11T08:59:59.999Z');
    api = Api.open(file, { now: () => time });
  });
  afterAll(() => api.retire());

  it('lists only what is published at the time of the request, newest first, even from the response cache', async () => {
    const before = await get('/api/v1/blog/');
    expect(before.body.results.map((p: { slug: string }) => p.slug)).toEqual(['how-the-healthcare-access-score-works']);
    time = new Date('2025-02-11T09:00:00.000Z');
    const after = await get('/api/v1/blog/');
    expect(after.body.results.map((p: { slug: string }) => p.slug)).toEqual([
      'what-the-transportation-vulnerability-index-measures',
      'how-the-healthcare-access-score-works',
    ]);
    expect(after.etag).not.toBe(before.etag);
    // A client holding the old copy gets the new list, not a 304; one holding the new copy gets a 304.
    expect((await get('/api/v1/blog/', { 'if-none-match': before.etag! })).status).toBe(200);
    expect((await get('/api/v1/blog/', { 'if-none-match': after.etag! })).status).toBe(304);
  });

  it('a scheduled post is a 404 until its time, then listed and served', async () => {
    time = new Date('2098-12-31T23:59:59Z');
    expect(await get('/api/v1/blog/coming-soon/')).toMatchObject({
      status: 404,
      body: { message: 'No published blog post with slug coming-soon' },
    });
    const listed = (await get('/api/v1/blog/')).body;
    time = new Date('2099-01-01T00:00:00Z');
    expect((await get('/api/v1/blog/coming-soon/')).status).toBe(200);
    const later = (await get('/api/v1/blog/')).body;
    expect(later.count).toBe(listed.count + 1);
    expect(later.results[0].slug).toBe('coming-soon');
  });

  it('a draft is never listed nor served', async () => {
    time = new Date('2200-01-01T00:00:00Z');
    expect((await get('/api/v1/blog/unfinished-draft/')).status).toBe(404);
    expect((await get('/api/v1/blog/?page_size=100')).body.results.map((p: { slug: string }) => p.slug)).not.toContain('unfinished-draft');
  });

  it('a page past the last one is a 404, as for every list', async () => {
    time = new Date('2025-06-01T00:00:00Z');
    expect((await get('/api/v1/blog/?page=2')).status).toBe(404);
    // Links list the parameters in the route's order, each in its one spelling.
    expect((await get('/api/v1/blog/?page_size=1&page=2')).body.previous).toBe('/api/v1/blog/?page=1&page_size=1');
  });
});

describe("the blog's own account of the score cannot drift from the code", () => {
  let api: Api;
  let text: string;
  const get = async (url: string) => JSON.parse((await api.respond({ method: 'GET', url, headers: {} })).body.toString('utf8'));
  beforeAll(async () => {
    api = Api.open(await fixtureDb(), { now: () => new Date('2026-01-01T00:00:00Z') });
    text = ((await get('/api/v1/blog/how-the-healthcare-access-score-works/')).html as string).replace(/&amp;/g, '&');
  });
  afterAll(() => api.retire());

  it("states the composite's weights and floor, and the band table, as the code has them", () => {
    const { provider, hospital, travel } = COMPOSITE_WEIGHTS;
    expect(text).toContain(
      `access      = (${provider} × provider + ${hospital} × hospital + ${travel} × travel) / ${provider + hospital + travel}`,
    );
    expect(text).toContain(`healthscore = round_half_up(access × (${PEOPLE_FLOOR} + ${+(1 - PEOPLE_FLOOR).toFixed(2)} × people / 100))`);
    expect(text).toContain(`(${hospital} × hospital + ${travel} × travel) / ${hospital + travel}`);
    for (const label of new Set(BANDS.map((b) => b.label))) {
      const bands = BANDS.filter((b) => b.label === label);
      const low = Math.min(...bands.map((b) => b.min));
      const high = BANDS[BANDS.indexOf(bands[0]) - 1]?.min;
      expect(text, label).toContain(`<td>${low}-${high === undefined ? 100 : high - 1}</td>\n<td>${label}</td>`);
    }
    for (const step of PROVIDER_STEPS.slice(1)) expect(text).toContain(String(step[1]));
    expect(text).toContain(`${NP_PA_PRIMARY_CARE_WEIGHT}`);
  });

  it("recomputes every served overall score of the fixture from the blog's formula", async () => {
    const formula =
      /access\s+= \((\d+) × provider \+ (\d+) × hospital \+ (\d+) × travel\) \/ (\d+)\s+healthscore = round_half_up\(access × \(([\d.]+) \+ ([\d.]+) × people \/ 100\)\)/.exec(
        text,
      );
    expect(formula).not.toBeNull();
    const [wp, wh, wt, sum, floor, slope] = formula!.slice(1).map(Number);
    const [, wh2, wt2, sum2] = /\((\d+) × hospital \+ (\d+) × travel\) \/ (\d+)/
      .exec(text.slice(formula!.index + formula![0].length))!
      .map(Number);
    const records: Array<Record<string, number | null>> = [];
    for (let page = 1; ; page++) {
      const body = await get(`/api/v1/health-scores/?page_size=100&page=${page}`);
      records.push(...body.results);
      if (!body.next) break;
    }
    expect(records.length).toBeGreaterThan(50);
    for (const r of records) {
      const access =
        r.provider_score === null
          ? (wh2 * r.hospital_score! + wt2 * r.travel_score!) / sum2
          : (wp * r.provider_score + wh * r.hospital_score! + wt * r.travel_score!) / sum;
      // Round half up, forgiving the float error of the decimal weights at the half.
      expect(Math.floor(access * (floor + (slope * r.people_score!) / 100) + 0.5 + 1e-9), String(r.zip_code)).toBe(r.healthscore);
    }
    expect(records.some((r) => r.provider_score === null)).toBe(true);
  });
});
