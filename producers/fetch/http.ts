import { existsSync, readFileSync } from 'node:fs';
import { open, rename, rm, stat, writeFile } from 'node:fs/promises';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { ByteProgress } from '../../core/progress.ts';

/**
 * A small HTTP client for large public files, on Node's own http/https: bounded redirects, an idle timeout,
 * resume with Range into a `.part` file (guarded by If-Range, so a file changed upstream starts over rather
 * than being spliced), Content-Length/Content-Range checked, and a bounded number of retries with backoff.
 */
export interface HttpOptions {
  /** Extra request headers (e.g. Authorization); dropped on a redirect to another host. */
  headers?: Record<string, string>;
  maxRedirects?: number;
  /** A connection that sends nothing for this long is dropped (and retried). */
  idleTimeoutMs?: number;
  /** Retries after the first attempt, for dropped connections, timeouts and 5xx/408/429 answers. */
  retries?: number;
  /** Wait before the first retry; doubled for each one after. */
  backoffMs?: number;
  sleep?: (ms: number) => Promise<void>;
  /** Told about each retry, with the reason. */
  onRetry?: (message: string) => void;
}

const DEFAULTS = { maxRedirects: 5, idleTimeoutMs: 60_000, retries: 5, backoffMs: 2_000 };
const USER_AGENT = 'hcas-fetch (Healthcare Access Scoring Service)';
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** A failed request: `status` when the server answered, `retryable` when trying again may help. */
export class HttpError extends Error {
  override name = 'HttpError';
  readonly status: number | null;
  readonly retryable: boolean;
  /** The start of an error answer's body, to show the user what the server said. */
  readonly body: string;

  constructor(message: string, options: { status?: number | null; retryable: boolean; body?: string }) {
    super(message);
    this.status = options.status ?? null;
    this.retryable = options.retryable;
    this.body = options.body ?? '';
  }
}

export interface DownloadResult {
  bytes: number;
  /** The address the file finally came from, after redirects. */
  finalUrl: string;
  /** Bytes already on disk from an earlier, interrupted attempt or run. */
  resumedFrom: number;
  attempts: number;
  contentType: string;
  etag: string | null;
  lastModified: string | null;
}

export interface DownloadOptions extends HttpOptions {
  progress?: ByteProgress;
  /** Returns a reason to refuse an answer by its Content-Type (an HTML error page instead of data), or null. */
  refuseContentType?: (contentType: string) => string | null;
}

/** Downloads `url` to `dest` through `dest.part`, resuming an earlier partial download of the same file. */
export async function downloadFile(url: string, dest: string, options: DownloadOptions = {}): Promise<DownloadResult> {
  const part = `${dest}.part`;
  const sidecar = `${part}.json`;
  const settings = { ...DEFAULTS, ...options };
  let resumedFrom: number | null = null;
  for (let attempt = 1; ; attempt++) {
    const saved = readSidecar(sidecar);
    let offset = existsSync(part) ? (await stat(part)).size : 0;
    // A part from another address (a new release under a new name) is not this file's beginning.
    if (offset > 0 && saved?.url !== url) {
      await rm(part, { force: true });
      offset = 0;
    }
    resumedFrom ??= offset;
    try {
      const result = await downloadOnce(url, part, offset, saved, settings, async (validators) =>
        writeFile(sidecar, JSON.stringify({ url, ...validators })),
      );
      await rename(part, dest);
      await rm(sidecar, { force: true });
      return { ...result, resumedFrom, attempts: attempt };
    } catch (error) {
      if (!(error instanceof HttpError) || !error.retryable || attempt > settings.retries) {
        if (error instanceof HttpError) error.message += attempt > 1 ? ` (after ${attempt} attempts)` : '';
        throw error;
      }
      const wait = settings.backoffMs * 2 ** (attempt - 1);
      settings.onRetry?.(
        `${error.message}; retrying in ${(wait / 1000).toFixed(wait < 1000 ? 1 : 0)} s (attempt ${attempt + 1} of ${settings.retries + 1})`,
      );
      await (settings.sleep ?? delay)(wait);
    }
  }
}

interface Validators {
  etag: string | null;
  lastModified: string | null;
}

