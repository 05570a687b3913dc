/**
 * The map (issue 41): what the national view costs a visitor and the server. Sizes: every file the page loads
 * for the national view (its index.html's scripts and styles, its metadata, outlines, ZIP codes and one score
 * type), gzipped and brotli as the server sends them, against the ~700 KB the issue allows; the county file the
 * county view adds. Server: the first request of each data file on a fresh server (made from the build once,
 * then cached).
 * Chromium (Debian's, headless, started once before the rounds, without its omnibox popup: NO_OMNIBOX): the first full paint of the nation, from the
 * navigation's start (the page's time origin) in a fresh browser context (an empty HTTP cache) over loopback, to
 * the frame that shows the painted canvas, median of the rounds, against the 500 ms; broken down into
 * the network's times (Resource Timing) and the page's marks. Until round two of the work this bench reported
 * `map-painted` (the canvas's drawing calls made) as the first paint; the page's next task could then hold the
 * frame back by seconds under load, so the frame after it is timed too (FRAME_HOOK) and is the target's row.
 * And a hover, from a pointermove to the tooltip's text, median and 95th percentile of 200, against a frame
 * (16.7 ms). The host's load average is printed beside the times (the machine is shared).
 *
 * Before timing, the data files are checked: of one build, one row per ZIP code in the ZIP codes' and the
 * scores' files, every arc's points in the outlines. The paint rounds wait for the page over a bare CDP call,
 * not playwright's page functions, whose injected script would run on the page's thread while it loads (it
 * did: 60-100 ms of a 1.4 s paint at load 10). The file paths come from src/map/data-paths.ts.
 * `--before DIR` runs an older checkout's server (its own page and code, this build's database) beside this
 * one, and alternates their rounds in one browser, so the machine's load falls on both alike.
 * Stand-alone: node bin/run-ts.js bench/map.ts --db FILE [--rounds N] [--before DIR] [--omnibox]
 */
import { loadavg } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import zlib from 'node:zlib';
import { type Browser, chromium } from 'playwright-core';
import { startServer } from '../src/server/server.ts';
import { DATA_PATHS } from '../src/map/data-paths.ts';
// @ts-expect-error: the page's plain JavaScript, read here as the page reads the files.
import { readColumns } from '../src/map/page/columns.js';
import { CHROMIUM_PATH } from '../test/helpers/browser.ts';
import { request } from '../test/helpers/http.ts';
import { median, printTable } from './lib.ts';

const BUDGET_KB = 700;
const PAINT_TARGET_MS = 500;
const FRAME_MS = 1000 / 60;

/** The score type the national view shows first (the page's default). */
const FIRST_TYPE = 'overall';

export async function benchMap({
  db,
  rounds = 5,
  before,
  omnibox = false,
}: {
  db: string;
  rounds?: number;
  before?: string;
  omnibox?: boolean;
}): Promise<void> {
  const servers: Array<{ name: string; server: Server }> = [
    { name: 'this checkout', server: await startServer({ db, port: 0, host: '127.0.0.1', watch: false, quiet: true }) },
  ];
  try {
    if (before !== undefined) servers.unshift({ name: `before (${before})`, server: await beforeServer(before, db) });
    for (const { name, server } of servers) {
      console.log(`\n== ${name}`);
      await checkAndSize(server, name === 'this checkout');
    }
    const browser = await chromium.launch({
      executablePath: CHROMIUM_PATH,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', ...(omnibox ? [] : NO_OMNIBOX)],
      timeout: 30_000,
    });
    try {
      // Alternating rounds (before, after, before, ...) in one browser: the machine's load falls on both alike.
      const timings = servers.map(() => [] as Timing[]);
      for (let round = 0; round < rounds; round++) {
        for (const [n, { server }] of servers.entries()) timings[n].push(await paintRound(browser, server.url, round));
      }
      const ui = omnibox ? "with Chromium's omnibox popup made for each context" : 'no omnibox popup (NO_OMNIBOX)';
      console.log(
        `\nChromium, 1280 x 900, loopback, ${ui}, ${rounds} rounds each${servers.length > 1 ? ', alternated' : ''} (load ${load()}):`,
      );
      printTable(
        ['first paint, ms from navigation start (median, range)', ...servers.map(({ name }) => name)],
        STEPS.map(([label, key]) => [label, ...timings.map((each) => summary(each.map((timing) => timing[key])))]),
      );
      console.log(
        `target: the frame that shows the nation (the last row) under ${PAINT_TARGET_MS} ms. Rows blank where that page has no such mark.`,
      );
      const hovers = await hover(browser, servers.at(-1)!.server.url);
      const sorted = [...hovers].sort((a, b) => a - b);
      printTable(
        ['hover (this checkout)', 'median', 'p95', 'target'],
        [['pointermove to tooltip laid out', `${sorted[100].toFixed(2)} ms`, `${sorted[190].toFixed(2)} ms`, `${FRAME_MS.toFixed(1)} ms`]],
      );
    } finally {
      await browser.close();
    }
  } finally {
    for (const { server } of servers) await server.close();
  }
}

