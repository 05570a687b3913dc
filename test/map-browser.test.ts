import { createReadStream, existsSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createRequire } from 'node:module';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { searchKey } from '../core/search-key.ts';
import { AccessTable } from '../src/auth/access.ts';
import { Gate } from '../src/auth/gate.ts';
import { MemoryStore } from '../src/auth/memory-store.ts';
import { parsePlans } from '../src/auth/plans.ts';
import { Api, API_BASE, ALL_ROUTES } from '../src/api/index.ts';
import { startServer, type RunningServer } from '../src/server/server.ts';
import { exportStatic } from '../src/static/export.ts';
import { PAGE_DIR } from '../src/map/page.ts';
import { chromiumAvailable, launchChromium } from './helpers/browser.ts';
import { tempDir } from './helpers/files.ts';
import { bodyJson, request } from './helpers/http.ts';
import { cachedDefaultBuild } from './helpers/real-build.ts';

/**
 * The map page (/map/) in Chromium, over the default build as `npm start` makes it: served by `hcas serve`
 * (behind the real gate, with an anonymous quota of 3 so a metered page load would show), and from the static
 * export with no hcas server behind it. Assertions read what a person sees: canvas pixels at the places of
 * known ZIP codes, the tooltip's text, the controls, the URL. Screenshots (desktop, phone, deuteranopia) go to
 * test/artifacts/map/ (gitignored) for a person to look at.
 */

const root = path.resolve(import.meta.dirname, '..');
const ARTIFACTS = path.join(root, 'test/artifacts/map');
const PLAN_LIST_A = JSON.parse(readFileSync(path.join(root, 'config/plans/a.json'), 'utf8'));
const ANONYMOUS_QUOTA = 3;
/** How long a change may take to show: a score type's file is made on its first request, on a loaded machine. */
const POLL = { timeout: 30_000 };
/** Known places: each ZIP code and the inset its dot must be drawn in. */
const KNOWN = [
  { zip: '10001', city: 'New York', state: 'NY', inset: null },
  { zip: '99501', city: 'Anchorage', state: 'AK', inset: 'alaska' },
  { zip: '96813', city: 'Honolulu', state: 'HI', inset: 'hawaii' },
  { zip: '00901', city: 'San Juan', state: 'PR', inset: 'caribbean' },
];

interface Score {
  color: string;
  healthscore: number;
  label: string;
  grade: string;
}

interface MapMeta {
  build_id: string;
  insets: Array<{ id: string; name: string; box: [[number, number], [number, number]] }>;
  frame: { width: number; height: number };
  zips: number;
}

const run = chromiumAvailable('Map browser tests (test/map-browser.test.ts)');

