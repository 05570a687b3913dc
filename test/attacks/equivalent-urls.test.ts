import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/server/server.ts';
import { tempDir } from '../helpers/files.ts';
import { fixtureDb } from '../helpers/fixture-db.ts';
import { bodyJson, request } from '../helpers/http.ts';
import { heldMb, nationalCopy, tally } from './helpers.ts';

/**
 * Finding 3 of issue #16: equivalent URLs defeated the cache. The integer parser took `+0`, `00`, `000`;
 * the response cache keyed on the raw URL; each spelling of `health-scores/geojson/?min_score=...` rebuilt
 * the 6 MB body on the event loop (1.2-2 s under load), and four in flight made a request for `widget.js`
 * on that worker wait 2.9 s. Now each value has one spelling, the cache keys on the request as parsed, and
 * the GeoJSON is made one at a time per process, in slices that let other requests through.
 */

const dir = tempDir('hcas-attack-urls-');
/** The cache budget of this test's server: small, so the memory bound below is tight. */
const CACHE_BYTES = 16 * 1024 * 1024;
let server: RunningServer;

beforeAll(async () => {
  const db = nationalCopy(await fixtureDb(), path.join(dir, 'hcas.sqlite'));
  server = await startServer({
    db,
    port: 0,
    host: '127.0.0.1',
    quiet: true,
    watch: false,
    log: () => {},
    snapshotDir: path.join(dir, 'copies'),
    api: { cacheBytes: CACHE_BYTES },
  });
});
afterAll(() => server.close());

describe('one spelling per value', () => {
  it('an integer with a sign or leading zeros is a 400 that shows the one spelling', async () => {
    for (const spelling of ['+0', '00', '000', '-0']) {
      const answer = await request(server.url, `/api/v1/health-scores/geojson/?min_score=${encodeURIComponent(spelling)}`);
      expect(answer.status, spelling).toBe(400);
      expect(bodyJson(answer)).toEqual({
        error: 'invalid_parameter',
        status: 400,
        message: `min_score must be written 0, without a sign or leading zeros, got ${spelling}`,
      });
    }
    expect(bodyJson(await request(server.url, '/api/v1/health-scores/?page=02'))).toMatchObject({
      message: 'page must be written 2, without a sign or leading zeros, got 02',
    });
    expect((await request(server.url, '/api/v1/facilities/007/')).status).toBe(400);
    expect((await request(server.url, '/api/v1/health-scores/?min_score=70')).status).toBe(200);
  });

  it('every spelling of one request is one cache entry and one ETag: the body is made once', async () => {
    const before = server.live.cacheStats();
    const spellings = [
      '/api/v1/health-scores/geojson/?state=ny&min_score=70',
      '/api/v1/health-scores/geojson/?min_score=70&state=NY',
      '/api/v1/health-scores/geojson/?state=Ny&min_score=70',
      '/api/v1/health-scores/geojson/?state=%4Ey&min_score=70',
      '/api/v1/health-scores/geojson/?min_score=70&state=nY',
    ];
    const answers = [];
    for (const spelling of spellings) answers.push(await request(server.url, spelling));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(new Set(answers.map((a) => a.headers.etag)).size).toBe(1);
    const after = server.live.cacheStats();
    expect(after.misses - before.misses).toBe(1);
    expect(after.hits - before.hits).toBe(spellings.length - 1);
    // A spelling seen before is answered from its alias, before any parsing; still one body.
    expect((await request(server.url, spellings[3])).headers.etag).toBe(answers[0].headers.etag);
  });
});

/** GET on a keep-alive connection of its own (as a browser loading a page would), resolving with the status and when it ended. */
function get(agent: http.Agent, url: string): Promise<{ status: number; at: number }> {
  return new Promise((resolve) => {
    http
      .get(url, { agent }, (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, at: performance.now() }));
      })
      .on('error', () => resolve({ status: 0, at: performance.now() }));
  });
}

describe('expensive answers and cheap ones', { timeout: 120_000 }, () => {
  it('20 different national GeoJSON answers at once: 17 made one at a time, 3 refused 503, and cheap requests never wait behind them', async () => {
    const held = heldMb();
    // From five client addresses, four each: none is past its share of the line (4 waiting), so the line's
    // total is what refuses (issue #44 made the line per caller: test/attacks/fair-queues.test.ts).
    const heavyAgents = Array.from(
      { length: 5 },
      (_, i) => new http.Agent({ keepAlive: true, maxSockets: 8, localAddress: `127.0.0.${i + 1}` }),
    );
    const cheapAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    // Warm the cheap path first, so what is measured below is waiting, not a first computation.
    await get(cheapAgent, `${server.url}/widget/v1/widget.js`);
    await get(cheapAgent, `${server.url}/api/v1/health-scores/10001/`);
    const heavy = Array.from({ length: 20 }, (_, i) =>
      get(heavyAgents[i % heavyAgents.length], `${server.url}/api/v1/health-scores/geojson/?min_score=${i}`),
    );
    const heavyDone: number[] = [];
    for (const p of heavy) void p.then((r) => r.status === 200 && heavyDone.push(r.at));
    // Meanwhile a page loads its script and asks for a score, 20 times in a row.
    const cheap: Array<{ status: number; at: number }> = [];
    for (let i = 0; i < 10; i++) {
      cheap.push(await get(cheapAgent, `${server.url}/widget/v1/widget.js?v=${i}`));
      cheap.push(await get(cheapAgent, `${server.url}/api/v1/health-scores/10001/`));
    }
    const heavyAnswers = await Promise.all(heavy);
    // One at a time, 16 waiting: exactly the 17 first are made, the others refused at once (Retry-After: 1).
    expect(tally(heavyAnswers)).toEqual({ 200: 17, 503: 3 });
    expect(cheap.every((r) => r.status === 200)).toBe(true);
    // Every cheap request was answered while most GeoJSON answers were still being made: none waited behind
    // them (before, each waited for whole bodies, so the 20 finished only after most of the GeoJSON).
    const lastCheap = Math.max(...cheap.map((r) => r.at));
    expect(heavyDone.filter((at) => at < lastCheap).length).toBeLessThanOrEqual(5);
    // The cache holds what its budget allows (6 MB bodies: two or so), nothing more.
    expect(server.live.cacheStats().bytes).toBeLessThanOrEqual(CACHE_BYTES);
    expect(heldMb() - held).toBeLessThan(CACHE_BYTES / 2 ** 20 + 16);
    for (const agent of [...heavyAgents, cheapAgent]) agent.destroy();
  });
});