/**
 * Headless Chromium makes its omnibox popup (a WebUI page of ~370 chrome:// modules, seen in a CDP trace) for
 * each new context's window, while the map loads: browser start-up work on the same two cores, which a visitor's
 * running browser has done long before. Off unless `--omnibox`, which times the old way for comparison.
 */
const NO_OMNIBOX = ['--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup,WebUIOmniboxFullPopup'];

type Server = Awaited<ReturnType<typeof startServer>>;

/** A server of an older checkout (its own code, this build), for a before-and-after in one run. */
async function beforeServer(dir: string, db: string): Promise<Server> {
  const module = (await import(pathToFileURL(path.join(path.resolve(dir), 'src/server/server.ts')).href)) as {
    startServer: typeof startServer;
  };
  return module.startServer({ db, port: 0, host: '127.0.0.1', watch: false, quiet: true });
}

/** Checks the data files (nothing is timed if they are wrong), then prints the first request of each and the sizes. */
async function checkAndSize(server: Server, current: boolean): Promise<void> {
  const paths = [
    DATA_PATHS.meta,
    DATA_PATHS.national,
    DATA_PATHS.outlines,
    DATA_PATHS.zips,
    DATA_PATHS.scores.replace('{slug}', FIRST_TYPE),
  ];
  const first: string[][] = [];
  const bodies = new Map<string, Buffer>();
  for (const file of [...paths, DATA_PATHS.counties]) {
    const started = performance.now();
    const response = await request(server.url, file);
    // An older checkout may lack a file this one has (its page does not load it).
    if (response.status === 404 && !current) continue;
    if (response.status !== 200) throw new Error(`${file} answered ${response.status}`);
    first.push([file, `${Math.round(performance.now() - started)} ms`]);
    bodies.set(file, response.body);
  }
  console.log(`first request of each data file on a fresh server (load ${load()}):`);
  printTable(['file', 'first request'], first);
  const data = paths.filter((file) => bodies.has(file));
  if (current) checkData(data, bodies);

  // The page's own files as that server lists them (its index.html's scripts and styles).
  const html = (await request(server.url, '/map/')).body.toString('utf8');
  const own = [...html.matchAll(/<(?:script[^>]*src|link rel="(?:stylesheet|modulepreload)"[^>]*href)="([^"]+\.(?:js|css))"/g)].map(
    (match) => `/map/${match[1]}`,
  );
  const national = ['/map/', ...new Set(own), ...data];
  const rows: string[][] = [];
  const totals = { raw: 0, gzip: 0, br: 0 };
  for (const file of [...national, '/map/data/counties/']) {
    const response = await request(server.url, file);
    if (response.status !== 200) throw new Error(`${file} answered ${response.status}`);
    const body = response.body;
    const sizes = { raw: body.length, gzip: zlib.gzipSync(body, { level: 6 }).length, br: brotli(body) };
    if (national.includes(file)) for (const key of ['raw', 'gzip', 'br'] as const) totals[key] += sizes[key];
    rows.push([national.includes(file) ? file : `${file} (county view)`, kb(sizes.raw), kb(sizes.gzip), kb(sizes.br)]);
  }
  rows.push(['national view, total', kb(totals.raw), kb(totals.gzip), kb(totals.br)]);
  console.log(
    `\nwhat the national view loads (the server sends brotli or gzip as the browser asks; target: under ${BUDGET_KB} KB gzipped):`,
  );
  printTable(['file', 'bytes', 'gzip', 'brotli'], rows);
}

/** One page load's times, ms from the navigation's start (undefined: that page has no such mark). */
type Timing = Record<(typeof STEPS)[number][1], number | undefined>;

