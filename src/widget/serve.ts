import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { WIDGET_SCRIPT_FILE, WIDGET_SCRIPT_PATH } from '../../core/widget.ts';
import { ApiError } from '../http/errors.ts';
import { emptyResponse, jsonResponse, Representation, type ApiResponse, type RequestHeaders } from '../http/response.ts';


/**
 * Fresh for an hour, then revalidated with the ETag (a 304) while the cached copy keeps serving for a day:
 * long enough that pages seldom ask, short enough that a fix reaches every page the same day.
 */
export const WIDGET_SCRIPT_CACHE = 'public, max-age=3600, stale-while-revalidate=86400';

let script: Representation | undefined;

/** The script's answer, built on first use: the same for every build of the data, so its ETag hashes its bytes. */
function representation(): Representation {
  if (!script) {
    const body = readFileSync(WIDGET_SCRIPT_FILE);
    const etag = `"widget-v1-${createHash('sha256').update(body).digest('base64url').slice(0, 16)}"`;
    // Representation adds the common headers: CORS `*` (any page may load it) and nosniff (the type is right).
    script = new Representation(body, etag, { 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': WIDGET_SCRIPT_CACHE });
  }
  return script;
}

/** True when the request path (query ignored: pages may add `?v=` to bust caches) is the widget script. */
export function isWidgetScript(url: string): boolean {
  const queryAt = url.indexOf('?');
  return (queryAt < 0 ? url : url.slice(0, queryAt)) === WIDGET_SCRIPT_PATH;
}

/** The answer for the script's path: the script (GET, HEAD, 304, gzip or brotli), a preflight, or a 405. */
export function respondWidgetScript(method: string, headers: RequestHeaders): ApiResponse | Promise<ApiResponse> {
  if (method === 'GET' || method === 'HEAD') return representation().respond(method, headers);
  if (method === 'OPTIONS') return emptyResponse(204, { Allow: 'GET, HEAD, OPTIONS' });
  const error = new ApiError('method_not_allowed', `${method.slice(0, 20)} is not allowed: the widget script answers GET, HEAD, OPTIONS`, { Allow: 'GET, HEAD, OPTIONS' });
  return jsonResponse(method, error.status, error.toBody(), error.headers);
}
