import { timingSafeEqual } from 'node:crypto';
import { isLocalCaller } from '../auth/client-ip.ts';
import { errorBody } from '../http/errors.ts';
import { jsonResponse, type ApiResponse, type RequestHeaders } from '../http/response.ts';
import type { Readiness, ServingState } from './serving-state.ts';

/** The operator's endpoints, outside the API: never counted, never rate-limited, logged at debug level. */
export const OPS_PATHS = { healthz: '/healthz', readyz: '/readyz', metrics: '/metrics' } as const;
export type OpsEndpoint = keyof typeof OPS_PATHS;

/** Answers of probes must never be cached by anything between the probe and the server. */
const NO_STORE = { 'Cache-Control': 'no-store' };
const ALLOW = 'GET, HEAD';

/**
 * The operator endpoint a request target names, or undefined (most requests: one character compared).
 * Exact paths; a query string is ignored.
 */
export function opsEndpoint(url: string): OpsEndpoint | undefined {
  const second = url.charCodeAt(1);
  if (second !== 0x68 && second !== 0x72 && second !== 0x6d) return undefined; // h, r, m
  const queryAt = url.indexOf('?');
  const path = queryAt < 0 ? url : url.slice(0, queryAt);
  return path === OPS_PATHS.healthz ? 'healthz' : path === OPS_PATHS.readyz ? 'readyz' : path === OPS_PATHS.metrics ? 'metrics' : undefined;
}

/** Who may read `/metrics`. */
export interface MetricsAccess {
  /** False: `/metrics` is a 404, as for any unknown path. */
  enabled: boolean;
  /** Callers sending `Authorization: Bearer TOKEN` may read it from any address. */
  token?: string;
}

function tokenMatches(token: string | undefined, authorization: string | string[] | undefined): boolean {
  if (!token || typeof authorization !== 'string') return false;
  const expected = Buffer.from(`Bearer ${token}`);
  const sent = Buffer.from(authorization.trim());
  return sent.length === expected.length && timingSafeEqual(sent, expected);
}

/**
 * What `/readyz` shows a caller who is not the operator: the status of the process and of each check, and
 * the build (public in `meta/` anyway); never the process id, the file's name or an error's text, which tell
 * an attacker what runs where and what failed.
 */
function publicReadiness(body: Readiness['body']): object {
  const checks = Object.fromEntries(Object.entries(body.checks).map(([name, check]) => [name, { status: check.status }]));
  return { status: body.status, build_id: body.build_id, built_at: body.built_at, build_age_seconds: body.build_age_seconds, checks };
}

/**
 * `/healthz` (the process answers), `/readyz` (the serving state: 200 ready or degraded, 503 not ready) and
 * `/metrics` (Prometheus text). The operator (loopback callers not behind a proxy, or callers with the
 * metrics token) gets every detail; anyone else, as through the public proxy, gets the metrics refused and
 * the probes' statuses alone.
 */
export class OpsEndpoints {
  private readonly state: ServingState;
  private readonly access: MetricsAccess;
  private readonly metricsText: () => Promise<string>;
  private readonly contentType: string;

  constructor(state: ServingState, access: MetricsAccess, metricsText: () => Promise<string>, contentType: string) {
    this.state = state;
    this.access = access;
    this.metricsText = metricsText;
    this.contentType = contentType;
  }

  answer(endpoint: OpsEndpoint, method: string, headers: RequestHeaders, peer: string | undefined): ApiResponse | Promise<ApiResponse> {
    if (endpoint === 'metrics' && !this.access.enabled) {
      return jsonResponse(
        method,
        404,
        errorBody('not_found', 'No endpoint at /metrics: this server was started with --no-metrics (HCAS_METRICS=false)'),
      );
    }
    if (method !== 'GET' && method !== 'HEAD') {
      return jsonResponse(
        method,
        405,
        errorBody('method_not_allowed', `${method.slice(0, 20)} is not allowed: ${OPS_PATHS[endpoint]} answers ${ALLOW}`),
        { Allow: ALLOW, ...NO_STORE },
      );
    }
    const trusted = isLocalCaller(peer, headers) || tokenMatches(this.access.token, headers.authorization);
    if (endpoint === 'healthz') {
      const uptimeSeconds = Math.round((Date.now() - this.state.startedAtMs) / 1000);
      return jsonResponse(
        method,
        200,
        trusted ? { status: 'ok', pid: process.pid, uptime_seconds: uptimeSeconds } : { status: 'ok' },
        NO_STORE,
      );
    }
    if (endpoint === 'readyz') {
      const { httpStatus, body } = this.state.readiness();
      return jsonResponse(method, httpStatus, trusted ? body : publicReadiness(body), NO_STORE);
    }
    if (!trusted) {
      const how = this.access.token
        ? 'send Authorization: Bearer TOKEN with the token of HCAS_METRICS_TOKEN'
        : 'start the server with HCAS_METRICS_TOKEN set and send it as Authorization: Bearer TOKEN';
      return jsonResponse(
        method,
        403,
        errorBody('forbidden', `/metrics answers callers on this machine that do not come through a proxy; from elsewhere, ${how}`),
        NO_STORE,
      );
    }
    return this.metricsText().then((text) => {
      const body = Buffer.from(text);
      const answer = { 'Content-Type': this.contentType, 'Content-Length': body.length, 'X-Content-Type-Options': 'nosniff', ...NO_STORE };
      return { status: 200, headers: answer, body: method === 'HEAD' ? Buffer.alloc(0) : body };
    });
  }
}