async function downloadOnce(
  url: string,
  part: string,
  offset: number,
  saved: (Validators & { url: string }) | null,
  settings: DownloadOptions & typeof DEFAULTS,
  remember: (validators: Validators) => Promise<void>,
): Promise<Omit<DownloadResult, 'resumedFrom' | 'attempts'>> {
  const extra: Record<string, string> = {};
  if (offset > 0) {
    extra.range = `bytes=${offset}-`;
    // If-Range: the server sends the whole (new) file instead of a range when the file changed since.
    const validator = saved?.etag && !saved.etag.startsWith('W/') ? saved.etag : saved?.lastModified;
    if (validator) extra['if-range'] = validator;
  }
  const { response, finalUrl } = await openResponse(url, settings, extra);
  const status = response.statusCode ?? 0;
  const validators = { etag: header(response, 'etag'), lastModified: header(response, 'last-modified') };
  let start: number;
  let total: number | null;
  if (status === 206) {
    const range = parseContentRange(header(response, 'content-range'));
    if (!range || range.start !== offset || range.total === null) {
      response.destroy();
      await rm(part, { force: true });
      throw new HttpError(
        `asked for the bytes from ${offset} on, the server answered Content-Range ${JSON.stringify(header(response, 'content-range'))}; starting over`,
        { status, retryable: true },
      );
    }
    const length = contentLength(response);
    if (length !== null && length !== range.end - range.start + 1) {
      response.destroy();
      throw new HttpError(`Content-Length ${length} does not match Content-Range ${header(response, 'content-range')}`, {
        status,
        retryable: false,
      });
    }
    start = offset;
    total = range.total;
  } else if (status === 200) {
    start = 0;
    total = contentLength(response);
  } else if (status === 416 && offset > 0) {
    // Asked for bytes past the end: the part may hold the whole file already (a run stopped before the rename).
    response.resume();
    const range = parseContentRange(header(response, 'content-range'));
    if (range?.total === offset)
      return { bytes: offset, finalUrl, contentType: '', etag: saved?.etag ?? null, lastModified: saved?.lastModified ?? null };
    await rm(part, { force: true });
    throw new HttpError(`the partial file no longer fits the file on the server (416); starting over`, { status, retryable: true });
  } else {
    const body = await readBody(response, 2048).catch(() => '');
    throw new HttpError(`answered ${status} ${response.statusMessage ?? ''}`.trim(), {
      status,
      retryable: status >= 500 || status === 408 || status === 429,
      body,
    });
  }
  const contentType = header(response, 'content-type') ?? '';
  const refusal = settings.refuseContentType?.(contentType);
  if (refusal) {
    const body = await readBody(response, 300).catch(() => '');
    throw new HttpError(refusal, { status, retryable: false, body });
  }
  if (start === 0) await remember(validators);
  const handle = await open(part, start === 0 ? 'w' : 'a');
  let bytes = start;
  settings.progress?.update(bytes, total);
  try {
    for await (const chunk of response as AsyncIterable<Buffer>) {
      await handle.write(chunk);
      bytes += chunk.length;
      settings.progress?.update(bytes, total);
    }
  } catch (error) {
    throw new HttpError(
      `the connection broke after ${bytes.toLocaleString('en-US')} of ${total === null ? 'an unknown number of' : total.toLocaleString('en-US')} bytes (${(error as Error).message})`,
      { status, retryable: true },
    );
  } finally {
    await handle.close();
    settings.progress?.done();
  }
  if (total !== null && bytes !== total) {
    throw new HttpError(`the connection closed after ${bytes.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} bytes`, {
      status,
      retryable: true,
    });
  }
  return { bytes, finalUrl, contentType, ...validators };
}

export interface TextResult {
  text: string;
  finalUrl: string;
  contentType: string;
}

/** GETs a small document (a listing page, a catalogue's JSON) into memory, with the same redirects and retries. */
export async function fetchText(url: string, options: HttpOptions = {}, maxBytes = 64 << 20): Promise<TextResult> {
  const settings = { ...DEFAULTS, ...options };
  for (let attempt = 1; ; attempt++) {
    try {
      const { response, finalUrl } = await openResponse(url, settings, {});
      const status = response.statusCode ?? 0;
      if (status < 200 || status > 299) {
        const body = await readBody(response, 2048).catch(() => '');
        throw new HttpError(`answered ${status} ${response.statusMessage ?? ''}`.trim(), {
          status,
          retryable: status >= 500 || status === 408 || status === 429,
          body,
        });
      }
      let text: string;
      try {
        text = await readBody(response, maxBytes, true);
      } catch (error) {
        if (error instanceof HttpError) throw error;
        throw new HttpError(`the connection broke while reading the answer (${(error as Error).message})`, { status, retryable: true });
      }
      return { text, finalUrl, contentType: header(response, 'content-type') ?? '' };
    } catch (error) {
      if (!(error instanceof HttpError) || !error.retryable || attempt > settings.retries) throw error;
      const wait = settings.backoffMs * 2 ** (attempt - 1);
      settings.onRetry?.(`${error.message}; retrying in ${(wait / 1000).toFixed(wait < 1000 ? 1 : 0)} s`);
      await (settings.sleep ?? delay)(wait);
    }
  }
}