/** The rows of the breakdown: the network's (Resource Timing), the page's marks, and the frame after the paint. */
const STEPS = [
  ['HTML received', 'html'],
  ['modules received (the last)', 'modules'],
  ['first layout painted (first-contentful-paint)', 'fcp'],
  ['modules run (DOMContentLoaded)', 'dcl'],
  ['metadata received', 'meta'],
  ['national paths received', 'national'],
  ['outlines received', 'outlines'],
  ['ZIP codes received', 'zips'],
  ['scores received', 'scores'],
  ['metadata read (map-meta)', 'map-meta'],
  ['data in hand (map-fetched)', 'map-fetched'],
  ['land and borders made (map-outlines)', 'map-outlines'],
  ['ZIP codes and scores decoded (map-decoded)', 'map-decoded'],
  ['paint order and colours (map-scene)', 'map-scene'],
  ['canvas drawn (map-painted: the old "first paint")', 'map-painted'],
  ['the frame that shows it (first full paint)', 'frame'],
] as const;

/**
 * One cold load: a fresh browser context (its own empty HTTP cache) in the browser already running, so the
 * times are the page's from its navigation's start, not the browser's start. The frame after `map-painted`
 * is timed by a one-line hook CDP adds before the page's scripts (it runs outside the page's CSP): a task
 * after the next animation frame, which comes after that frame's paint, on both checkouts alike.
 */
async function paintRound(browser: Browser, url: string, round: number): Promise<Timing> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  try {
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Page.enable');
    await cdp.send('Page.addScriptToEvaluateOnNewDocument', { source: FRAME_HOOK });
    await page.goto(`${url}/map/`);
    const shown = await cdp.send('Runtime.evaluate', { expression: READY, awaitPromise: true, returnByValue: true });
    const got = shown.result.value as { state: string; status: string; times: Timing };
    if (got.state !== 'ready') throw new Error(`round ${round}: the map did not load: ${got.status}`);
    return got.times;
  } finally {
    await context.close();
  }
}

/** Marks `bench-frame` in a task after the first animation frame that follows the page's `map-painted` mark. */
const FRAME_HOOK = `(() => {
  const mark = performance.mark.bind(performance);
  performance.mark = (name, ...rest) => {
    const made = mark(name, ...rest);
    if (name === 'map-painted') requestAnimationFrame(() => setTimeout(() => mark('bench-frame'), 0));
    return made;
  };
})()`;

/** The hover: from a pointermove to the tooltip's text laid out, 200 times over a zoomed-in view. */
async function hover(browser: Browser, url: string): Promise<number[]> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  try {
    const page = await context.newPage();
    await page.goto(`${url}/map/#at=800,200,6`);
    await page.waitForFunction(() => document.documentElement.dataset.map === 'ready', null, { timeout: 60_000 });
    return await page.evaluate((count) => {
      const canvas = document.getElementById('map') as HTMLCanvasElement;
      const tip = document.getElementById('tip')!;
      const box = canvas.getBoundingClientRect();
      const times: number[] = [];
      for (let i = 0; i < count; i++) {
        const x = box.left + ((i * 37) % box.width);
        const y = box.top + ((i * 53) % box.height);
        const started = performance.now();
        canvas.dispatchEvent(new PointerEvent('pointermove', { clientX: x, clientY: y, pointerType: 'mouse', bubbles: true }));
        // Reading the tooltip's text and box makes the browser lay it out, as it must before the next frame.
        void tip.textContent;
        void tip.getBoundingClientRect();
        times.push(performance.now() - started);
      }
      return times;
    }, 200);
  } finally {
    await context.close();
  }
}

/**
 * Evaluated in the page (a bare CDP call, see above): waits until the map is ready or failed (the frame's mark
 * too), then answers its state, status line and times (ms from navigation start).
 */
