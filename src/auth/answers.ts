import { ApiError } from '../http/errors.ts';
import type { ApiResponse } from '../http/response.ts';
import type { Plan } from './plans.ts';
import type { KeyRestrictions } from './store.ts';
import type { QuotaWindow, WindowUnit } from './windows.ts';

/** X-RateLimit-Limit and -Remaining of an unlimited plan: the largest int32, so every client parses it. */
export const UNLIMITED = 2_147_483_647;
/** Response headers a browser script (the widget) may read across origins. */
const EXPOSED = 'ETag, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After';
/** RFC 9110 11.6.1: a 401 names the scheme it expects. */
const CHALLENGE = { 'WWW-Authenticate': 'Bearer realm="hcas"' };

/** Who is calling: the bucket its calls are counted in, its quota, and the plan whose endpoints it gets. */
export interface Caller {
  /** The key's id as `hcas keys list` shows it; undefined for anonymous callers. */
  keyId?: number;
  /** A widget key's limits (allowed origins, widget endpoints only); undefined for a full key. */
  restrictions?: KeyRestrictions;
  /** `key:12` or `ip:203.0.113.9`. */
  subject: string;
  /** Endpoints and features. Anonymous callers get those of the anonymous tier's plan. */
  plan: Plan;
  /** Calls per window; null when unlimited. */
  quota: number | null;
  window: WindowUnit;
  /** For messages: "The Free plan", "Anonymous callers". */
  who: string;
  anonymous: boolean;
  /**
   * The count the state last answered for this caller, and the start of its window: what the quota is
   * judged by while the state cannot count (a key's caller is kept with the key, so it lasts).
   */
  lastCalls?: number;
  lastWindowStart?: number;
}

/** X-RateLimit-Limit, -Remaining and -Reset. Calls not known (the state is degraded) leave the whole quota. */
export function rateHeaders(caller: Caller, window: QuotaWindow, calls: number | undefined): Record<string, string> {
  const remaining = caller.quota === null ? UNLIMITED : Math.max(0, caller.quota - (calls ?? 0));
  return {
    'X-RateLimit-Limit': String(caller.quota ?? UNLIMITED),
    'X-RateLimit-Remaining': String(remaining),
    'X-RateLimit-Reset': String(window.resetSeconds),
    'Access-Control-Expose-Headers': EXPOSED,
  };
}

/**
 * The response with `headers` (and `extra`) added. Copied, then assigned: spreading two header objects into
 * a new one makes V8 build the result's shape key by key on every request. Not `{ ...headers }` either: it is
 * quick for one shape, but the server's answers have many header shapes, and its clone went megamorphic
 * where Object.assign did not (bench/request-costs.ts times this step: "rate-limit headers").
 */
export function withHeaders(response: ApiResponse, headers: Record<string, string>, extra?: Record<string, string>): ApiResponse {
  const merged: Record<string, string | number> = Object.assign({}, response.headers);
  for (const name in headers) merged[name] = headers[name];
  if (extra !== undefined) for (const name in extra) merged[name] = extra[name];
  return { status: response.status, headers: merged, body: response.body, text: response.text, stream: response.stream };
}

/** 400: the two credential headers carry different keys. */
export function conflictingCredentials(): ApiError {
  return new ApiError(
    'conflicting_credentials',
    'X-API-Key and Authorization: Bearer carry different keys; send one key, in either header (or the same key in both)',
  );
}

/** 401: a header that does not carry a key at all. */
export function malformedKey(header: string): ApiError {
  const message = `The ${header} header does not carry an API key: a key is hcas_live_ followed by 32 letters and digits, sent as X-API-Key: KEY or Authorization: Bearer KEY. Send no key for the anonymous tier`;
  return new ApiError('invalid_api_key', message, CHALLENGE);
}

/** 401: a well-formed key that is unknown, revoked, or on a plan the plan file no longer has. */
export function refusedKey(why: string): ApiError {
  return new ApiError('invalid_api_key', `The API key sent ${why}. Send a valid key, or no key for the anonymous tier`, CHALLENGE);
}

