import { internalError, type ApiRequest } from '../http/dispatcher.ts';
import type { ApiError } from '../http/errors.ts';
import { jsonResponse, type ApiResponse } from '../http/response.ts';
import type { Route } from '../http/route.ts';
import type { AccessTable } from './access.ts';
import { conflictingCredentials, malformedKey, planUpgradeRequired, rateHeaders, rateLimited, refusedKey, withHeaders, type Caller } from './answers.ts';
import { anonymousSubject, clientAddress, TrustedProxies } from './client-ip.ts';
import { StoreHealth, type EventLog } from './health.ts';
import { hashKey, readCredentials } from './keys.ts';
import type { StateStore, StoredKey } from './store.ts';
import { WindowClock, type QuotaWindow } from './windows.ts';

export { UNLIMITED } from './answers.ts';

/**
 * What the gate wraps: the dispatcher of the current build (`Api`). It answers requests and tells the gate
 * which route a request names, so plan access is decided on the dispatcher's own routing.
 */
export interface Responder {
  respond(request: ApiRequest): ApiResponse | Promise<ApiResponse>;
  routeOf(target: string): Route | undefined;
}

/** A request with the address of the socket it came from. */
export interface GateRequest extends ApiRequest {
  remoteAddress?: string;
}

export interface GateOptions {
  store: StateStore;
  access: AccessTable;
  proxies?: TrustedProxies;
  /** The clock, epoch milliseconds; tests set it. */
  now?: () => number;
  /** Where `limits_degraded` and `limits_recovered` go. */
  log?: EventLog;
  /** Told about an unexpected error of the dispatcher (the client gets a 500 with the rate-limit headers). */
  reportError?: (error: unknown, request: ApiRequest) => void;
  /** How long a key lookup is trusted before it is read again: the bound on how late a revocation bites. */
  keyCacheMs?: number;
  /**
   * False for `hcas get --key`: the quota is read and enforced as the server would, but the call is not
   * counted (the analyst reads the file locally, not through the service).
   */
  countCalls?: boolean;
}

/** Revocation takes effect in every worker within this many milliseconds. */
export const KEY_CACHE_MS = 5_000;
const MAX_CACHED_KEYS = 10_000;
const NOT_COUNTED: Promise<undefined> = Promise.resolve(undefined);

/** A key as last read from the state, with its caller when it is valid (unknown, revoked: none). */
interface CachedKey {
  key: StoredKey | undefined;
  caller: Caller | undefined;
  fetchedMs: number;
}

/**
 * API keys, plans and quotas in front of the dispatcher. For each request: read the credentials (400 when
 * two headers disagree, 401 for a key that is malformed, unknown or revoked), count the call in the caller's
 * calendar window (429 past the quota), check that the caller's plan opens the route (403 naming the plan
 * that does), then let the dispatcher answer. Every response, errors included, leaves with X-RateLimit-Limit,
 * -Remaining and -Reset, and a 429 with Retry-After.
 *
 * Which calls count: every request whose credentials are valid or absent, whatever its answer (200, 301,
 * 304, 4xx, and the 429 itself), except OPTIONS preflights. Requests with bad credentials are not counted
 * and carry the headers of the client address's anonymous bucket.
 *
 * When the state fails (Redis unreachable, the state file locked too long), calls are answered without being
 * counted or refused (fail open), known keys keep their plan from the cache, an unknown key gets the
 * anonymous tier's access, and StoreHealth logs the transitions.
 */
export class Gate {
  private readonly clock: WindowClock;
  private readonly keys = new Map<string, CachedKey>();
  private readonly proxies: TrustedProxies;
  private readonly keyCacheMs: number;
  private readonly countCalls: boolean;
  private readonly health: StoreHealth;
  private reportError: (error: unknown, request: ApiRequest) => void;
  private readonly options: GateOptions;

