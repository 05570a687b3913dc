/**
 * The map (issue 41): what the national view costs a visitor and the server. Sizes: every file the page loads
 * for the national view (the page's own files, its metadata, outlines, ZIP codes and one score type), gzipped and
 * brotli as the server sends them, against the ~700 KB the issue allows; the county file the county view adds.
 * Server: the first request of each data file on a fresh server (made from the build once, then cached).
 * Chromium (Debian's, headless): the first full paint of the nation, from navigation start to the page's
 * `map-painted` mark, cold (fresh browser context) over loopback, median of the rounds, against the issue's
 * 500 ms, with the page's own marks of when its data was fetched and decoded; and a hover, from a pointermove
 * to the tooltip's text, median and 95th percentile of 200, against a frame (16.7 ms). The host's load average
 * is printed beside the times (the machine is shared).
 *
 * Before timing, the data files are checked: of one build, one row per ZIP code in the ZIP codes' and the
 * scores' files, every arc's points in the outlines. The paint rounds wait for the page over a bare CDP call,
 * not playwright's page functions, whose injected script would run on the page's thread while it loads (it
 * did: 60-100 ms of a 1.4 s paint at load 10). The file paths come from src/map/data-paths.ts, so the same bench
 * runs on an older checkout for a before-and-after (JSON or binary files alike).
 * Stand-alone: node bin/run-ts.js bench/map.ts --db FILE [--rounds N]
 */
import { loadavg } from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { startServer } from '../src/server/server.ts';
import { DATA_PATHS } from '../src/map/data-paths.ts';
import { PAGE_FILES } from '../src/map/page.ts';
// @ts-expect-error: the page's plain JavaScript, read here as the page reads the files.
import { readColumns } from '../src/map/page/columns.js';
import { launchChromium } from '../test/helpers/browser.ts';
import { request } from '../test/helpers/http.ts';
import { median, printTable } from './lib.ts';

const BUDGET_KB = 700;
const PAINT_TARGET_MS = 500;
const FRAME_MS = 1000 / 60;

/** The score type the national view shows first (the page's default). */
const FIRST_TYPE = 'overall';

