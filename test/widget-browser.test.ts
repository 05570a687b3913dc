import { mkdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccessTable } from '../src/auth/access.ts';
import { Gate } from '../src/auth/gate.ts';
import { generateKey, hashKey, keyHint } from '../src/auth/keys.ts';
import { MemoryStore } from '../src/auth/memory-store.ts';
import { parsePlans } from '../src/auth/plans.ts';
import { API_BASE, ROUTES } from '../src/api/index.ts';
import { startServer, type RunningServer } from '../src/server/server.ts';
import { WIDGET_SCRIPT_PATH } from '../core/widget.ts';
import { chromiumAvailable, launchChromium } from './helpers/browser.ts';
import { fixtureDb } from './helpers/fixture-db.ts';
import { bodyJson, request } from './helpers/http.ts';

/**
 * The embeddable widget in a real browser (Chromium through playwright-core): a host page on one loopback
 * origin embeds the script served by the API on another, so CORS is exercised as on a customer's site.
 * Assertions read what a person sees: rendered text, computed colours inside the shadow root, boxes.
 * Screenshots go to test/artifacts/widget/ (gitignored) for a human to look at.
 */

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ARTIFACTS = path.join(root, 'test/artifacts/widget');
const PLAN_LIST_A = JSON.parse(readFileSync(path.join(root, 'config/plans/a.json'), 'utf8'));
const STATE = 'data-service-widget-state';

interface WidgetScore {
  zip_code: string;
  city: string;
  state: string;
  score: number;
  label: string;
  grade: string;
  color: string;
  summary: string;
  nearest_hospital: { id: number; name: string; distance_miles: number } | null;
  components: Record<'people' | 'provider' | 'hospital' | 'travel', number>;
  report_url: string;
  attribution: { text: string; url: string };
}

/** What a person sees of one widget, read inside its shadow root. */
interface Seen {
  state: string | null;
  text: string;
  role: string | null;
  name: string | null;
  classes: string;
  background: string;
  color: string;
  tile: { background: string; color: string } | null;
  labelStyle: { fontSize: string; color: string } | null;
  meters: Array<{ name: string | null; now: string | null }>;
  links: Array<{ text: string; href: string }>;
  box: { width: number; height: number };
  /** The least contrast of any visible text against the background behind it (WCAG 2 ratio). */
  lowestContrast: { ratio: number; text: string };
  shadowWidgets: number;
}

const run = chromiumAvailable('Widget browser tests (test/widget-browser.test.ts)');

