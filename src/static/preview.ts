import { createReadStream, existsSync, readFileSync, statSync, type Stats } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { FixableError } from '../../core/errors.ts';
import { negotiate } from '../http/compress.ts';
import { CODINGS } from './files.ts';
import { HEADERS_FILE, headersFor, parseHeaders, type HeaderRule } from './host-headers.ts';
import { MANIFEST_FILE, readManifestHeader, type ManifestHeader } from './manifest.ts';

/**
 * `hcas preview`: an export served on this machine as a static host serves it, to see what callers of the host
 * will get before uploading. Nothing is made: each answer is its file, with the headers `_headers` gives its
 * path (as Netlify and Cloudflare Pages read that file), a folder path answered from its index document, the
 * `.gz` and `.br` beside a file sent to clients that take them (as nginx's gzip_static does), ETag and
 * Last-Modified from the file. What a static host cannot do is not done either: a query string is ignored (the
 * first page is answered whatever `?page=` says), a path the export has not gets the host's plain 404, and there
 * is no key, quota or paid endpoint: those are `hcas serve`'s.
 */

/** One request, for the log: what was asked, what was answered, from which file, and what a caller should know. */
export interface PreviewRequest {
  method: string;
  path: string;
  status: number;
  file?: string;
  note?: string;
}

export interface PreviewOptions {
  /** The export's folder: `hcas export-static --out`. */
  folder: string;
  host: string;
  /** 0 for a free port. */
  port: number;
  log?: (request: PreviewRequest) => void;
}

export interface RunningPreview {
  url: string;
  manifest: ManifestHeader;
  /** False when the export has no `_headers` (made before hcas wrote one): files get the type of their name only. */
  hostHeaders: boolean;
  close(): Promise<void>;
}