  constructor(options: GateOptions) {
    this.options = options;
    this.clock = new WindowClock(options.now);
    this.proxies = options.proxies ?? new TrustedProxies();
    this.keyCacheMs = options.keyCacheMs ?? KEY_CACHE_MS;
    this.countCalls = options.countCalls ?? true;
    this.health = new StoreHealth(options.store, options.log ?? (() => {}));
    this.reportError = options.reportError ?? ((error) => console.error(error));
  }

  /** The server hands the gate its log and error reporter (unless the gate was given its own). */
  attach(log: EventLog, reportError: (error: unknown, request: ApiRequest) => void): void {
    if (!this.options.log) this.health.log = log;
    if (!this.options.reportError) this.reportError = reportError;
  }

  /** The limits' backend and health, as `meta/` reports them. */
  status(): { rate_limits: { backend: string; status: 'ok' | 'degraded'; plans: string } } {
    return { rate_limits: { backend: this.options.store.backend, status: this.health.degraded ? 'degraded' : 'ok', plans: this.options.access.planSet.name } };
  }

  /** Marks the state as failing (a Redis that did not answer at startup); the probe notices its return. */
  degrade(error: unknown): void {
    this.health.fail(error);
  }

  /** Stops the health probe (the state is closed by its owner). */
  close(): void {
    this.health.close();
  }

  /**
   * The dispatcher's answer to `request`, or the gate's own error, with the rate-limit headers. Synchronous
   * up to the count, which the state answers later (the calls of one event-loop turn are counted together).
   */
  respond(api: Responder, request: GateRequest): Promise<ApiResponse> {
    const headers = request.headers ?? {};
    const address = clientAddress(request.remoteAddress, headers['x-forwarded-for'], this.proxies);
    const credentials = readCredentials(headers);
    switch (credentials.kind) {
      case 'none':
        return this.counted(api, request, this.anonymous(address));
      case 'conflicting':
        return this.refuse(request, conflictingCredentials(), this.anonymous(address));
      case 'malformed':
        return this.refuse(request, malformedKey(credentials.header), this.anonymous(address));
    }
    const found = this.lookup(credentials.key);
    return found instanceof Promise ? found.then((entry) => this.keyed(api, request, address, entry)) : this.keyed(api, request, address, found);
  }

  /** The rate-limit headers of an address's anonymous bucket, without counting (for errors of the HTTP parser). */
  async anonymousHeaders(remoteAddress: string | undefined): Promise<Record<string, string>> {
    const caller = this.anonymous(clientAddress(remoteAddress, undefined, this.proxies));
    const window = this.clock.window(caller.window);
    return rateHeaders(caller, window, await this.callsSoFar(caller, window));
  }

  private keyed(api: Responder, request: GateRequest, address: string, entry: CachedKey | 'unverified'): Promise<ApiResponse> {
    if (entry === 'unverified') return this.counted(api, request, { ...this.anonymous(address), who: 'Callers whose key cannot be checked right now' });
    if (entry.caller) return this.counted(api, request, entry.caller);
    const { key } = entry;
    const why = !key ? 'is not a key of this service'
      : key.revokedAt ? `was revoked at ${key.revokedAt}`
      : `is on the plan "${key.plan}", which ${this.options.access.planSet.name} does not offer (ask for the key to be reissued)`;
    return this.refuse(request, refusedKey(why), this.anonymous(address));
  }

  /** Counts the call, then answers: 429 past the quota, 403 outside the plan, else the dispatcher. */
  private counted(api: Responder, request: GateRequest, caller: Caller): Promise<ApiResponse> {
    const window = this.clock.window(caller.window);
    if (request.method === 'OPTIONS') {
      return this.callsSoFar(caller, window).then((calls) => this.answer(api, request, rateHeaders(caller, window, calls)));
    }
    return this.count(caller, window).then((calls) => {
      const headers = rateHeaders(caller, window, calls);
      if (calls !== undefined && caller.quota !== null && calls > caller.quota) {
        headers['Retry-After'] = String(Math.max(1, Math.ceil(window.resetSeconds - this.clock.now() / 1000)));
        return this.error(request, rateLimited(caller, window), headers);
      }
      const denied = this.denied(api, caller, request);
      if (denied) return this.error(request, denied, headers);
      return this.answer(api, { method: request.method, url: request.url, headers: request.headers, features: caller.plan.features }, headers);
    });
  }

