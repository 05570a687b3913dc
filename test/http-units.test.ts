import { describe, expect, it } from 'vitest';
import { ALIAS_OVERHEAD_BYTES, ENTRY_OVERHEAD_BYTES, ResponseCache } from '../src/http/cache.ts';
import { negotiate } from '../src/http/compress.ts';
import { entityTag, matchesIfNoneMatch, variantTag } from '../src/http/etag.ts';
import { envelope, pageWindow } from '../src/http/pagination.ts';
import { Representation, TEXT_BODY_MAX_BYTES, type ApiResponse } from '../src/http/response.ts';
import { ApiError } from '../src/http/errors.ts';
import { WorkQueue } from '../src/http/work.ts';

describe('Accept-Encoding negotiation', () => {
  it.each([
    [undefined, undefined],
    ['', undefined],
    ['gzip', 'gzip'],
    ['br', 'br'],
    ['gzip, deflate, br, zstd', 'br'],
    ['GZIP', 'gzip'],
    ['br;q=0.2, gzip;q=0.8', 'gzip'],
    ['br; q=0, gzip', 'gzip'],
    ['deflate', undefined],
    ['*', 'br'],
    ['*;q=0', undefined],
    ['gzip;q=0, *', 'br'],
    ['x-gzip', 'gzip'],
  ])('%s -> %s', (header, coding) => {
    expect(negotiate(header)).toBe(coding);
  });
});

describe('ETags', () => {
  const tag = entityTag('0123456789abcdef', '/api/v1/states/');
  it('are strong, carry the build id, and differ per URL and per build', () => {
    expect(tag).toMatch(/^"0123456789abcdef-[\w-]{16}"$/);
    expect(entityTag('0123456789abcdef', '/api/v1/states/?')).not.toBe(tag);
    expect(entityTag('fedcba9876543210', '/api/v1/states/')).not.toBe(tag);
  });
  it('If-None-Match matches the tag, its variants, weak forms, lists and *', () => {
    for (const header of [tag, `W/${tag}`, variantTag(tag, 'gzip'), variantTag(tag, 'br'), `"x", ${tag}`, '*', ' * ']) {
      expect(matchesIfNoneMatch(header, tag), header).toBe(true);
    }
    for (const header of ['"x"', tag.replace('0123', '9999'), '', variantTag(tag, 'zstd')]) {
      expect(matchesIfNoneMatch(header, tag), header).toBe(false);
    }
  });
});

describe('pagination', () => {
  const url = (query: string) => ({ path: '/api/v1/health-scores/', search: new URLSearchParams(query) });
  it('links keep every other parameter, in order, and set page', () => {
    const page = envelope(url('state=NY&page=2&page_size=10&city=New+York'), pageWindow(35, 2, 10), 35, Array(10).fill(0));
    expect(page.next).toBe('/api/v1/health-scores/?state=NY&page=3&page_size=10&city=New+York');
    expect(page.previous).toBe('/api/v1/health-scores/?state=NY&page=1&page_size=10&city=New+York');
    const last = envelope(url('page=4&page_size=10'), pageWindow(35, 4, 10), 35, Array(5).fill(0));
    expect(last.next).toBeNull();
  });
  it('an empty list has page 1; a page past the last is a 404', () => {
    expect(pageWindow(0, 1, 20)).toEqual({ page: 1, pageSize: 20, offset: 0 });
    expect(() => pageWindow(0, 2, 20)).toThrow(ApiError);
    expect(() => pageWindow(40, 3, 20)).toThrow('page 3 does not exist: 40 matching records make 2 pages of 20');
    expect(pageWindow(41, 3, 20).offset).toBe(40);
  });
});