describe.skipIf(!run)('the embeddable widget in Chromium', { timeout: 30_000 }, () => {
  let browser: Browser;
  let api: RunningServer;
  let limited: RunningServer;
  let host: http.Server;
  let hostUrl: string;
  let closedPort: number;
  let businessKey: string;
  const pages = new Map<string, string>();
  const apiLog: Array<{ method: string; path: string; status: number }> = [];
  const scores = new Map<string, WidgetScore>();
  /** One fixture ZIP per band colour, and the ZIP the size/theme screenshots show (a light colour, with a hospital). */
  let zipOfColor: Map<string, string>;
  let shownZip: string;

  beforeAll(async () => {
    const db = await fixtureDb();
    const read = new Database(db, { readonly: true });
    zipOfColor = new Map(
      (
        read.prepare('SELECT color, MIN(zip_code) AS zip FROM health_scores WHERE score_type_id = 1 GROUP BY color').all() as Array<{
          color: string;
          zip: string;
        }>
      ).map((r) => [r.color, r.zip]),
    );
    shownZip = (
      read
        .prepare(`SELECT h.zip_code AS zip FROM health_scores h JOIN zip_access a ON a.zip_code = h.zip_code
      WHERE h.score_type_id = 1 AND a.nearest_hospital_id IS NOT NULL AND h.color IN ('#fee090', '#abd9e9') ORDER BY h.zip_code LIMIT 1`)
        .get() as { zip: string }
    ).zip;
    read.close();

    // Keys and limits are the real gate's, with plan list A. Test-only changes, both labelled: the suite's many
    // page loads come from one anonymous address, so the main server's anonymous quota is raised; the second
    // server allows one anonymous call, so the widget meets a real 429.
    const store = new MemoryStore();
    businessKey = generateKey();
    await store.addKey(hashKey(businessKey), {
      name: 'widget browser test',
      plan: 'business',
      hint: keyHint(businessKey),
      createdAt: new Date().toISOString(),
    });
    const roomy = parsePlans(
      { ...PLAN_LIST_A, anonymous: { ...PLAN_LIST_A.anonymous, quota: 100_000 } },
      'plan list A, anonymous quota raised for the browser test',
    );
    const tight = parsePlans(
      { ...PLAN_LIST_A, anonymous: { ...PLAN_LIST_A.anonymous, quota: 1 } },
      'plan list A, anonymous quota 1 for the 429 test',
    );
    const gate = (plans: typeof roomy, state = store) => new Gate({ store: state, access: new AccessTable(plans, ROUTES, API_BASE) });
    const log = (record: object) => apiLog.push(record as { method: string; path: string; status: number });
    api = await startServer({ db, port: 0, host: '127.0.0.1', watch: false, log, gate: gate(roomy) });
    limited = await startServer({ db, port: 0, host: '127.0.0.1', watch: false, quiet: true, gate: gate(tight, new MemoryStore()) });
    expect((await request(limited.url, '/api/v1/widget-score/10001/')).status).toBe(200); // the one call allowed

    host = http.createServer((req, res) => {
      const html = pages.get((req.url ?? '').split('?')[0]);
      res.writeHead(html ? 200 : 404, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' });
      res.end(html ?? 'no such page');
    });
    await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
    hostUrl = `http://127.0.0.1:${(host.address() as AddressInfo).port}`;
    closedPort = await freePort();

    for (const zip of [shownZip, ...zipOfColor.values()]) {
      scores.set(zip, bodyJson(await request(api.url, `/api/v1/widget-score/${zip}/`)) as WidgetScore);
    }
    mkdirSync(ARTIFACTS, { recursive: true });
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => host?.close(resolve));
    await api?.close();
    await limited?.close();
  });

  /** Serves `body` as a host page that loads the script from the API (or `script`), and returns its URL. */
  function hostPage(name: string, body: string, options: { head?: string; script?: string } = {}): string {
    const script = options.script ?? `<script async src="${api.url}${WIDGET_SCRIPT_PATH}"></script>`;
    pages.set(
      `/${name}`,
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${name}</title>
      <style>body { margin: 24px; background: #f4f4f4; font-family: serif; }</style>${options.head ?? ''}</head><body>${body}${script}</body></html>`,
    );
    return `${hostUrl}/${name}`;
  }

  /** A page in a fresh context (own storage and HTTP cache) whose script errors fail the test. */
  async function open(
    url: string,
    prepare?: (context: BrowserContext) => Promise<void>,
  ): Promise<{ page: Page; context: BrowserContext; errors: string[] }> {
    const context = await browser.newContext({ viewport: { width: 1200, height: 900 }, deviceScaleFactor: 1 });
    await prepare?.(context);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error' && !/Failed to load resource/.test(message.text())) errors.push(message.text());
    });
    await page.goto(url);
    await settled(page);
    return { page, context, errors };
  }

  /** Waits until every widget element on the page is ready or showing an error. */
  async function settled(page: Page): Promise<void> {
    await page.waitForFunction(
      (state) => {
        const all = [...document.querySelectorAll('[data-service-widget]')];
        return all.length > 0 && all.every((el) => /^(ready|error)$/.test(el.getAttribute(state) ?? ''));
      },
      STATE,
      { timeout: 15_000 },
    );
  }

  function seen(page: Page, selector: string): Promise<Seen> {
    return page.evaluate(
      ([selector, state]) => {
        const host = document.querySelector(selector)!;
        const shadow = host.shadowRoot ?? host.querySelector('span')!.shadowRoot!;
        const widget = shadow.querySelector<HTMLElement>('.w')!;
        const style = getComputedStyle(widget);
        const tile = shadow.querySelector<HTMLElement>('.tile');
        const label = shadow.querySelector<HTMLElement>('.label');
        const channels = (css: string) => (css.match(/[\d.]+/g) ?? []).map(Number);
        const luminance = ([r, g, b]: number[]) => {
          const linear = (c: number) => ((c /= 255) <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
          return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
        };
        const backgroundBehind = (el: Element | null): number[] => {
          for (; el; el = el.parentElement) {
            const value = channels(getComputedStyle(el).backgroundColor);
            if (value.length === 3 || value[3] === 1) return value;
          }
          return [255, 255, 255];
        };
        let lowest = { ratio: Infinity, text: '' };
        for (const el of shadow.querySelectorAll<HTMLElement>('*')) {
          const text = [...el.childNodes]
            .filter((n) => n.nodeType === 3)
            .map((n) => n.textContent)
            .join('')
            .trim();
          if (!text || el.getClientRects().length === 0) continue;
          const [a, b] = [luminance(channels(getComputedStyle(el).color)), luminance(backgroundBehind(el))];
          const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
          if (ratio < lowest.ratio) lowest = { ratio, text };
        }
        const box = (host.shadowRoot ? host : host.querySelector('span')!).getBoundingClientRect();
        return {
          state: host.getAttribute(state),
          text: widget.innerText,
          role: widget.getAttribute('role'),
          name: widget.getAttribute('aria-label'),
          classes: widget.className,
          background: style.backgroundColor,
          color: style.color,
          tile: tile && { background: getComputedStyle(tile).backgroundColor, color: getComputedStyle(tile).color },
          labelStyle: label && { fontSize: getComputedStyle(label).fontSize, color: getComputedStyle(label).color },
          meters: [...shadow.querySelectorAll('[role="meter"]')].map((m) => ({
            name: m.getAttribute('aria-label'),
            now: m.getAttribute('aria-valuenow'),
          })),
          links: [...shadow.querySelectorAll('a')].map((a) => ({ text: a.textContent ?? '', href: a.href })),
          box: { width: box.width, height: box.height },
          lowestContrast: lowest,
          shadowWidgets: shadow.querySelectorAll('.w').length,
        };
      },
      [selector, STATE] as const,
    );
  }

  /** Requests for a ZIP's widget score that reached the API server. */
  const served = (zip: string) => apiLog.filter((r) => r.method === 'GET' && r.path === `/api/v1/widget-score/${zip}/`).length;

  const widget = (id: string, attributes: string) => `<div id="${id}" data-service-widget ${attributes}></div>`;
  const THEME_BACKGROUND = { light: 'rgb(255, 255, 255)', dark: 'rgb(26, 31, 41)' };
  const rgb = (hex: string) => `rgb(${[1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)).join(', ')})`;

  it('renders the three sizes in both themes, each with its own parts, in readable colours', async () => {
    const expected = scores.get(shownZip)!;
    const body = ['light', 'dark']
      .map(
        (theme) =>
          `<section style="padding: 16px; display: flex; gap: 16px; align-items: flex-start">${['compact', 'standard', 'full']
            .map((size) => widget(`${size}-${theme}`, `data-zip="${shownZip}" data-size="${size}" data-theme="${theme}"`))
            .join('')}</section>`,
      )
      .join('');
    const { page, context, errors } = await open(hostPage('sizes', body));
    for (const theme of ['light', 'dark'] as const) {
      for (const size of ['compact', 'standard', 'full']) {
        const id = `${size}-${theme}`;
        const widgetSeen = await seen(page, `#${id}`);
        expect(widgetSeen.state, id).toBe('ready');
        expect(widgetSeen.text, id).toContain(String(expected.score));
        expect(widgetSeen.text, id).toContain(expected.label);
        expect(widgetSeen.tile?.background, `${id}: the score colour comes from the API`).toBe(rgb(expected.color));
        expect(widgetSeen.background, id).toBe(THEME_BACKGROUND[theme]);
        expect(widgetSeen.lowestContrast.ratio, `${id}: "${widgetSeen.lowestContrast.text}" must reach WCAG AA`).toBeGreaterThanOrEqual(
          4.5,
        );
        expect(widgetSeen.box.width, id).toBeGreaterThan(100);
        const grade = new RegExp(`Grade\\s*${expected.grade.replace('+', '\\+')}`, 'i');
        if (size === 'compact') {
          expect(widgetSeen.text, id).not.toMatch(grade);
          expect(widgetSeen.text, id).not.toContain(expected.summary);
        } else {
          expect(widgetSeen.text, id).toMatch(grade);
          expect(widgetSeen.text, id).toContain(expected.summary);
          expect(widgetSeen.text, id).toContain(`Nearest hospital: ${expected.nearest_hospital!.name}`);
        }
        if (size === 'full') {
          const { provider, hospital, people, travel } = expected.components;
          expect(widgetSeen.meters).toEqual(
            [
              ['Providers', provider],
              ['Hospitals', hospital],
              ['People', people],
              ['Travel', travel],
            ].map(([name, now]) => ({ name, now: String(now) })),
          );
          expect(widgetSeen.links).toContainEqual({ text: `Full report for ZIP ${shownZip} →`, href: `${api.url}${expected.report_url}` });
        } else {
          expect(widgetSeen.meters, id).toEqual([]);
        }
        // The widget and the map agree: its link opens the API's map at its ZIP code.
        const mapLink = { text: `See ZIP ${shownZip} on the map →`, href: `${api.url}/map/#zip=${shownZip}` };
        if (size === 'compact') expect(widgetSeen.links, id).not.toContainEqual(mapLink);
        else expect(widgetSeen.links, id).toContainEqual(mapLink);
        await page.locator(`#${id}`).screenshot({ path: path.join(ARTIFACTS, `${id}.png`) });
      }
    }
    await page.screenshot({ path: path.join(ARTIFACTS, 'sizes-and-themes.png'), fullPage: true });
    expect(errors).toEqual([]);
    await context.close();
  });

  it('writes the score in black or white, whichever reads better on each band colour', async () => {
    const body = [...zipOfColor].map(([color, zip]) => widget(`c${color.slice(1)}`, `data-zip="${zip}" data-size="compact"`)).join(' ');
    const { page, context } = await open(hostPage('palette', `<div style="display: flex; flex-wrap: wrap; gap: 12px">${body}</div>`));
    expect(zipOfColor.size).toBeGreaterThanOrEqual(5);
    for (const color of zipOfColor.keys()) {
      const { tile, lowestContrast } = await seen(page, `#c${color.slice(1)}`);
      expect(tile?.background).toBe(rgb(color));
      expect(lowestContrast.ratio, `${color}: "${lowestContrast.text}"`).toBeGreaterThanOrEqual(4.5);
    }
    // The palette's light colours take black ink, its dark ones white: computed, not assumed.
    expect((await seen(page, '#cfee090')).tile?.color).toBe('rgb(0, 0, 0)');
    if (zipOfColor.has('#313695')) expect((await seen(page, '#c313695')).tile?.color).toBe('rgb(255, 255, 255)');
    await page.screenshot({ path: path.join(ARTIFACTS, 'palette.png') });
    await context.close();
  });

  it('gives the badge an accessible name and the component bars meter roles', async () => {
    const expected = scores.get(shownZip)!;
    const { page, context } = await open(hostPage('a11y', widget('full', `data-zip="${shownZip}" data-size="full"`)));
    const name = `Healthcare access score for ZIP ${shownZip}: ${expected.score} out of 100, ${expected.label}, grade ${expected.grade}`;
    await expect(page.getByRole('group', { name, exact: true }).count()).resolves.toBe(1);
    const meter = page.getByRole('meter', { name: 'Providers' });
    expect(await meter.getAttribute('aria-valuenow')).toBe(String(expected.components.provider));
    expect(await meter.getAttribute('aria-valuetext')).toBe(`${expected.components.provider} out of 100`);
    // Keyboard users reach the links inside the shadow root.
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.shadowRoot?.activeElement?.textContent)).toBe(
      `Full report for ZIP ${shownZip} →`,
    );
    await context.close();
  });

  it('says what is wrong instead of showing a broken box: unknown ZIP, bad attributes, API down, rate limit', async () => {
    const cases: Array<[string, string, string]> = [
      ['unknown', 'data-zip="00000"', 'No score for ZIP 00000'],
      ['size', 'data-zip="10001" data-size="huge"', 'data-size must be compact, standard or full, got "huge"'],
      ['zip', 'data-zip="1000A"', 'data-zip must be a 5-digit ZIP code, got "1000A"'],
      ['nozip', '', 'data-zip is missing: it must be a 5-digit ZIP code'],
      ['theme', 'data-zip="10001" data-theme="blue"', 'data-theme must be light or dark, got "blue"'],
      [
        'scheme',
        'data-zip="10001" data-api="ftp://127.0.0.1/"',
        'data-api must be an http or https URL of the API, got "ftp://127.0.0.1/"',
      ],
      ['down', `data-zip="10001" data-api="http://127.0.0.1:${closedPort}"`, 'Healthcare score unavailable right now'],
      ['limited', `data-zip="10001" data-api="${limited.url}"`, 'Too many requests; try again later'],
      ['dark', 'data-zip="00000" data-theme="dark" data-size="compact"', 'No score for ZIP 00000'],
    ];
    const body = cases.map(([id, attributes]) => `<p style="margin: 0 0 12px">${widget(id, attributes)}</p>`).join('');
    const { page, context, errors } = await open(hostPage('errors', body));
    for (const [id, , message] of cases) {
      const shown = await seen(page, `#${id}`);
      expect(shown.state, id).toBe('error');
      expect(shown.text, id).toContain(message);
      expect(shown.box.height, `${id} is a readable box`).toBeGreaterThan(30);
      expect(shown.lowestContrast.ratio, id).toBeGreaterThanOrEqual(4.5);
    }
    expect((await seen(page, '#dark')).background).toBe(THEME_BACKGROUND.dark);
    await page.screenshot({ path: path.join(ARTIFACTS, 'errors.png'), fullPage: true });
    expect(errors).toEqual([]);
    await context.close();
  });

  it('fetches once for two widgets of one ZIP, renders each element once even with the script twice on the page', async () => {
    const zip = '10003';
    const before = served(zip);
    const script = `<script async src="${api.url}${WIDGET_SCRIPT_PATH}"></script>`;
    const { page, context } = await open(
      hostPage(
        'twice',
        `${widget('one', `data-zip="${zip}" data-size="compact"`)} ${widget('two', `data-zip="${zip}" data-theme="dark"`)}`,
        { script: script + script },
      ),
    );
    expect(served(zip) - before).toBe(1);
    for (const id of ['one', 'two']) {
      const shown = await seen(page, `#${id}`);
      expect([shown.state, shown.shadowWidgets]).toEqual(['ready', 1]);
    }
    await context.close();
  });

  it('renders an element added after load, and renders it again when its data-zip changes', async () => {
    const { page, context } = await open(hostPage('later', widget('first', 'data-zip="10001" data-size="compact"')));
    await page.evaluate(() => {
      const later = document.createElement('div');
      later.id = 'later';
      later.setAttribute('data-service-widget', '');
      later.setAttribute('data-zip', '10004');
      document.body.appendChild(later);
    });
    await page.waitForFunction((state) => document.querySelector('#later')?.getAttribute(state) === 'ready', STATE);
    expect((await seen(page, '#later')).name).toContain('ZIP 10004');
    await page.evaluate(() => document.querySelector('#later')!.setAttribute('data-zip', '10005'));
    await page.waitForFunction(() =>
      document.querySelector('#later')?.shadowRoot?.querySelector('.w')?.getAttribute('aria-label')?.includes('ZIP 10005'),
    );
    const shown = await seen(page, '#later');
    expect([shown.state, shown.shadowWidgets]).toEqual(['ready', 1]);
    await context.close();
  });

  it('stays visible and styled under a hostile host stylesheet', async () => {
    const hostile = `<style>body * { display: none !important } div { color: red !important; font-size: 2px !important; line-height: 0 !important }
      * { font-family: "Comic Sans MS", cursive !important; box-sizing: content-box !important; border: 3px dashed red !important }</style>`;
    const body = `<p id="probe">host text</p>${widget('hostile', `data-zip="${shownZip}" data-size="standard"`)}`;
    const { page, context } = await open(hostPage('hostile', body, { head: hostile }));
    expect(await page.locator('#probe').boundingBox(), 'the hostile stylesheet is in force').toBeNull();
    const shown = await seen(page, '#hostile');
    expect(shown.box.width).toBeGreaterThan(300);
    expect(shown.box.height).toBeGreaterThan(100);
    expect(shown.labelStyle).toEqual({ fontSize: '17px', color: 'rgb(31, 41, 51)' });
    expect(shown.lowestContrast.ratio).toBeGreaterThanOrEqual(4.5);
    expect(shown.text).toContain(scores.get(shownZip)!.label);
    await page.locator('#hostile').screenshot({ path: path.join(ARTIFACTS, 'hostile-page.png') });
    await context.close();
  });

  it('keeps an answer 24 hours: a reload sends no request, an expired entry asks again, no storage still renders', async () => {
    const zip = '10006';
    const before = served(zip);
    const url = hostPage('cached', widget('cached', `data-zip="${zip}"`));
    const { page, context } = await open(url);
    expect(served(zip) - before).toBe(1);
    const stored = await page.evaluate(() =>
      Object.keys(localStorage)
        .filter((k) => k.startsWith('hcas-widget:'))
        .map((k) => [k, JSON.parse(localStorage.getItem(k)!).expires - Date.now()] as const),
    );
    expect(stored).toHaveLength(1);
    expect(stored[0][0]).toBe(`hcas-widget:v1:${api.url}/api/v1/${zip}`);
    expect(stored[0][1]).toBeGreaterThan(86_400_000 - 60_000);
    expect(stored[0][1]).toBeLessThanOrEqual(86_400_000);

    const asked: string[] = [];
    page.on('request', (r) => r.url().includes('/widget-score/') && asked.push(r.url()));
    await page.reload();
    await settled(page);
    expect(asked, 'no fetch at all: the browser did not even consult its HTTP cache').toEqual([]);
    expect(served(zip) - before).toBe(1);
    expect((await seen(page, '#cached')).state).toBe('ready');

    await page.evaluate(
      (key) => localStorage.setItem(key, JSON.stringify({ ...JSON.parse(localStorage.getItem(key)!), expires: Date.now() - 1 })),
      stored[0][0],
    );
    await page.reload();
    await settled(page);
    expect(asked).toEqual([`${api.url}/api/v1/widget-score/${zip}/`]);
    await context.close();

    // Storage that throws (blocked cookies, some private modes): the widget still renders, from the network.
    const blocked = await open(url, async (c) => {
      await c.addInitScript(() =>
        Object.defineProperty(window, 'localStorage', {
          get: () => {
            throw new DOMException('denied', 'SecurityError');
          },
        }),
      );
    });
    expect((await seen(blocked.page, '#cached')).state).toBe('ready');
    expect(blocked.errors).toEqual([]);
    await blocked.context.close();
  });

  it('drops the attribution for a Business-plan key (white-label) and links it otherwise', async () => {
    const zip = '10007';
    const body = `${widget('branded', `data-zip="${zip}"`)} ${widget('white', `data-zip="${zip}" data-key="${businessKey}" data-theme="dark"`)}`;
    const { page, context } = await open(hostPage('white-label', body));
    const { attribution } = scores.get(shownZip)!;
    const branded = await seen(page, '#branded');
    expect(branded.links).toEqual([
      { text: `See ZIP ${zip} on the map →`, href: `${api.url}/map/#zip=${zip}` },
      { text: attribution.text, href: `${api.url}${attribution.url}` },
    ]);
    const white = await seen(page, '#white');
    expect(white.state).toBe('ready');
    expect(white.links).toEqual([]);
    expect(white.text).not.toContain(attribution.text);
    // The key went as X-API-Key after a CORS preflight, and the gate answered as the Business plan.
    expect(
      apiLog
        .filter((r) => r.path === `/api/v1/widget-score/${zip}/`)
        .map((r) => r.method)
        .sort(),
    ).toEqual(['GET', 'GET', 'OPTIONS']);
    await page.screenshot({ path: path.join(ARTIFACTS, 'white-label.png') });
    await context.close();
  });

  it('shows every size and theme on the demo page (docs/widget-demo.html)', async () => {
    // Served as it is: the page takes the API's origin from ?api= (a user's other port), none hard-coded.
    pages.set('/demo', readFileSync(path.join(root, 'docs/widget-demo.html'), 'utf8'));
    const { page, context, errors } = await open(`${hostUrl}/demo?api=${encodeURIComponent(api.url)}`);
    const states = await page.$$eval('[data-service-widget]', (all, state) => all.map((el) => el.getAttribute(state)), STATE);
    expect(states.filter((s) => s === 'error')).toHaveLength(2); // the two "when something is wrong" examples
    expect(states.filter((s) => s === 'ready').length).toBe(states.length - 2);
    expect(await page.locator('#snippet').textContent()).toContain(`<script async src="${api.url}/widget/v1/widget.js"></script>`);
    await page.screenshot({ path: path.join(ARTIFACTS, 'demo.png'), fullPage: true });
    expect(errors).toEqual([]);
    await context.close();
  });
});

/** A loopback port nothing listens on (taken from the OS, then released). */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