/** Follows redirects (relative ones too) up to the limit; returns the first non-redirect answer. */
async function openResponse(
  url: string,
  settings: HttpOptions & typeof DEFAULTS,
  extra: Record<string, string>,
): Promise<{ response: IncomingMessage; finalUrl: string }> {
  let current: URL;
  try {
    current = new URL(url);
  } catch {
    throw new HttpError(`is not a valid URL`, { retryable: false });
  }
  const firstHost = current.host;
  for (let hop = 0; ; hop++) {
    if (current.protocol !== 'http:' && current.protocol !== 'https:') {
      throw new HttpError(`leads to ${current.href}, which is not an http(s) address`, { retryable: false });
    }
    const headers: Record<string, string> = { 'user-agent': USER_AGENT, accept: '*/*', ...lowerKeys(settings.headers ?? {}), ...extra };
    // Credentials go only to the host they were given for.
    if (current.host !== firstHost) delete headers.authorization;
    const response = await get(current, headers, settings.idleTimeoutMs);
    const status = response.statusCode ?? 0;
    const location = header(response, 'location');
    if (!REDIRECTS.has(status) || !location) return { response, finalUrl: current.href };
    response.resume();
    if (hop >= settings.maxRedirects) {
      throw new HttpError(`redirected more than ${settings.maxRedirects} times (last to ${new URL(location, current).href})`, {
        status,
        retryable: false,
      });
    }
    current = new URL(location, current);
  }
}

function get(url: URL, headers: Record<string, string>, idleTimeoutMs: number): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const transport = url.protocol === 'https:' ? https : http;
    // The global agent, so Node's own proxy support applies (NODE_USE_ENV_PROXY=1 with HTTPS_PROXY, Node 24).
    const request = transport.get(url, { headers }, resolve);
    // The socket's idle timer covers the wait for the headers and every pause in the body.
    request.setTimeout(idleTimeoutMs, () =>
      request.destroy(new HttpError(`sent nothing for ${Math.round(idleTimeoutMs / 1000)} s`, { retryable: true })),
    );
    request.on('error', (error) => {
      if (error instanceof HttpError) return reject(error);
      const code = (error as NodeJS.ErrnoException).code ?? error.message;
      // No such host, no route, a refused connection or a bad certificate will not mend within a minute of retries.
      const lasting = /^(ENOTFOUND|ENETUNREACH|EHOSTUNREACH|ECONNREFUSED)$|CERT|SSL|TLS/i.test(code);
      reject(
        new HttpError(
          `could not be reached (${code})${lasting ? ': check the address, your connection and any proxy (Node 24: NODE_USE_ENV_PROXY=1 with HTTPS_PROXY)' : ''}`,
          { retryable: !lasting },
        ),
      );
    });
  });
}

async function readBody(response: IncomingMessage, maxBytes: number, failWhenLonger = false): Promise<string> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of response as AsyncIterable<Buffer>) {
    chunks.push(chunk);
    length += chunk.length;
    if (length >= maxBytes) {
      response.destroy();
      if (failWhenLonger)
        throw new HttpError(
          `answered with more than ${maxBytes.toLocaleString('en-US')} bytes, more than a listing or catalogue entry should be`,
          { retryable: false },
        );
      break;
    }
  }
  return Buffer.concat(chunks).subarray(0, maxBytes).toString('utf8');
}

/** `bytes 100-199/1000` (or `bytes *\/1000` on a 416) to its numbers; null when malformed. */
export function parseContentRange(value: string | null): { start: number; end: number; total: number | null } | null {
  const match = /^bytes\s+(?:(\d+)-(\d+)|\*)\/(\d+|\*)$/i.exec((value ?? '').trim());
  if (!match) return null;
  const total = match[3] === '*' ? null : Number(match[3]);
  if (match[1] === undefined) return { start: -1, end: -1, total };
  return { start: Number(match[1]), end: Number(match[2]), total };
}

function contentLength(response: IncomingMessage): number | null {
  const value = header(response, 'content-length');
  return value !== null && /^\d+$/.test(value) ? Number(value) : null;
}

function header(response: IncomingMessage, name: string): string | null {
  const value = response.headers[name];
  return Array.isArray(value) ? (value[0] ?? null) : (value ?? null);
}

function lowerKeys(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}

function readSidecar(file: string): (Validators & { url: string }) | null {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