export async function benchMap({ db, rounds = 5 }: { db: string; rounds?: number }): Promise<void> {
  const server = await startServer({ db, port: 0, host: '127.0.0.1', watch: false, quiet: true });
  try {
    const data = [DATA_PATHS.meta, DATA_PATHS.outlines, DATA_PATHS.zips, DATA_PATHS.scores.replace('{slug}', FIRST_TYPE)];
    const first: string[][] = [];
    const bodies = new Map<string, Buffer>();
    for (const file of [...data, DATA_PATHS.counties]) {
      const started = performance.now();
      const response = await request(server.url, file);
      if (response.status !== 200) throw new Error(`${file} answered ${response.status}`);
      first.push([file, `${Math.round(performance.now() - started)} ms`]);
      bodies.set(file, response.body);
    }
    console.log(`first request of each data file on a fresh server (load ${load()}):`);
    printTable(['file', 'first request'], first);
    checkData(data, bodies);

    const national = [...PAGE_FILES.map((file) => file.path), ...data];
    const rows: string[][] = [];
    const totals = { raw: 0, gzip: 0, br: 0 };
    for (const file of [...national, '/map/data/counties/']) {
      const body = (await request(server.url, file)).body;
      const sizes = { raw: body.length, gzip: zlib.gzipSync(body, { level: 6 }).length, br: brotli(body) };
      if (national.includes(file)) for (const key of ['raw', 'gzip', 'br'] as const) totals[key] += sizes[key];
      rows.push([national.includes(file) ? file : `${file} (county view)`, kb(sizes.raw), kb(sizes.gzip), kb(sizes.br)]);
    }
    rows.push(['national view, total', kb(totals.raw), kb(totals.gzip), kb(totals.br)]);
    console.log(
      `\nwhat the national view loads (the server sends brotli or gzip as the browser asks; target: under ${BUDGET_KB} KB gzipped):`,
    );
    printTable(['file', 'bytes', 'gzip', 'brotli'], rows);

    const browser = await launchChromium();
    try {
      const marks: Record<string, number[]> = { 'map-fetched': [], 'map-decoded': [], 'map-painted': [] };
      for (let round = 0; round < rounds; round++) {
        const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
        const page = await context.newPage();
        const cdp = await context.newCDPSession(page);
        await page.goto(`${server.url}/map/`);
        const shown = await cdp.send('Runtime.evaluate', { expression: READY, awaitPromise: true, returnByValue: true });
        const got = shown.result.value as { state: string; status: string; marks: Record<string, number> };
        if (got.state !== 'ready') throw new Error(`round ${round}: the map did not load: ${got.status}`);
        for (const name of Object.keys(marks)) marks[name].push(got.marks[name]);
        await context.close();
      }
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const page = await context.newPage();
      await page.goto(`${server.url}/map/#at=800,200,6`);
      await page.waitForFunction(() => document.documentElement.dataset.map === 'ready', null, { timeout: 60_000 });
      const hovers = await page.evaluate((count) => {
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
      await context.close();
      const sorted = [...hovers].sort((a, b) => a - b);
      const paints = marks['map-painted'];
      console.log(`\nChromium, 1280 x 900, loopback (load ${load()}):`);
      printTable(
        ['measure', 'median', 'spread', 'target'],
        [
          ['first full paint of the nation (navigation to map-painted)', `${median(paints)} ms`, spread(paints), `${PAINT_TARGET_MS} ms`],
          ['of which: data fetched (map-fetched)', `${median(marks['map-fetched'])} ms`, spread(marks['map-fetched']), ''],
          ['of which: data decoded (map-decoded)', `${median(marks['map-decoded'])} ms`, spread(marks['map-decoded']), ''],
          [
            'hover: pointermove to tooltip laid out',
            `${sorted[100].toFixed(2)} ms`,
            `p95 ${sorted[190].toFixed(2)} ms`,
            `${FRAME_MS.toFixed(1)} ms`,
          ],
        ],
      );
    } finally {
      await browser.close();
    }
  } finally {
    await server.close();
  }
}

/**
 * Evaluated in the page (a bare CDP call, see above): waits until the map is ready or failed, then answers
 * its state, status line and marks (ms from navigation start).
 */
const READY = `new Promise((resolve) => {
  const root = document.documentElement;
  const answer = () => resolve({
    state: root.dataset.map,
    status: document.getElementById('status')?.textContent ?? '',
    marks: Object.fromEntries(performance.getEntriesByType('mark').map((mark) => [mark.name, Math.round(mark.startTime)])),
  });
  if (root.dataset.map) return answer();
  new MutationObserver((_, observer) => {
    if (!root.dataset.map) return;
    observer.disconnect();
    answer();
  }).observe(root, { attributes: true, attributeFilter: ['data-map'] });
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

/** Checks the national view's files before anything is timed: of one build, a row per ZIP code, every arc's points. */
function checkData([metaPath, outlinesPath, zipsPath, scoresPath]: string[], bodies: Map<string, Buffer>): void {
  const meta = readData(metaPath, bodies.get(metaPath)!).header;
  const fail = (what: string) => {
    throw new Error(`the map's data is wrong, nothing timed: ${what}`);
  };
  for (const file of [outlinesPath, zipsPath, scoresPath]) {
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
  const outlines = readData(outlinesPath, bodies.get(outlinesPath)!);
  if (outlinesPath.endsWith('.bin')) {
    const points = Array.from(outlines.column('arc_points')).reduce((sum, count) => sum + count, 0);
    if (2 * points !== outlines.column('arcs').length)
      fail(`${outlinesPath} counts ${points} points in ${outlines.column('arcs').length} numbers`);
  }
}

function spread(values: number[]): string {
  return `${Math.min(...values)}-${Math.max(...values)} ms`;
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
  await benchMap({ db: option('--db') ?? 'dist-api/hcas.sqlite', rounds: Number(option('--rounds') ?? 5) });
}