/**
 * 401: a well-formed key that cannot be checked now: the state does not answer and this server has not
 * checked the key recently enough to vouch that it is not revoked. Never the anonymous tier instead: a
 * client must not get more than its credentials prove, nor silently less than they are worth.
 */
export function unverifiableKey(): ApiError {
  return new ApiError(
    'invalid_api_key',
    'The API key sent cannot be checked right now: the key store does not answer. Retry in a moment (see Retry-After); the key itself may be fine',
    {
      ...CHALLENGE,
      'Retry-After': '1',
    },
  );
}

/** 429: an address that sent too many requests with bad credentials in a short time (each costs a key lookup). */
export function badCredentialsThrottled(seconds: number): ApiError {
  return new ApiError(
    'rate_limited',
    `Too many requests with invalid API keys from this address; retry in ${seconds} s (see Retry-After) with a valid key, or with none for the anonymous tier`,
  );
}

/**
 * 429: the quota, when it resets (see Retry-After), and what gives more: for an anonymous caller, how to get
 * a key, and, on the server's own machine, how its owner's calls go uncounted.
 */
export function rateLimited(caller: Caller, window: QuotaWindow, onThisMachine = false): ApiError {
  const quota = `${caller.quota!.toLocaleString('en-US')} calls per ${caller.window}`;
  const reset = new Date(window.resetSeconds * 1000).toISOString().replace('.000Z', 'Z');
  const more = caller.anonymous
    ? ' per client address. For more, send an API key (X-API-Key: KEY): the operator of this server makes one with `hcas keys create --plan free --name NAME`'
    : '; a larger plan has a larger quota';
  const own =
    caller.anonymous && onThisMachine
      ? '. On your own machine, `hcas serve --loopback-unmetered` (as `npm start` runs it) leaves your calls uncounted'
      : '';
  return new ApiError(
    'rate_limited',
    `${caller.who} ${caller.anonymous ? 'get' : 'allows'} ${quota}${more}${own}. The quota resets at ${reset} (see Retry-After)`,
  );
}

/**
 * 403: the route (`shown` as in the docs) needs a plan the caller does not have; names the cheapest that opens
 * it. To a caller on the server's own machine (`localPath`, the path it asked for), also how its owner reads it:
 * `hcas get` answers from the build file whatever the plan, and `--loopback-unmetered` serves this machine every
 * endpoint.
 */
export function planUpgradeRequired(caller: Caller, shown: string, cheapest: Plan | undefined, localPath?: string): ApiError {
  const needs = cheapest ? `the ${cheapest.name} plan (the cheapest that opens it)` : 'a plan that opens it';
  const tier = caller.anonymous
    ? `Anonymous callers have the ${caller.plan.name} plan's endpoints; send an API key on a plan that opens it`
    : `${caller.who} does not open it`;
  const own = localPath
    ? `. On this machine, \`hcas get ${localPath}\` answers it from the build file whatever the plan, and \`hcas serve --loopback-unmetered\` (as \`npm start\` runs it) serves every endpoint to this machine's own calls`
    : '';
  return new ApiError('plan_upgrade_required', `${shown} needs ${needs}. ${tier}${own}`);
}

/** 403: a key limited to some page origins, sent from another page (or without Origin and Referer). */
export function originNotAllowed(origin: string | undefined): ApiError {
  const from = origin === undefined ? 'a request without an Origin or Referer header' : `the page origin ${origin}`;
  return new ApiError(
    'origin_not_allowed',
    `The API key sent is limited to the page origins it was created for, and ${from} is not one of them. Create a widget key for this origin with \`hcas keys create --widget-only --origin ORIGIN\``,
  );
}

/** 403: a widget key used for an endpoint other than the widget's. */
export function endpointNotAllowed(shown: string): ApiError {
  return new ApiError(
    'endpoint_not_allowed',
    `The API key sent is a widget key: it opens only widget-score/{zip}/, not ${shown}, so a key copied from a page opens nothing else. Call ${shown} with a full key, from a server`,
  );
}
