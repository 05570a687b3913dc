import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PACKAGE_ROOT } from '../../core/package.ts';
import { joinModules } from './join-modules.ts';

/** Where the map's page is served; its files and data sit under it. */
export const MAP_PATH = '/map/';

/** The page's script as served: its modules joined, from this entry module. */
const SCRIPT = 'map.js';
const ENTRY_MODULE = 'main.js';

/**
 * The page's own files: hand-written HTML and CSS served as they are, and its script, the modules of
 * src/map/page/ joined into one from main.js (join-modules.ts; no build step, nothing to install).
 */
export const PAGE_FILES: ReadonlyArray<{ path: string; file: string; type: string }> = [
  { path: '/map/', file: 'index.html', type: 'text/html; charset=utf-8' },
  { path: '/map/map.css', file: 'map.css', type: 'text/css; charset=utf-8' },
  { path: '/map/map.js', file: SCRIPT, type: 'text/javascript; charset=utf-8' },
];

/** The folder of the page's files (read from the package, as the widget's script is, so `dist/` needs no copy). */
export const PAGE_DIR = path.join(PACKAGE_ROOT, 'src/map/page');

/**
 * The page's policy: its own scripts, styles and data only, nothing inline and no other host, so it works
 * offline and behind a firewall. index.html repeats it in a meta tag for static hosts that send no headers
 * (a meta tag cannot carry frame-ancestors).
 */
export const MAP_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'self'";

/** One of the page's files: its bytes and a tag of them (the same in every build, so it survives a new build). */
export interface PageFile {
  body: Buffer;
  etag: string;
}

const read = new Map<string, PageFile>();

/** The bytes of one of the page's files, read on first use. */
export function pageFile(file: string): PageFile {
  let found = read.get(file);
  if (found === undefined) {
    const body = file === SCRIPT ? Buffer.from(joinModules(PAGE_DIR, ENTRY_MODULE)) : readFileSync(path.join(PAGE_DIR, file));
    found = { body, etag: `"map-${createHash('sha256').update(body).digest('base64url').slice(0, 16)}"` };
    read.set(file, found);
  }
  return found;
}
