import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { WIDGET_SCRIPT_FILE, WIDGET_SCRIPT_PATH } from '../../core/widget.ts';
import { IGNORED_QUERY } from '../http/params.ts';
import { type HandlerResult, NO_PARAMS, ONCE, route, type Route } from '../http/route.ts';

/**
 * Fresh for an hour, then revalidated with the ETag (a 304) while the cached copy keeps serving for a day:
 * long enough that pages seldom ask, short enough that a fix reaches every page the same day.
 */
export const WIDGET_SCRIPT_CACHE = 'public, max-age=3600, stale-while-revalidate=86400';

let script: HandlerResult | undefined;

/**
 * The embed script (decisions.md, "Widget"), the one answer besides the exports that is not JSON. It is the
 * same in every build, so its ETag hashes its bytes instead of naming the build; CORS `*` (any page may load
 * it) and nosniff come with the common headers. Read on first request.
 */
function getWidgetScript(): HandlerResult {
  if (!script) {
    const body = readFileSync(WIDGET_SCRIPT_FILE);
    const etag = `"widget-v1-${createHash('sha256').update(body).digest('base64url').slice(0, 16)}"`;
    script = {
      status: 200,
      body,
      etag,
      headers: { 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': WIDGET_SCRIPT_CACHE },
    };
  }
  return script;
}

/** The script's route: outside the JSON API's base path, so not in openapi.json or docs/api.md. */
export const routes: readonly Route[] = [
  route({
    path: WIDGET_SCRIPT_PATH,
    exported: ONCE,
    summary: "The widget's embed script (browser JavaScript)",
    pathParams: NO_PARAMS,
    query: IGNORED_QUERY,
    kind: 'asset',
    handle: getWidgetScript,
  }),
];
