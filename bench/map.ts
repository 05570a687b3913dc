/**
 * The map (issue 41): what the national view costs a visitor and the server. Sizes: every file the page loads
 * for the national view (the page's own files, its metadata, outlines, ZIP codes and one score type), gzipped and
 * brotli as the server sends them, against the ~700 KB the issue allows; the county file the county view adds.
 * Server: the first request of each data file on a fresh server (made from the build once, then cached).
 * Chromium (Debian's, headless): the first full paint of the nation, from navigation start to the page's
 * `map-painted` mark, cold (fresh browser context) over loopback, median of five, against the 500 ms;
 * and a hover, from a pointermove to the tooltip's text, median and 95th percentile of 200, against a frame
 * (16.7 ms). The host's load average is printed beside the times (the machine is shared).
 * Stand-alone: node bin/run-ts.js bench/map.ts --db FILE
 */
import { loadavg } from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { startServer } from '../src/server/server.ts';
import { PAGE_FILES } from '../src/map/page.ts';
import { launchChromium } from '../test/helpers/browser.ts';
import { request } from '../test/helpers/http.ts';
import { printTable } from './api.ts';

const BUDGET_KB = 700;
const PAINT_TARGET_MS = 500;
const FRAME_MS = 1000 / 60;

export async function benchMap({ db }: { db: string }): Promise<void> {
  const server = await startServer({ db, port: 0, host: '127.0.0.1', watch: false, quiet: true });
  try {
    const first: string[][] = [];
    for (const file of ['/map/data/', '/map/data/outlines/', '/map/data/zips/', '/map/data/scores/overall/', '/map/data/counties/']) {
      const started = performance.now();
      const response = await request(server.url, file);
      if (response.status !== 200) throw new Error(`${file} answered ${response.status}`);
      first.push([file, `${Math.round(performance.now() - started)} ms`]);
    }
    console.log(`first request of each data file on a fresh server (load ${load()}):`);
    printTable(['file', 'first request'], first);

    const national = [
      ...PAGE_FILES.map((file) => file.path),
      '/map/data/',
      '/map/data/outlines/',
      '/map/data/zips/',
      '/map/data/scores/overall/',
    ];
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
      const paints: number[] = [];
      let marks: Record<string, number> = {};
      for (let round = 0; round < 5; round++) {
        const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
        const page = await context.newPage();
        await page.goto(`${server.url}/map/`);
        await page.waitForFunction(() => document.documentElement.dataset.map === 'ready', null, { timeout: 60_000 });
        marks = await page.evaluate(() =>
          Object.fromEntries(performance.getEntriesByType('mark').map((mark) => [mark.name, Math.round(mark.startTime)])),
        );
        paints.push(marks['map-painted']);
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
      const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
      console.log(`\nChromium, 1280 x 900, loopback (load ${load()}):`);
      printTable(
        ['measure', 'median', 'spread', 'target'],
        [
          [
            'first full paint of the nation (navigation to map-painted)',
            `${median(paints)} ms`,
            `${Math.min(...paints)}-${Math.max(...paints)} ms`,
            `${PAINT_TARGET_MS} ms`,
          ],
          ['of which: data fetched, decoded (last round)', `${marks['map-fetched']}, ${marks['map-decoded']} ms`, '', ''],
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
  const at = process.argv.indexOf('--db');
  await benchMap({ db: at > 0 ? process.argv[at + 1] : 'dist-api/hcas.sqlite' });
}