  private answer(api: Responder, request: ApiRequest, headers: Record<string, string>): ApiResponse | Promise<ApiResponse> {
    const failed = (error: unknown) => {
      this.reportError(error, request);
      return withHeaders(internalError(request.method), headers);
    };
    try {
      const response = api.respond(request);
      return response instanceof Promise ? response.then((settled) => withHeaders(settled, headers), failed) : withHeaders(response, headers);
    } catch (error) {
      return failed(error);
    }
  }

  private error(request: GateRequest, error: ApiError, headers: Record<string, string>): ApiResponse {
    return withHeaders(jsonResponse(request.method, error.status, error.toBody(), error.headers), headers);
  }

  /** An error about the credentials: not counted, with the anonymous bucket's headers. */
  private async refuse(request: GateRequest, error: ApiError, caller: Caller): Promise<ApiResponse> {
    const window = this.clock.window(caller.window);
    return this.error(request, error, rateHeaders(caller, window, await this.callsSoFar(caller, window)));
  }

  private anonymous(address: string): Caller {
    const { anonymous } = this.options.access.planSet;
    return { subject: anonymousSubject(address), plan: anonymous.access, quota: anonymous.quota, window: anonymous.window, who: 'Anonymous callers', anonymous: true };
  }

  /**
   * A key's cache entry, fresh or read again from the state (a promise then); 'unverified' when the state
   * is down and the key was never seen. While degraded, entries older than the cache time still serve.
   */
  private lookup(key: string): CachedKey | 'unverified' | Promise<CachedKey | 'unverified'> {
    const hash = hashKey(key);
    const cached = this.keys.get(hash);
    const nowMs = this.clock.now();
    if (cached && (nowMs - cached.fetchedMs < this.keyCacheMs || this.health.degraded)) return cached;
    if (this.health.degraded) return 'unverified';
    return this.options.store.findKey(hash).then((found) => {
      const plan = found && !found.revokedAt ? this.options.access.planSet.plans.find((p) => p.id === found.plan) : undefined;
      const caller: Caller | undefined = found && plan
        ? { subject: `key:${found.id}`, plan, quota: plan.quota, window: plan.window, who: `The ${plan.name} plan`, anonymous: false }
        : undefined;
      const entry = { key: found, caller, fetchedMs: nowMs };
      if (this.keys.size >= MAX_CACHED_KEYS) this.keys.clear();
      this.keys.set(hash, entry);
      return entry;
    }, (error: unknown) => {
      this.health.fail(error);
      return cached ?? 'unverified';
    });
  }

  /** Counts the call (or, for `hcas get`, reads the count as if it were counted); undefined when degraded. */
  private count(caller: Caller, window: QuotaWindow): Promise<number | undefined> {
    if (this.health.degraded) return NOT_COUNTED;
    const { store } = this.options;
    const counted = this.countCalls ? store.hit(caller.subject, window) : store.peek(caller.subject, window).then((calls) => calls + 1);
    return counted.catch((error: unknown) => {
      this.health.fail(error);
      return undefined;
    });
  }

  private callsSoFar(caller: Caller, window: QuotaWindow): Promise<number | undefined> {
    if (this.health.degraded) return NOT_COUNTED;
    return this.options.store.peek(caller.subject, window).catch((error: unknown) => {
      this.health.fail(error);
      return undefined;
    });
  }

  /**
   * The 403 when the caller's plan does not open the route the dispatcher matches; 404s and 301s are the
   * dispatcher's and reveal nothing.
   */
  private denied(api: Responder, caller: Caller, request: GateRequest): ApiError | undefined {
    if (request.method !== 'GET' && request.method !== 'HEAD') return undefined;
    const route = api.routeOf(request.url);
    const access = route && this.options.access.of(route.path);
    if (!access || access.open || access.plans.has(caller.plan.id)) return undefined;
    return planUpgradeRequired(caller, access.shownPath, access.cheapest);
  }
}