/** The type a host gives a file by its name, where `_headers` names none (as Netlify and Cloudflare Pages do). */
const TYPES: Readonly<Record<string, string>> = {
  '.json': 'application/json',
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

/** What one request is answered with. */
interface Answer {
  status: number;
  headers: Record<string, string>;
  /** The file sent (relative to the folder), or a short text body. */
  file?: string;
  stat?: Stats;
  text?: string;
  note?: string;
}

/** Starts serving `folder`; refuses a folder that is not an export, naming the command that makes one. */
export async function startPreview(options: PreviewOptions): Promise<RunningPreview> {
  const folder = path.resolve(options.folder);
  const manifest = readManifestHeader(folder);
  if (manifest === undefined)
    throw new FixableError(
      `${folder} is not an hcas static export (it has no ${MANIFEST_FILE}): make one with hcas export-static --out ${options.folder}`,
    );
  const headersFile = path.join(folder, HEADERS_FILE);
  const hostHeaders = existsSync(headersFile);
  const rules = hostHeaders ? parseHeaders(readFileSync(headersFile, 'utf8')) : [];
  const site = { folder, indexNames: [...new Set([manifest.index_name, 'index.html'])], rules };
  const server = http.createServer((request, response) => {
    let answer: Answer;
    try {
      answer = answerFor(site, request);
    } catch (error) {
      // A file removed or replaced while it is answered (an export written over the folder): this request
      // fails, the preview goes on.
      answer = plain(500, `${(error as Error).message}\n`);
    }
    options.log?.({ method: request.method ?? '', path: request.url ?? '', status: answer.status, file: answer.file, note: answer.note });
    send(answer, site.folder, request, response);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${host}:${port}/`,
    manifest,
    hostHeaders,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        // Browsers keep connections open: closing them lets Ctrl-C end the preview at once.
        server.closeAllConnections();
      }),
  };
}

interface Site {
  folder: string;
  /** The index documents a folder path is answered from, in order: the export's, then index.html (the map's page). */
  indexNames: readonly string[];
  rules: readonly HeaderRule[];
}

/** The answer to one request, as a static host gives it. */
function answerFor(site: Site, request: http.IncomingMessage): Answer {
  if (request.method !== 'GET' && request.method !== 'HEAD')
    return plain(405, `${request.method} is not served: a static host answers GET and HEAD\n`, { Allow: 'GET, HEAD' });
  const url = new URL(request.url ?? '/', 'http://preview.invalid');
  const note = url.search === '' ? undefined : `query string ignored, as a static host ignores it: hcas serve answers ${url.search}`;
  let decoded: string;
  try {
    decoded = decodeURIComponent(url.pathname);
  } catch {
    return plain(400, `not a path: ${url.pathname}\n`);
  }
  // No file name holds a NUL, and the file system refuses one in a path.
  if (decoded.includes('\0')) return plain(400, `not a path: ${url.pathname}\n`);
  const target = path.join(site.folder, decoded);
  const inside = path.relative(site.folder, target);
  if (inside.startsWith('..') || path.isAbsolute(inside) || /(^|\/)[._]/.test(decoded)) return notFound(decoded, note);
  const file = decoded.endsWith('/')
    ? site.indexNames.map((name) => path.join(inside, name)).find((each) => isFile(site.folder, each))
    : inside;
  if (file === undefined || !existsSync(path.join(site.folder, file))) return notFound(decoded, note);
  // Cloudflare Pages and Netlify send an index.html to its folder's path, where its rule (the map page's
  // policy) applies; nginx's static.conf sends it to the server, which answers it with that policy too.
  if (path.basename(file) === 'index.html' && !decoded.endsWith('/'))
    return { status: 301, headers: { Location: `${url.pathname.slice(0, url.pathname.lastIndexOf('/') + 1)}${url.search}` }, note };
  const stat = statSync(path.join(site.folder, file));
  if (stat.isDirectory()) return { status: 301, headers: { Location: `${url.pathname}/${url.search}` }, note };
  const headers = headersFor(site.rules, url.pathname);
  if (!Object.keys(headers).some((name) => name.toLowerCase() === 'content-type'))
    headers['Content-Type'] = TYPES[path.extname(file)] ?? 'application/octet-stream';
  headers.ETag = `"${Math.floor(stat.mtimeMs / 1000).toString(16)}-${stat.size.toString(16)}"`;
  headers['Last-Modified'] = stat.mtime.toUTCString();
  if (request.headers['if-none-match'] === headers.ETag) return { status: 304, headers, file, note };
  return withCoding({ status: 200, headers, file, stat, note }, site.folder, request.headers['accept-encoding']);
}

/** The `.gz` or `.br` beside the file instead of it, for a client that takes it; `Vary` wherever one exists. */
function withCoding(answer: Answer, folder: string, acceptEncoding: string | undefined): Answer {
  const siblings = CODINGS.filter(({ suffix }) => isFile(folder, `${answer.file}${suffix}`));
  if (siblings.length === 0) return answer;
  const vary = answer.headers.Vary;
  answer.headers.Vary = vary === undefined ? 'Accept-Encoding' : `${vary}, Accept-Encoding`;
  const chosen = siblings.find(({ coding }) => coding === negotiate(acceptEncoding));
  if (chosen === undefined) return answer;
  const file = `${answer.file}${chosen.suffix}`;
  answer.headers['Content-Encoding'] = chosen.coding;
  return { ...answer, file, stat: statSync(path.join(folder, file)) };
}

function isFile(folder: string, relative: string): boolean {
  return statSync(path.join(folder, relative), { throwIfNoEntry: false })?.isFile() === true;
}

function plain(status: number, text: string, headers: Record<string, string> = {}): Answer {
  return { status, headers: { 'Content-Type': 'text/plain; charset=utf-8', ...headers }, text };
}

/** A static host's own 404: not the API's error body, which only the server sends. */
function notFound(decoded: string, note: string | undefined): Answer {
  return { ...plain(404, `${decoded} is not in the export: hcas serve answers paths the export leaves to it\n`), note };
}

function send(answer: Answer, folder: string, request: http.IncomingMessage, response: http.ServerResponse): void {
  const headers: Record<string, string | number> = { ...answer.headers };
  if (answer.text !== undefined) headers['Content-Length'] = Buffer.byteLength(answer.text);
  else if (answer.stat !== undefined && answer.status === 200) headers['Content-Length'] = answer.stat.size;
  response.writeHead(answer.status, headers);
  if (request.method === 'HEAD' || answer.status === 304 || answer.status === 301) {
    response.end();
    return;
  }
  if (answer.text !== undefined) {
    response.end(answer.text);
    return;
  }
  const stream = createReadStream(path.join(folder, answer.file!));
  stream.on('error', () => response.destroy());
  stream.pipe(response);
}