describe.skipIf(!run)('the map page in Chromium', { timeout: 120_000 }, () => {
  let browser: Browser;
  let server: RunningServer;
  let files: http.Server;
  let filesUrl: string;
  let staticDir: string;
  let db: string;
  let meta: MapMeta;
  /** The build's answers read in-process, beside the server: they spend no quota. */
  let direct: Api;

  beforeAll(async () => {
    db = (await cachedDefaultBuild()).out;
    const plans = parsePlans(
      { ...PLAN_LIST_A, anonymous: { ...PLAN_LIST_A.anonymous, quota: ANONYMOUS_QUOTA } },
      `plan list A, anonymous quota ${ANONYMOUS_QUOTA} for the map test`,
    );
    const access = new AccessTable(plans, ALL_ROUTES, API_BASE);
    const gate = new Gate({ store: new MemoryStore(), access });
    server = await startServer({ db, port: 0, host: '127.0.0.1', watch: false, quiet: true, gate });
    const metaFile = await request(server.url, '/map/data/');
    expect(metaFile.status, metaFile.body.toString('utf8').slice(0, 300)).toBe(200);
    meta = bodyJson(metaFile) as MapMeta;
    direct = Api.open(db);

    // The map alone, exported as a static host would get it, and served by a plain file server.
    staticDir = tempDir('hcas-map-static-');
    const now = new Date();
    const api = Api.open(db, { cacheBytes: 0, now: () => now });
    try {
      await exportStatic({
        api,
        out: staticDir,
        indexName: 'index.json',
        providers: false,
        access,
        routeFilter: (routePath) => routePath.startsWith('/map/'),
        progress: () => ({ update() {}, done() {} }),
        now,
      });
    } finally {
      api.retire();
    }
    files = http.createServer((req, res) => serveFile(staticDir, req, res));
    await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
    filesUrl = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
    mkdirSync(ARTIFACTS, { recursive: true });
    browser = await launchChromium();
  }, 900_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => files?.close(resolve));
    await server?.close();
    direct?.retire();
    if (staticDir) rmSync(staticDir, { recursive: true, force: true });
  }, 60_000); // the browser, the server and its threads stopped, and the export's files removed: seconds each on a busy machine

  /** The map at `url` in a fresh context, ready; every request it makes is recorded, and script errors fail the test. */
  async function open(url: string, viewport = { width: 1280, height: 900 }): Promise<{ page: Page; requests: string[]; errors: string[] }> {
    const context = await browser.newContext({ viewport, deviceScaleFactor: 1 });
    const page = await context.newPage();
    const requests: string[] = [];
    const errors: string[] = [];
    page.on('request', (each) => requests.push(each.url()));
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    await page.goto(url);
    await page.waitForFunction(() => document.documentElement.dataset.map, null, { timeout: 60_000 });
    const shown = await page.evaluate(() => ({
      state: document.documentElement.dataset.map,
      status: document.getElementById('status')!.textContent,
    }));
    expect(shown.state, `${shown.status} ${errors.join('; ')}`).toBe('ready');
    return { page, requests, errors };
  }

  /** The colour a person sees at a CSS pixel of the map: the map's canvas with the highlight's above it, as #rrggbb. */
  function pixel(page: Page, [x, y]: readonly number[]): Promise<string> {
    return page.evaluate(
      ([px, py]) => {
        const canvas = document.getElementById('map') as HTMLCanvasElement;
        const seen = document.createElement('canvas');
        seen.width = canvas.width;
        seen.height = canvas.height;
        const ctx = seen.getContext('2d')!;
        ctx.drawImage(canvas, 0, 0);
        ctx.drawImage(document.querySelector('canvas.overlay') as HTMLCanvasElement, 0, 0);
        const ratio = canvas.width / canvas.clientWidth;
        const [r, g, b] = ctx.getImageData(Math.round(px * ratio), Math.round(py * ratio), 1, 1).data;
        return `#${[r, g, b].map((c) => c.toString(16).padStart(2, '0')).join('')}`;
      },
      [x, y],
    );
  }

  const screenOf = (page: Page, zip: string) => page.evaluate((code) => (window as unknown as MapWindow).hcasMap.screenOf(code), zip);
  const params = async (page: Page) => Object.fromEntries(new URLSearchParams(await page.evaluate(() => location.hash.slice(1))));
  /** A ZIP code's score of a type (its slug; default the overall score) as the API answers it. */
  const record = async (zip: string, type = 'overall') => {
    const get = async (url: string) => JSON.parse((await direct.respond({ method: 'GET', url })).body.toString('utf8'));
    const { city, state } = (await get(`/api/v1/health-scores/${zip}/`)) as { city: string; state: string };
    const list = (await get(`/api/v1/health-scores/?state=${state}&city=${encodeURIComponent(city)}&score_type=${type}&page_size=100`)) as {
      results: Array<Score & { zip_code: string }>;
    };
    return list.results.find((each) => each.zip_code === zip)!;
  };
  const apiColor = async (zip: string, type = 'overall') => (await record(zip, type)).color;

  it('paints the nation: every band of the legend on the canvas, in its box, and no request to another host', async () => {
    const { page, requests, errors } = await open(`${server.url}/map/`);
    const colours = await page.evaluate(() => {
      const canvas = document.getElementById('map') as HTMLCanvasElement;
      const data = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
      const seen = new Map<string, number>();
      for (let i = 0; i < data.length; i += 4) {
        const key = `#${[data[i], data[i + 1], data[i + 2]].map((c) => c.toString(16).padStart(2, '0')).join('')}`;
        seen.set(key, (seen.get(key) ?? 0) + 1);
      }
      return Object.fromEntries(seen);
    });
    const legend = await page.$$eval('#bands button', (buttons) => buttons.map((button) => button.textContent));
    expect(legend).toHaveLength(6);
    expect(legend.at(-1)).toContain('No score');
    // Every band shows (the few Healthcare Paradise ZIP codes sit in the cores of cities, under their neighbours' dots).
    const bands = [['#a50026'], ['#d73027', '#f46d43'], ['#fdae61', '#fee090'], ['#abd9e9', '#74add1'], ['#4575b4', '#313695']];
    for (const grades of bands) {
      expect(
        grades.reduce((sum, grade) => sum + (colours[grade] ?? 0), 0),
        `pixels of ${grades.join(' or ')}`,
      ).toBeGreaterThan(5);
    }
    expect(Object.keys(colours).length).toBeGreaterThan(50);
    const origin = new URL(server.url).origin;
    expect(requests.filter((url) => !url.startsWith(origin) && !url.startsWith('data:'))).toEqual([]);
    expect(errors).toEqual([]);
    // Each inset's ZIP code is drawn inside its box.
    const view = await page.evaluate(() => (window as unknown as MapWindow).hcasMap.view);
    const scale = Math.min(view.width / meta.frame.width, view.height / meta.frame.height);
    for (const known of KNOWN.filter((each) => each.inset)) {
      const [x, y] = (await screenOf(page, known.zip))!;
      const [[left, top], [right, bottom]] = meta.insets.find((inset) => inset.id === known.inset)!.box;
      const toScreen = (fx: number, fy: number) => [(fx - view.cx) * scale + view.width / 2, (fy - view.cy) * scale + view.height / 2];
      const [x0, y0] = toScreen(left, top);
      const [x1, y1] = toScreen(right, bottom);
      expect(x > x0 && x < x1 && y > y0 && y < y1, `${known.zip} in the ${known.inset} box`).toBe(true);
    }
    await page.screenshot({ path: path.join(ARTIFACTS, 'nation-desktop.png') });
    await page.context().close();
  });

  it.each(KNOWN)('draws $zip ($city) in the colour the API answers, and its tooltip says what it is', async ({ zip, city, state }) => {
    const { page } = await open(`${server.url}/map/#zip=${zip}`);
    const at = (await screenOf(page, zip))!;
    expect(await pixel(page, at)).toBe(await apiColor(zip));
    const tip = await page.locator('#tip').innerText();
    const answer = await record(zip);
    expect(tip).toContain(`${zip} \u00b7 ${city}, ${state}`);
    expect(tip).toContain(`${answer.healthscore}`);
    expect(tip).toContain(`${answer.label} (grade ${answer.grade})`);
    for (const name of ['People', 'Provider', 'Hospital', 'Travel', 'Residents']) expect(tip).toContain(name);
    const href = await page.locator('#tip a').getAttribute('href');
    expect(new URL(href!, page.url()).pathname).toBe(`/api/v1/health-scores/${zip}/`);
    await page.context().close();
  });

  it('answers a hover with the tooltip of the ZIP code under the pointer', async () => {
    const { page } = await open(`${server.url}/map/#at=835,192,24`);
    const [x, y] = (await screenOf(page, '10001'))!;
    const box = (await page.locator('#map').boundingBox())!;
    await page.mouse.move(box.x + x, box.y + y);
    await expect.poll(() => page.locator('#tip').isVisible(), POLL).toBe(true);
    expect(await page.locator('#tip h3').innerText()).toBe('10001 \u00b7 New York, NY');
    await page.context().close();
  });

  it('finds a ZIP code and a city from the search box, with the keyboard', async () => {
    const { page } = await open(`${server.url}/map/`);
    await page.locator('#search').fill('1000');
    await expect.poll(() => page.locator('[role="option"]').count(), POLL).toBeGreaterThan(0);
    expect(await page.locator('[role="option"]').first().innerText()).toBe('10001 - New York, NY');
    await page.locator('#search').press('ArrowDown');
    expect(await page.locator('#search').getAttribute('aria-activedescendant')).toBe('suggestion-0');
    await page.locator('#search').press('Enter');
    await expect.poll(async () => (await params(page)).zip, POLL).toBe('10001');
    expect(await page.locator('#tip h3').innerText()).toBe('10001 \u00b7 New York, NY');
    await page.locator('#search').fill('denv');
    await expect.poll(() => page.locator('[role="option"]').first().innerText(), POLL).toMatch(/^Denver, CO/);
    await page.locator('#search').press('Enter');
    await expect.poll(async () => (await params(page)).zip, POLL).toMatch(/^80\d{3}$/);
    // The page's search key is core/search-key.ts's.
    const samples = ["O'Brien", 'José', 'ST. LOUIS', 'Allergy & Immunology', 'Mayagüez', '  Coeur d’Alene  '];
    // The page's function, run by the browser's engine: its text from search.js (the page serves its modules joined).
    const source = /^export (function searchKey[\s\S]*?\n})\n/m.exec(readFileSync(path.join(PAGE_DIR, 'search.js'), 'utf8'))![1];
    const keys = await page.evaluate(`${JSON.stringify(samples)}.map(${source})`);
    expect(keys).toEqual(samples.map(searchKey));
    await page.context().close();
  });

  it('switches the score type, the view and the state, and keeps them in the URL', async () => {
    const { page } = await open(`${server.url}/map/#zip=10001`);
    await page.locator('#score-type').selectOption('asthma');
    await expect.poll(async () => (await params(page)).score, POLL).toBe('asthma');
    expect(await pixel(page, (await screenOf(page, '10001'))!)).toBe(await apiColor('10001', 'asthma'));
    expect(await page.locator('#tip').innerText()).toContain('Asthma Score');
    await page.locator('#state').selectOption('CO');
    await expect.poll(async () => (await params(page)).state, POLL).toBe('CO');
    expect(await page.evaluate(() => (window as unknown as MapWindow).hcasMap.view.zoom)).toBeGreaterThan(2);
    expect(await page.locator('#areas caption').innerText()).toBe('Asthma Score by county, Colorado');
    await page.locator('input[name="by"][value="county"]').check();
    await expect.poll(async () => (await params(page)).by, POLL).toBe('county');
    expect(await page.locator('#legend-what').innerText()).toContain('residents-weighted mean');
    // The link shows what its sender saw.
    const link = page.url();
    const again = await open(link);
    expect(await again.page.locator('#score-type').inputValue()).toBe('asthma');
    expect(await again.page.locator('#state').inputValue()).toBe('CO');
    expect(await again.page.locator('input[name="by"]:checked').getAttribute('value')).toBe('county');
    const [seen, sent] = await Promise.all(
      [again.page, page].map((each) => each.evaluate(() => (window as unknown as MapWindow).hcasMap.view)),
    );
    // The URL keeps the centre to a tenth of a frame unit.
    for (const key of ['cx', 'cy', 'zoom'] as const) expect(Math.abs(seen[key] - sent[key]), key).toBeLessThan(0.06);
    await page.context().close();
    await again.page.context().close();
  });

  it('shows one band alone when it is selected in the legend, and every band again when it is selected again', async () => {
    const { page } = await open(`${server.url}/map/`);
    const desert = page.locator('#bands button').first();
    await desert.click();
    expect(await desert.getAttribute('aria-pressed')).toBe('true');
    expect((await params(page)).band).toBe('0');
    const counts = await page.evaluate(() => {
      const canvas = document.getElementById('map') as HTMLCanvasElement;
      const data = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
      let desert = 0;
      let paradise = 0;
      for (let i = 0; i < data.length; i += 4) {
        if (data[i] === 0xa5 && data[i + 1] === 0x00 && data[i + 2] === 0x26) desert++;
        if (data[i] === 0x45 && data[i + 1] === 0x75 && data[i + 2] === 0xb4) paradise++;
      }
      return { desert, paradise };
    });
    expect(counts.desert).toBeGreaterThan(100);
    expect(counts.paradise).toBe(0);
    await desert.click();
    expect(await desert.getAttribute('aria-pressed')).toBe('false');
    await page.context().close();
  });

  it('zooms and pans with the keyboard, and 0 shows the whole country again', async () => {
    const { page } = await open(`${server.url}/map/`);
    const view = () => page.evaluate(() => (window as unknown as MapWindow).hcasMap.view);
    await page.locator('#map').focus();
    await page.keyboard.press('+');
    expect((await view()).zoom).toBe(2);
    const before = await view();
    await page.keyboard.press('ArrowRight');
    expect((await view()).cx).toBeGreaterThan(before.cx);
    await page.keyboard.press('0');
    expect((await view()).zoom).toBe(1);
    await page.context().close();
  });

  it('has no WCAG 2 A or AA violation axe-core finds, in the ZIP and the county views', async () => {
    const axe = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
    for (const fragment of ['', '#by=county&state=NY&zip=10001']) {
      const { page } = await open(`${server.url}/map/${fragment}`);
      // Injected through the DevTools protocol: the page's own policy refuses inline scripts, as it should.
      await page.evaluate(axe);
      const violations = await page.evaluate(async () => {
        const result = await (
          window as unknown as { axe: { run: (c: unknown, o: unknown) => Promise<{ violations: unknown[] }> } }
        ).axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
        return result.violations;
      });
      expect(violations, fragment).toEqual([]);
      await page.context().close();
    }
  });

  it('never meters the page: its files and data are loaded without spending the anonymous quota', async () => {
    // Every page of the tests above came from this address: a dozen files each, none counted.
    const { page } = await open(`${server.url}/map/`);
    await page.context().close();
    const first = await request(server.url, '/api/v1/states/');
    expect(first.status).toBe(200);
    expect(first.headers['x-ratelimit-remaining']).toBe(String(ANONYMOUS_QUOTA - 1));
  });

  it('works from the static export with no hcas server behind it', async () => {
    expect(existsSync(path.join(staticDir, 'map/index.html'))).toBe(true);
    const { page, requests, errors } = await open(`${filesUrl}/map/#zip=99501`);
    expect(await pixel(page, (await screenOf(page, '99501'))!)).toBe(await apiColor('99501'));
    expect(await page.locator('#tip h3').innerText()).toBe('99501 \u00b7 Anchorage, AK');
    await page.locator('#score-type').selectOption('copd');
    await expect.poll(async () => (await params(page)).score, POLL).toBe('copd');
    expect(await pixel(page, (await screenOf(page, '99501'))!)).toBe(await apiColor('99501', 'copd'));
    await page.locator('#search').fill('honol');
    await expect.poll(() => page.locator('[role="option"]').first().innerText(), POLL).toMatch(/^Honolulu, HI/);
    expect(requests.every((url) => url.startsWith(filesUrl) || url.startsWith('data:'))).toBe(true);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('reads well at desktop and phone sizes, and under deuteranopia (screenshots for a person)', async () => {
    for (const [name, viewport] of [
      ['phone', { width: 390, height: 844 }],
      ['desktop-county', { width: 1280, height: 900 }],
    ] as const) {
      const fragment = name === 'phone' ? '#zip=80202' : '#by=county&score=asthma';
      const { page } = await open(`${server.url}/map/${fragment}`, viewport);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow, `${name}: no sideways scrolling`).toBeLessThanOrEqual(0);
      await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: name === 'phone' });
      await page.context().close();
    }
    const { page } = await open(`${server.url}/map/`);
    const session = await page.context().newCDPSession(page);
    await session.send('Emulation.setEmulatedVisionDeficiency', { type: 'deuteranopia' });
    await page.screenshot({ path: path.join(ARTIFACTS, 'nation-deuteranopia.png') });
    await page.context().close();
  });
});

interface MapWindow {
  hcasMap: {
    screenOf(zip: string): [number, number] | null;
    view: { cx: number; cy: number; zoom: number; width: number; height: number };
  };
}

/** A plain static host: files as they are, a folder's index.html or index.json, types by extension. */
function serveFile(dir: string, req: http.IncomingMessage, res: http.ServerResponse): void {
  const pathname = decodeURIComponent(new URL(req.url ?? '/', 'http://host').pathname);
  let file = path.join(dir, pathname);
  if (!file.startsWith(dir)) return void res.writeHead(403).end();
  if (pathname.endsWith('/')) file = [path.join(file, 'index.html'), path.join(file, 'index.json')].find(existsSync) ?? file;
  if (!existsSync(file) || statSync(file).isDirectory()) return void res.writeHead(404).end('not found');
  const types: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.json': 'application/json' };
  res.writeHead(200, { 'Content-Type': types[path.extname(file)] ?? 'application/octet-stream' });
  createReadStream(file).pipe(res);
}
