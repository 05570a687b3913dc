import { describe, expect, it } from 'vitest';
import { AccessTable } from '../src/auth/access.ts';
import { anonymousSubject, clientAddress, TrustedProxies } from '../src/auth/client-ip.ts';
import { generateKey, hashKey, isWellFormedKey, keyHint, readCredentials, redactKeys } from '../src/auth/keys.ts';
import { loadPlans, parsePlans, patternCovers, PlanError } from '../src/auth/plans.ts';
import { windowAt, WindowClock } from '../src/auth/windows.ts';
import { requestError } from '../src/server/request-headers.ts';
import { NO_PARAMS, ok, route } from '../src/http/route.ts';
import { API_BASE, ROUTES } from '../src/api/index.ts';

const seconds = (iso: string) => Date.parse(iso) / 1000;

describe('API keys', () => {
  it('are hcas_live_ and 32 base62 characters, all different, every character used', () => {
    const keys = Array.from({ length: 2000 }, generateKey);
    expect(new Set(keys).size).toBe(keys.length);
    for (const key of keys) expect(key).toMatch(/^hcas_live_[0-9A-Za-z]{32}$/);
    expect(new Set(keys.map((k) => k.slice(10)).join('')).size).toBe(62);
  });

  it('are stored as SHA-256 hex and shown by their last 4 characters', () => {
    expect(hashKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'); // FIPS 180-2 test vector
    expect(hashKey('hcas_live_abc')).not.toBe(hashKey('hcas_live_abd'));
    expect(keyHint('hcas_live_0123456789abcdefghijklmnopqrstuv')).toBe('stuv');
  });

  it('are redacted from text bound for a log', () => {
    const key = generateKey();
    expect(redactKeys(`/api/v1/states/?api_key=${key}&x=1`)).toBe('/api/v1/states/?api_key=hcas_live_[redacted]&x=1');
    expect(redactKeys('/api/v1/states/')).toBe('/api/v1/states/');
    // A percent sign that escapes nothing, and a key encoded twice.
    expect(redactKeys('/api/v1/states/?q=100%')).toBe('/api/v1/states/?q=100%');
    const twice = encodeURIComponent(encodeURIComponent(key).replaceAll('_', '%5F'));
    expect(redactKeys(`/api/v1/states/?api_key=${twice}`)).toBe('/api/v1/states/?api_key=hcas_live_[redacted]');
  });

  it('repeated Host, Authorization or X-API-Key headers are found in any spelling', () => {
    expect(requestError(['Host', 'a', 'X-API-Key', key, 'Accept', '*/*'], 1, 1)).toBeUndefined();
    expect(requestError(['Host', 'a', 'HOST', 'b'], 1, 1)?.code).toBe('bad_request');
    expect(requestError(['host', 'a', 'hOsT', 'b'], 1, 1)?.message).toContain('2 Host headers');
    expect(requestError(['Host', 'x', 'Authorization', 'a', 'AUTHORIZATION', 'b'], 1, 1)?.message).toContain('2 Authorization headers');
    expect(requestError(['Host', 'x', 'x-api-key', 'a', 'X-Api-Key', 'b', 'X-API-KEY', 'c'], 1, 1)?.message).toContain(
      '3 X-API-Key headers',
    );
  });

  it('HTTP/1.1 without Host, and versions other than 1.x, are bad requests (issue #44, point 8)', () => {
    expect(requestError(['Accept', '*/*'], 1, 1)?.message).toBe(
      'An HTTP/1.1 request must carry a Host header (RFC 9112, section 3.2); add one',
    );
    expect(requestError(['Accept', '*/*'], 1, 0)).toBeUndefined();
    for (const [major, minor] of [
      [0, 9],
      [2, 0],
    ])
      expect(requestError(['Host', 'a'], major, minor)?.message).toMatch(new RegExp(`^HTTP/${major}\\.${minor} requests are not served`));
  });

  const key = 'hcas_live_0123456789abcdefghijklmnopqrstuv';
  const other = 'hcas_live_ZZZZ456789abcdefghijklmnopqrstuv';
  const cases: Array<[string, Record<string, string | string[]>, ReturnType<typeof readCredentials>]> = [
    ['no credentials', {}, { kind: 'none' }],
    ['X-API-Key', { 'x-api-key': key }, { kind: 'key', key }],
    ['X-API-Key with spaces around', { 'x-api-key': ` ${key} ` }, { kind: 'key', key }],
    ['Bearer', { authorization: `Bearer ${key}` }, { kind: 'key', key }],
    ['bearer in lower case', { authorization: `bearer ${key}` }, { kind: 'key', key }],
    ['both, same key', { 'x-api-key': key, authorization: `Bearer ${key}` }, { kind: 'key', key }],
    ['both, different keys', { 'x-api-key': key, authorization: `Bearer ${other}` }, { kind: 'conflicting' }],
    ['X-API-Key not a key', { 'x-api-key': 'secret' }, { kind: 'malformed', header: 'X-API-Key' }],
    ['X-API-Key empty', { 'x-api-key': '' }, { kind: 'malformed', header: 'X-API-Key' }],
    ['X-API-Key sent twice (joined by Node)', { 'x-api-key': `${key}, ${key}` }, { kind: 'malformed', header: 'X-API-Key' }],
    ['key one character short', { 'x-api-key': key.slice(0, -1) }, { kind: 'malformed', header: 'X-API-Key' }],
    ['Basic authorization alone', { authorization: 'Basic dXNlcjpwYXNz' }, { kind: 'malformed', header: 'Authorization' }],
    ['Basic next to a good X-API-Key (a proxy login)', { 'x-api-key': key, authorization: 'Basic dXNlcjpwYXNz' }, { kind: 'key', key }],
    ['Bearer without a key', { authorization: 'Bearer' }, { kind: 'malformed', header: 'Authorization' }],
    [
      'Bearer with a bad key next to a good X-API-Key',
      { 'x-api-key': key, authorization: 'Bearer nope' },
      { kind: 'malformed', header: 'Authorization' },
    ],
  ];
  for (const [name, headers, expected] of cases) {
    it(`credentials: ${name}`, () => expect(readCredentials(headers)).toEqual(expected));
  }
  it('credentials: the reading kept for repeated headers is never the answer for other headers', () => {
    // readCredentials keeps its last reading; every case after every other, in fresh header objects.
    for (const [, before, expectedBefore] of cases) {
      for (const [name, headers, expected] of cases) {
        expect(readCredentials({ ...before }), name).toEqual(expectedBefore);
        expect(readCredentials({ ...headers }), name).toEqual(expected);
        expect(readCredentials({ ...headers }), name).toEqual(expected);
      }
    }
  });
  it('isWellFormedKey', () => {
    expect(isWellFormedKey(key)).toBe(true);
    expect(isWellFormedKey(`${key}x`)).toBe(false);
    expect(isWellFormedKey(key.replace('hcas_live_', 'hcas_test_'))).toBe(false);
  });
});

describe('calendar windows (UTC)', () => {
  const cases: Array<[string, 'day' | 'month', string, string, string]> = [
    ['mid-day', 'day', '2024-03-10T15:30:00Z', '2024-03-10T00:00:00Z', '2024-03-11T00:00:00Z'],
    ['the first instant of a day', 'day', '2024-03-10T00:00:00Z', '2024-03-10T00:00:00Z', '2024-03-11T00:00:00Z'],
    ['the last millisecond of a day', 'day', '2024-03-10T23:59:59.999Z', '2024-03-10T00:00:00Z', '2024-03-11T00:00:00Z'],
    ["New Year's Eve", 'day', '2024-12-31T12:00:00Z', '2024-12-31T00:00:00Z', '2025-01-01T00:00:00Z'],
    ['a leap day', 'day', '2024-02-29T08:00:00Z', '2024-02-29T00:00:00Z', '2024-03-01T00:00:00Z'],
    ['February of a leap year', 'month', '2024-02-15T00:00:00Z', '2024-02-01T00:00:00Z', '2024-03-01T00:00:00Z'],
    ['December', 'month', '2024-12-31T23:59:59Z', '2024-12-01T00:00:00Z', '2025-01-01T00:00:00Z'],
    ['the first instant of a month', 'month', '2025-07-01T00:00:00Z', '2025-07-01T00:00:00Z', '2025-08-01T00:00:00Z'],
  ];
  for (const [name, unit, now, start, reset] of cases) {
    it(`${unit}: ${name}`, () =>
      expect(windowAt(unit, Date.parse(now))).toEqual({ startSeconds: seconds(start), resetSeconds: seconds(reset) }));
  }

  it('the clock moves to the next window when the time passes the reset, and back when a test sets it back', () => {
    let now = Date.parse('2024-03-10T23:59:59Z');
    const clock = new WindowClock(() => now);
    expect(clock.window('day').resetSeconds).toBe(seconds('2024-03-11T00:00:00Z'));
    now += 1000;
    expect(clock.window('day').startSeconds).toBe(seconds('2024-03-11T00:00:00Z'));
    now = Date.parse('2024-01-01T00:00:00Z');
    expect(clock.window('month').startSeconds).toBe(seconds('2024-01-01T00:00:00Z'));
  });
});

describe('client address', () => {
  const proxies = new TrustedProxies(['127.0.0.1', '::1', '10.0.0.0/8']);
  const cases: Array<[string, string, string | undefined, TrustedProxies, string]> = [
    ['no proxy: the socket peer', '203.0.113.9', undefined, proxies, '203.0.113.9'],
    ['an untrusted peer cannot pick its address', '203.0.113.9', '198.51.100.1', proxies, '203.0.113.9'],
    ['without --trust-proxy nobody is trusted', '127.0.0.1', '198.51.100.1', new TrustedProxies(), '127.0.0.1'],
    ['a trusted proxy: the address it saw', '127.0.0.1', '198.51.100.1', proxies, '198.51.100.1'],
    ['the right-most untrusted hop, not what the client wrote on the left', '127.0.0.1', '6.6.6.6, 198.51.100.1', proxies, '198.51.100.1'],
    ['trusted hops (a chain of proxies) are skipped', '127.0.0.1', '6.6.6.6, 198.51.100.1, 10.1.2.3, 10.0.0.1', proxies, '198.51.100.1'],
    ['all hops trusted: the left-most', '127.0.0.1', '10.0.0.7, 10.0.0.1', proxies, '10.0.0.7'],
    ['a garbage hop ends the walk at the last good address', '127.0.0.1', '198.51.100.1, not-an-ip', proxies, '127.0.0.1'],
    ['garbage left of the client is ignored', '127.0.0.1', 'garbage, 198.51.100.1', proxies, '198.51.100.1'],
    ['IPv4 on a dual-stack socket is IPv4', '::ffff:127.0.0.1', '198.51.100.1', proxies, '198.51.100.1'],
    ['an IPv6 proxy', '::1', '2001:db8::1', proxies, '2001:db8::1'],
    ['an empty header', '127.0.0.1', '', proxies, '127.0.0.1'],
  ];
  for (const [name, peer, forwarded, trusted, expected] of cases) {
    it(name, () => expect(clientAddress(peer, forwarded, trusted)).toBe(expected));
  }
  it('joins repeated X-Forwarded-For headers in order', () => {
    expect(clientAddress('127.0.0.1', ['6.6.6.6', '198.51.100.1'], proxies)).toBe('198.51.100.1');
  });
  it('rejects a malformed --trust-proxy entry, naming the form', () => {
    expect(() => TrustedProxies.parse('127.0.0.1,localhost')).toThrow(/IP addresses or CIDR ranges .* got localhost/);
    expect(() => TrustedProxies.parse('10.0.0.0/33')).toThrow(/got 10.0.0.0\/33/);
  });
  it('counts IPv6 callers by /64, IPv4 callers by address', () => {
    expect(anonymousSubject('203.0.113.9')).toBe('ip:203.0.113.9');
    expect(anonymousSubject('2001:db8:1:2:aaaa::1')).toBe('ip:2001:db8:1:2::/64');
    expect(anonymousSubject('2001:db8:1:2:ffff:ffff:ffff:ffff')).toBe('ip:2001:db8:1:2::/64');
    expect(anonymousSubject('::1')).toBe('ip:0:0:0:0::/64');
  });
});

describe('plan files', () => {
  it('patterns: relative to /api/v1/, :name matches any parameter, a final * the rest', () => {
    expect(patternCovers('health-scores/:zip/', '/api/v1/health-scores/:zip/', API_BASE)).toBe(true);
    expect(patternCovers('health-scores/:zip/', '/api/v1/health-scores/:zip_code/', API_BASE)).toBe(true);
    expect(patternCovers('health-scores/:zip/', '/api/v1/health-scores/geojson/', API_BASE)).toBe(false);
    expect(patternCovers('health-scores/:zip/', '/api/v1/health-scores/:zip/nearby/', API_BASE)).toBe(false);
    expect(patternCovers('rankings/*', '/api/v1/rankings/states/', API_BASE)).toBe(true);
    expect(patternCovers('rankings/*', '/api/v1/rankings/', API_BASE)).toBe(true);
    expect(patternCovers('rankings/*', '/api/v1/rankingsx/', API_BASE)).toBe(false);
    expect(patternCovers('blog/*', '/api/v1/blog/:slug/', API_BASE)).toBe(true);
    expect(patternCovers('/widget/*', '/widget/v1/widget.js', API_BASE)).toBe(true);
    expect(patternCovers('openapi.json', '/api/v1/openapi.json', API_BASE)).toBe(true);
  });

  it('both presets load, cheapest plan first, each including the one before', () => {
    for (const choice of ['a', 'b', 'A']) {
      const set = loadPlans(choice);
      expect(set.plans.length).toBe(4);
      for (let i = 1; i < set.plans.length; i++) {
        for (const pattern of set.plans[i - 1].endpoints) expect(set.plans[i].endpoints).toContain(pattern);
      }
      expect(set.anonymous).toMatchObject({ quota: 100, window: 'day' });
      expect(set.plans.at(-1)!.quota).toBeNull();
    }
    expect(loadPlans('a').plans.map((p) => [p.id, p.quota, p.window])).toEqual([
      ['free', 1000, 'month'],
      ['professional', 50000, 'month'],
      ['business', 500000, 'month'],
      ['enterprise', null, 'month'],
    ]);
  });

  it('every route of the route table is in a plan of each preset (or open to all)', () => {
    for (const choice of ['a', 'b']) expect(() => new AccessTable(loadPlans(choice), ROUTES, API_BASE)).not.toThrow();
  });

  it('a route that no plan mentions stops the server from starting, naming the route and the fix', () => {
    const orphan = route({
      path: '/api/v1/secret-new-thing/',
      exported: { write: 'server', why: 'a test route' },
      summary: 'test',
      pathParams: NO_PARAMS,
      query: NO_PARAMS,
      handle: () => ok({}),
    });
    expect(() => new AccessTable(loadPlans('a'), [...ROUTES, orphan], API_BASE)).toThrow(PlanError);
    expect(() => new AccessTable(loadPlans('a'), [...ROUTES, orphan], API_BASE)).toThrow(
      /no plan opens \/api\/v1\/secret-new-thing\/; add each path .* or to "open"/,
    );
  });

  const broken: Array<[string, unknown, RegExp]> = [
    ['no plans', { plans: [], anonymous: { quota: 1, window: 'day', access: 'x' } }, /"plans" must be a non-empty list/],
    [
      'a bad window',
      { plans: [{ id: 'free', quota: 1, window: 'week' }], anonymous: { quota: 1, window: 'day', access: 'free' } },
      /plan "free" window must be "day" or "month", got "week"/,
    ],
    [
      'a bad quota',
      { plans: [{ id: 'free', quota: -5, window: 'day' }], anonymous: { quota: 1, window: 'day', access: 'free' } },
      /plan "free" quota must be a whole number of calls or "unlimited", got -5/,
    ],
    [
      'a duplicate id',
      {
        plans: [
          { id: 'free', quota: 1, window: 'day' },
          { id: 'free', quota: 2, window: 'day' },
        ],
        anonymous: { quota: 1, window: 'day', access: 'free' },
      },
      /plan "free" appears twice/,
    ],
    [
      'includes a later plan',
      {
        plans: [
          { id: 'free', quota: 1, window: 'day', includes: 'pro' },
          { id: 'pro', quota: 2, window: 'day' },
        ],
        anonymous: { quota: 1, window: 'day', access: 'free' },
      },
      /includes must name a plan listed before it, got "pro"/,
    ],
    [
      'an anonymous tier on no plan',
      { plans: [{ id: 'free', quota: 1, window: 'day' }], anonymous: { quota: 1, window: 'day', access: 'gold' } },
      /"anonymous".access must name a plan, got "gold"/,
    ],
    [
      'a star in the middle',
      { plans: [{ id: 'free', quota: 1, window: 'day', endpoints: ['tvi/*/x/'] }], anonymous: { quota: 1, window: 'day', access: 'free' } },
      /'\*' may only be the last segment/,
    ],
  ];
  for (const [name, json, message] of broken) {
    it(`rejects ${name}`, () => expect(() => parsePlans(json, 'plans.json')).toThrow(message));
  }
  it('names a missing plan file and the choices', () => {
    expect(() => loadPlans('/nonexistent/plans.json')).toThrow(
      /cannot read plan file \/nonexistent\/plans.json \(ENOENT\): pass --plans a, --plans b or the path of a plan file/,
    );
  });
});