const READY = `new Promise((resolve) => {
  const root = document.documentElement;
  const answer = () => {
    const end = (pattern) => {
      const found = performance.getEntriesByType('resource').filter((entry) => pattern.test(new URL(entry.name).pathname));
      return found.length === 0 ? undefined : Math.round(Math.max(...found.map((entry) => entry.responseEnd)));
    };
    const marks = Object.fromEntries(performance.getEntriesByType('mark').map((mark) => [mark.name, Math.round(mark.startTime)]));
    const navigation = performance.getEntriesByType('navigation')[0];
    const fcp = performance.getEntriesByName('first-contentful-paint')[0];
    resolve({
      state: root.dataset.map,
      status: document.getElementById('status')?.textContent ?? '',
      times: {
        html: Math.round(navigation.responseEnd),
        modules: end(/[.]js$/),
        fcp: fcp && Math.round(fcp.startTime),
        dcl: Math.round(navigation.domContentLoadedEventEnd),
        meta: end(/[/]data[/]$/),
        national: end(/national/),
        outlines: end(/outlines/),
        zips: end(/zips/),
        scores: end(/scores/),
        'map-meta': marks['map-meta'],
        'map-fetched': marks['map-fetched'],
        'map-outlines': marks['map-outlines'],
        'map-decoded': marks['map-decoded'],
        'map-scene': marks['map-scene'],
        'map-painted': marks['map-painted'],
        frame: marks['bench-frame'],
      },
    });
  };
  const done = () => root.dataset.map && (root.dataset.map !== 'ready' || performance.getEntriesByName('bench-frame').length > 0);
  if (done()) return answer();
  const timer = setInterval(() => {
    if (!done()) return;
    clearInterval(timer);
    answer();
  }, 50);
})`;

interface DataFile {
  build_id: string;
  zips?: number;
  [field: string]: unknown;
}

/** A data file as the page reads it: a `.bin` file's header and columns, or the JSON (an older checkout's). */
function readData(file: string, body: Buffer): { header: DataFile; column: (name: string) => ArrayLike<number> } {
  if (file.endsWith('.bin')) {
    const bytes = body.buffer.slice(body.byteOffset, body.byteOffset + body.length);
    const { columns, ...header } = readColumns(bytes, file);
    return { header, column: (name) => columns[name] };
  }
  const header = JSON.parse(body.toString('utf8'));
  return { header, column: (name) => header[name] };
}

/** Checks the national view's files before anything is timed: of one build, the paths there, a row per ZIP code, every arc's points. */
function checkData([metaPath, nationalPath, outlinesPath, zipsPath, scoresPath]: string[], bodies: Map<string, Buffer>): void {
  const meta = readData(metaPath, bodies.get(metaPath)!).header;
  const fail = (what: string) => {
    throw new Error(`the map's data is wrong, nothing timed: ${what}`);
  };
  for (const file of [nationalPath, outlinesPath, zipsPath, scoresPath]) {
    const { header } = readData(file, bodies.get(file)!);
    if (header.build_id !== meta.build_id) fail(`${file} is of build ${header.build_id}, the metadata of ${meta.build_id}`);
  }
  const zips = readData(zipsPath, bodies.get(zipsPath)!);
  const scores = readData(scoresPath, bodies.get(scoresPath)!);
  for (const [file, column] of [
    [zipsPath, zips.column('x')],
    [zipsPath, zips.column('residents')],
    [scoresPath, scores.column('score')],
  ] as const) {
    if (column.length !== meta.zips) fail(`${file} has ${column.length} rows, the metadata counts ${meta.zips} ZIP codes`);
  }
  const national = readData(nationalPath, bodies.get(nationalPath)!).header;
  for (const path of ['land', 'state', 'outline'])
    if (typeof national[path] !== 'string' || !national[path].startsWith('M')) fail(`${nationalPath} has no ${path} path`);
  const outlines = readData(outlinesPath, bodies.get(outlinesPath)!);
  if (outlinesPath.endsWith('.bin')) {
    const points = Array.from(outlines.column('arc_points')).reduce((sum, count) => sum + count, 0);
    if (2 * points !== outlines.column('arcs').length)
      fail(`${outlinesPath} counts ${points} points in ${outlines.column('arcs').length} numbers`);
  }
}

/** A step's median and range over the rounds, or blank when the page has no such mark. */
function summary(values: Array<number | undefined>): string {
  const known = values.filter((value): value is number => value !== undefined);
  if (known.length === 0) return '';
  return `${median(known)} (${Math.min(...known)}-${Math.max(...known)})`;
}

function brotli(body: Buffer): number {
  return zlib.brotliCompressSync(body, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5 } }).length;
}

function kb(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KB`;
}

function load(): string {
  return loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const option = (name: string) => {
    const at = process.argv.indexOf(name);
    return at > 0 ? process.argv[at + 1] : undefined;
  };
  await benchMap({
    db: option('--db') ?? 'dist-api/hcas.sqlite',
    rounds: Number(option('--rounds') ?? 5),
    before: option('--before'),
    omnibox: process.argv.includes('--omnibox'),
  });
}