describe('response cache', () => {
  const entry = (bytes: number) => new Representation(Buffer.alloc(bytes, 0x20), '"t"');
  it("evicts the least recently used entries beyond its byte budget (bodies, keys and each entry's overhead)", () => {
    // Each entry: 1,500 bytes of body and 1,516 of its text, 1,280 of overhead, 2 x 2 + 64 for its key: two fit
    // in 9,000, three do not.
    const cache = new ResponseCache(9000);
    cache.set('/a', entry(1500));
    cache.set('/b', entry(1500));
    cache.get('/a');
    cache.set('/c', entry(1500));
    expect(cache.get('/b')).toBeUndefined();
    expect(cache.get('/a')).toBeDefined();
    expect(cache.get('/c')).toBeDefined();
  });
  it('charges a key two bytes a character, and an alias its key and a little more', () => {
    const cache = new ResponseCache(1_000_000);
    cache.set('/a', entry(10));
    const one = cache.size.bytes;
    // The body, and its text (a byte a character and a string's header: response.ts, `text`).
    expect(one).toBe(10 + (10 + 16) + ENTRY_OVERHEAD_BYTES + 2 * 2 + 64);
    cache.set(`/${'k'.repeat(999)}`, entry(10));
    expect(cache.size.bytes - one).toBe(one + 2 * 998);
    cache.alias('/A', '/a');
    expect(cache.get('/A')).toBe(cache.get('/a'));
    expect(cache.size.bytes - 2 * one - 2 * 998).toBe(ALIAS_OVERHEAD_BYTES + 2 * 2 + 64);
  });
  it('an alias answers nothing once its entry is evicted', () => {
    const cache = new ResponseCache(6000);
    cache.set('/a', entry(1500));
    expect(cache.get('/a')).toBeDefined();
    cache.alias('/a?x=1', '/a');
    cache.set('/b', entry(1500)); // evicts /a
    expect(cache.get('/a')).toBeUndefined();
    expect(cache.get('/a?x=1')).toBeUndefined();
  });
  it('keeps a small body as text of the same bytes, a large one only as its Buffer', () => {
    const small = Buffer.from([0x7b, 0xc3, 0xa9, 0x00, 0xff, 0x0a]);
    const text = (new Representation(small, '"t"').respond('GET', {}) as ApiResponse).text;
    expect(Buffer.from(text!, 'latin1').equals(small)).toBe(true);
    expect((new Representation(Buffer.alloc(TEXT_BODY_MAX_BYTES + 1, 0x20), '"t"').respond('GET', {}) as ApiResponse).text).toBeUndefined();
    expect((new Representation(small, '"t"').respond('HEAD', {}) as ApiResponse).text).toBeUndefined();
  });
  it('does not keep a body bigger than the budget', () => {
    const cache = new ResponseCache(1000);
    cache.set('/big', entry(2000));
    expect(cache.get('/big')).toBeUndefined();
  });
});

describe('the heavy-answer queue', () => {
  it('serves its line caller by caller in turn and refuses a caller past its share, not the others', async () => {
    const queue = new WorkQueue(1, 8, 2);
    const order: string[] = [];
    let release = () => {};
    const blocker = new Promise<void>((resolve) => (release = resolve));
    const task = (name: string) => () => {
      order.push(name);
    };
    const running = queue.run(() => blocker, 'key:1');
    const outcomes = [
      queue.run(task('hog 1'), 'key:1'),
      queue.run(task('hog 2'), 'key:1'),
      queue.run(task('hog 3'), 'key:1'),
      queue.run(task('polite 1'), 'ip:203.0.113.9'),
      queue.run(task('polite 2'), 'ip:203.0.113.9'),
    ].map((made) =>
      made.then(
        () => 'made',
        (error: ApiError) => `${error.status} ${error.message}`,
      ),
    );
    release();
    await running;
    const settled = await Promise.all(outcomes);
    expect(settled[2]).toMatch(/^503 Your API key already has 2 large answers waiting/);
    expect(settled.filter((s) => s === 'made')).toHaveLength(4);
    expect(order).toEqual(['hog 1', 'polite 1', 'hog 2', 'polite 2']);
  });
});
