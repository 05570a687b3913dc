import { internalError, type ApiRequest, type Routed } from '../http/dispatcher.ts';
import type { ApiError } from '../http/errors.ts';
import { jsonResponse, type ApiResponse } from '../http/response.ts';
import type { Route } from '../http/route.ts';
import type { AccessTable } from './access.ts';
import {
  badCredentialsThrottled,
  conflictingCredentials,
  endpointNotAllowed,
  malformedKey,
  originNotAllowed,
  planUpgradeRequired,
  rateHeaders,
  rateLimited,
  refusedKey,
  unverifiableKey,
  withHeaders,
  type Caller,
} from './answers.ts';
import { anonymousSubject, clientAddress, isLocalCaller, TrustedProxies } from './client-ip.ts';
import { Counting } from './counting.ts';
import { StoreHealth, type EventLog } from './health.ts';
import { KeyVerdicts, REVOCATION_SYNC_MS, type CachedKey } from './key-verdicts.ts';
import { readCredentials } from './keys.ts';
import { originAllowed, requestOrigin } from './origins.ts';
import { DEFAULT_COUNT_WAIT_MS, type StateStore } from './store.ts';
import { CredentialThrottle } from './throttle.ts';
import { WindowClock, type QuotaWindow } from './windows.ts';

export { UNLIMITED } from './answers.ts';
export { COUNT_BEHIND_MS } from './counting.ts';
export { KEY_CACHE_MS, KEY_TRUST_MS, NEW_KEY_WAIT_MS, OUTAGE_TRUST_MS, REVOCATION_SYNC_MS } from './key-verdicts.ts';

/**
 * What the gate wraps: the dispatcher of the current build (`Api`). It answers requests and tells the gate
 * which route a request names, so plan access is decided on the dispatcher's own routing.
 */
export interface Responder {
  respond(request: ApiRequest, routed?: Routed): ApiResponse | Promise<ApiResponse>;
  routeOf(target: string): Routed;
}

/**
 * A request with the address of the socket it came from. The gate notes on it who called (`client`,
 * `plan`, `keyId`) and which route it named, for the server's request log and metrics.
 */
export interface GateRequest extends ApiRequest {
  remoteAddress?: string;
  /**
   * The id a trusted proxy gave the request (X-Request-Id from an address of --trust-proxy). A proxy that
   * retries the request on another replica sends the same id, and the Redis state counts it once.
   */
  proxyRequestId?: string;
  /** Headers added to every answer, whatever it is (the server's X-Request-Id). */
  responseHeaders?: Record<string, string>;
  /**
   * Set by the server: the error for a request the HTTP layer refuses (a repeated Host or credential
   * header). The gate answers it like bad credentials: not counted, with the anonymous headers.
   */
  invalid?: ApiError;
}

/** What the gate found out about a call, for its log line and the metrics. */
export interface CallFacts {
  /** The address the call is counted for. */
  client: string;
  /** The route pattern the request names, if any. */
  route: string | undefined;
  /** The caller's plan id, `anonymous`, `invalid` (bad credentials), `unverified` (a key the state could not check) or `unmetered`. */
  plan: string | undefined;
  /** The key's id, for a caller with a valid key. */
  keyId: number | undefined;
}

/** The gate's answer to a call, and what it found out about the call. */
export interface GateAnswer {
  response: ApiResponse;
  call: CallFacts;
}

/** What the gate has counted since it started, for the server's metrics. */
export interface GateStats {
  backend: string;
  degraded: boolean;
  /** Failed operations of the state (each failed count, lookup or probe). */
  stateErrors: number;
  /** 429 answers by plan (`anonymous` for callers without a key). */
  quotaDenials: ReadonlyMap<string, number>;
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
  /**
   * False for `hcas get --key`: the quota is read and enforced as the server would, but the call is not
   * counted (the analyst reads the file locally, not through the service).
   */
  countCalls?: boolean;
  /** How long a request waits for the state to count it, or to look its key up (`hcas serve --count-wait`). */
  countWaitMs?: number;
  /**
   * Callers without a key on this machine, not through a proxy, are served uncounted with every endpoint, as
   * the top plan (`hcas serve --loopback-unmetered`, as `npm start` runs it): the quick start's owner.
   */
  loopbackUnmetered?: boolean;
}

const MAX_CACHED_KEYS = 10_000;

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
 * Also not counted: the static widget script (a page must never lose it to its visitor's quota). Calls of
 * unlimited plans are answered at once and counted behind (COUNT_BEHIND_MS). Widget keys are refused from
 * pages outside their origins (403, not counted) and outside the widget endpoints (403, counted).
 *
 * Keys (KeyVerdicts): each process reads the state's revocation list every second and keeps what it
 * learned; a key's verdict is trusted KEY_TRUST_MS past the last read that could have told of its
 * revocation, and OUTAGE_TRUST_MS while the state does not answer (its last known plan; a revoked key stays
 * refused; a key never verified gets 401 with Retry-After: 1, never the anonymous tier's access).
 *
 * Counts (Counting): a state that does not answer a count within the count wait (`countWaitMs`, 10 ms by
 * default) is not waited for: the request is answered by the count last known, and the state still counts
 * it. When the state fails (down, or stalled past STATE_STALL_MS) it is an outage of counting, not of
 * service: calls are counted in this process and added to the state when it is back; StoreHealth logs the
 * transitions. Bad credentials are throttled per client address (CredentialThrottle): each costs a read of
 * the state; a key the state has is exempt, so a good key is never refused for its address's bad ones.
 */
export class Gate {
  private readonly clock: WindowClock;
  private readonly verdicts: KeyVerdicts;
  private readonly counting: Counting;
  private readonly syncTimer: NodeJS.Timeout;
  private readonly throttle = new CredentialThrottle();
  readonly proxies: TrustedProxies;
  private readonly quotaDenials = new Map<string, number>();
  private readonly unlimitedHeaders = new Map<Caller, { resetSeconds: number; headers: Record<string, string> }>();
  /** The caller of the quick start's owner (loopbackUnmetered), made once. */
  private owner: Caller | undefined;
  private readonly health: StoreHealth;
  private reportError: (error: unknown, request: ApiRequest) => void;
  private readonly options: GateOptions;

  constructor(options: GateOptions) {
    this.options = options;
    this.clock = new WindowClock(options.now);
    this.proxies = options.proxies ?? new TrustedProxies();
    const countWaitMs = options.countWaitMs ?? DEFAULT_COUNT_WAIT_MS;
    this.health = new StoreHealth(options.store, options.log ?? (() => {}), () => this.counting.recount());
    this.counting = new Counting(options.store, this.health, options.countCalls ?? true, countWaitMs);
    this.verdicts = new KeyVerdicts(options.store, options.access.planSet, this.health, this.clock.now, countWaitMs);
    this.reportError = options.reportError ?? ((error) => console.error(error));
    this.syncTimer = setInterval(() => void this.syncKeys(), REVOCATION_SYNC_MS).unref();
    void this.syncKeys();
  }

  /**
   * Reads the revocations made and the keys created since the last read (the gate does every
   * REVOCATION_SYNC_MS; tests call it). A read that fails leaves what the process knows as it was, and
   * reports the state failing.
   */
  syncKeys(): Promise<void> {
    return this.verdicts.sync();
  }

  /** The server hands the gate its log and error reporter (unless the gate was given its own). */
  attach(log: EventLog, reportError: (error: unknown, request: ApiRequest) => void): void {
    if (!this.options.log) this.health.log = log;
    if (!this.options.reportError) this.reportError = reportError;
  }

  /** The key and counter state the gate counts in (the server checkpoints an SQLite state's WAL in a thread). */
  get store(): StateStore {
    return this.options.store;
  }

  /** The limits' backend and health, as `meta/` reports them. */
  status(): { rate_limits: { backend: string; status: 'ok' | 'degraded'; plans: string } } {
    return {
      rate_limits: {
        backend: this.options.store.backend,
        status: this.health.degraded ? 'degraded' : 'ok',
        plans: this.options.access.planSet.name,
      },
    };
  }

  /** Marks the state as failing (a Redis that did not answer at startup); the probe notices its return. */
  degrade(error: unknown): void {
    this.health.fail(error);
  }

  /** Counts so far, for the metrics. */
  stats(): GateStats {
    return {
      backend: this.options.store.backend,
      degraded: this.health.degraded,
      stateErrors: this.health.errors,
      quotaDenials: this.quotaDenials,
    };
  }

  /** True when `address` (a socket peer) is a trusted proxy, whose X-Forwarded-For and X-Request-Id are believed. */
  trusts(address: string | undefined): boolean {
    return address !== undefined && this.proxies.trusts(address.startsWith('::ffff:') ? address.slice(7) : address);
  }

  /** Counts the calls still waiting and stops the health probe (the state is closed by its owner, after this). */
  async close(): Promise<void> {
    clearInterval(this.syncTimer);
    await this.counting.flush();
    this.health.close();
  }

  /**
   * The dispatcher's answer to `request`, or the gate's own error, with the rate-limit headers. Synchronous
   * up to the count, which the state answers later (the calls of one event-loop turn are counted together).
   */
  respond(api: Responder, request: GateRequest): GateAnswer | Promise<GateAnswer> {
    const address = clientAddress(request.remoteAddress, request.headers?.['x-forwarded-for'], this.proxies);
    const routed = api.routeOf(request.url);
    // The gate's own record of the call, filled as it decides and returned with the answer.
    const call: CallFacts = { client: address, route: routed.route?.path, plan: undefined, keyId: undefined };
    const response = this.decide(api, request, call, routed);
    return response instanceof Promise ? response.then((settled) => ({ response: settled, call })) : { response, call };
  }

  /** Who the caller is (no credentials, bad ones, a key), and so how the call is answered. */
  private decide(api: Responder, request: GateRequest, call: CallFacts, routed: Routed): ApiResponse | Promise<ApiResponse> {
    const headers = request.headers ?? {};
    const address = call.client;
    if (request.invalid !== undefined) return this.refuse(request, call, request.invalid, this.anonymous(address));
    const credentials = readCredentials(headers);
    switch (credentials.kind) {
      case 'none':
        if (this.options.loopbackUnmetered && isLocalCaller(request.remoteAddress, headers))
          return this.unmetered(api, request, call, routed);
        return this.counted(api, request, call, this.anonymous(address), routed);
      case 'conflicting':
        return this.refuse(request, call, conflictingCredentials(), this.anonymous(address));
      case 'malformed':
        return this.refuse(request, call, malformedKey(credentials.header), this.anonymous(address));
    }
    const found = this.verdicts.lookup(credentials.key, address, this.throttle);
    return found instanceof Promise
      ? found.then((entry) => this.keyed(api, request, call, entry, routed))
      : this.keyed(api, request, call, found, routed);
  }

  /** The rate-limit headers of an address's anonymous bucket, without counting (for errors of the HTTP parser). */
  async anonymousHeaders(remoteAddress: string | undefined): Promise<Record<string, string>> {
    const caller = this.anonymous(clientAddress(remoteAddress, undefined, this.proxies));
    const window = this.clock.window(caller.window);
    return rateHeaders(caller, window, await this.counting.soFar(caller, window));
  }

  private keyed(
    api: Responder,
    request: GateRequest,
    call: CallFacts,
    entry: CachedKey | 'unverified' | 'throttled',
    routed: Routed,
  ): ApiResponse | Promise<ApiResponse> {
    const address = call.client;
    if (entry === 'throttled') return this.throttled(request, call, this.anonymous(address));
    if (entry === 'unverified')
      return this.refuse(request, call, unverifiableKey(), this.anonymous(address), { spend: false, plan: 'unverified', read: false });
    const { caller } = entry;
    if (caller) {
      const origins = caller.restrictions?.origins;
      if (origins && origins.length > 0 && request.method !== 'OPTIONS') {
        const origin = requestOrigin(request.headers ?? {});
        if (!originAllowed(origins, origin)) return this.refuse(request, call, originNotAllowed(origin), this.anonymous(address));
      }
      return this.counted(api, request, call, caller, routed);
    }
    const { key } = entry;
    const why = entry.revoked
      ? key?.revokedAt
        ? `was revoked at ${key.revokedAt}`
        : 'was revoked'
      : !key
        ? 'is not a key of this service'
        : `is on the plan "${key.plan}", which ${this.options.access.planSet.name} does not offer (ask for the key to be reissued)`;
    return this.refuse(request, call, refusedKey(why), this.anonymous(address));
  }

  /**
   * Counts the call, then answers: 429 past the quota, 403 outside the plan, else the dispatcher. OPTIONS
   * and the static widget script are answered with the caller's headers, uncounted; an unlimited plan's call
   * is answered at once and counted behind.
   */
  private counted(
    api: Responder,
    request: GateRequest,
    call: CallFacts,
    caller: Caller,
    routed: Routed,
  ): ApiResponse | Promise<ApiResponse> {
    const { route } = routed;
    const plan = caller.anonymous ? 'anonymous' : caller.plan.id;
    call.plan = plan;
    call.keyId = caller.keyId;
    const window = this.clock.window(caller.window);
    if (request.method === 'OPTIONS' || route?.asset) {
      return this.counting
        .soFar(caller, window)
        .then((calls) => this.answer(api, request, caller, rateHeaders(caller, window, calls), routed));
    }
    if (caller.quota === null && this.counting.behindPossible) {
      this.counting.later(caller, window);
      const headers = this.unlimited(caller, window);
      const denied = this.denied(caller, request, route);
      return denied ? this.error(request, denied, headers) : this.answer(api, request, caller, headers, routed);
    }
    return this.counting.count(caller, window, request.proxyRequestId).then((calls) => {
      const headers = rateHeaders(caller, window, calls);
      if (calls !== undefined && caller.quota !== null && calls > caller.quota) {
        headers['Retry-After'] = String(Math.max(1, Math.ceil(window.resetSeconds - this.clock.now() / 1000)));
        this.quotaDenials.set(plan, (this.quotaDenials.get(plan) ?? 0) + 1);
        return this.error(request, rateLimited(caller, window, isLocalCaller(request.remoteAddress, request.headers ?? {})), headers);
      }
      const denied = this.denied(caller, request, route);
      if (denied) return this.error(request, denied, headers);
      return this.answer(api, request, caller, headers, routed);
    });
  }

  private answer(
    api: Responder,
    request: GateRequest,
    caller: Caller,
    headers: Record<string, string>,
    routed: Routed,
  ): ApiResponse | Promise<ApiResponse> {
    const extra = request.responseHeaders;
    const forward: ApiRequest = {
      method: request.method,
      url: request.url,
      headers: request.headers,
      features: caller.plan.features,
      caller: caller.subject,
    };
    const failed = (error: unknown) => {
      this.reportError(error, forward);
      return withHeaders(internalError(request.method), headers, extra);
    };
    try {
      const response = api.respond(forward, routed);
      return response instanceof Promise
        ? response.then((settled) => withHeaders(settled, headers, extra), failed)
        : withHeaders(response, headers, extra);
    } catch (error) {
      return failed(error);
    }
  }

  private error(request: GateRequest, error: ApiError, headers: Record<string, string>): ApiResponse {
    return withHeaders(jsonResponse(request.method, error.status, error.toBody(), error.headers), headers, request.responseHeaders);
  }

  /**
   * An error about the credentials: not counted, with the anonymous bucket's headers. Each costs a read of
   * the state (the count for the headers), so it spends one of the address's bad-credential reads; past
   * them, the headers show the count last read, and nothing is read.
   */
  private async refuse(
    request: GateRequest,
    call: CallFacts,
    error: ApiError,
    caller: Caller,
    { spend = true, plan = 'invalid', read = true } = {},
  ): Promise<ApiResponse> {
    call.plan = plan;
    const window = this.clock.window(caller.window);
    const nowMs = this.clock.now();
    if (spend && !this.throttle.allows(caller.subject, nowMs)) {
      return this.error(request, error, rateHeaders(caller, window, this.throttle.known(caller.subject, window.startSeconds)));
    }
    if (spend) this.throttle.spend(caller.subject, nowMs);
    // A key the state could not check: the request waited for the state once already, it does not wait again for the headers.
    const calls = read ? await this.counting.soFar(caller, window) : this.counting.countedHere(caller.subject, window.startSeconds);
    this.throttle.remember(caller.subject, window.startSeconds, calls);
    return this.error(request, error, rateHeaders(caller, window, calls));
  }

  /** 429 to an address past its bad-credential reads: nothing is read, the key is not looked up. */
  private throttled(request: GateRequest, call: CallFacts, caller: Caller): ApiResponse {
    call.plan = 'invalid';
    const window = this.clock.window(caller.window);
    const seconds = this.throttle.retryAfterSeconds(caller.subject, this.clock.now());
    const headers = {
      ...rateHeaders(caller, window, this.throttle.known(caller.subject, window.startSeconds)),
      'Retry-After': String(seconds),
    };
    return this.error(request, badCredentialsThrottled(seconds), headers);
  }

  /**
   * A caller on this machine with `--loopback-unmetered`: the server's owner, with the top plan's endpoints and
   * features, unlimited, never counted (what `hcas get` answers from the file, the server answers its owner).
   */
  private unmetered(api: Responder, request: GateRequest, call: CallFacts, routed: Routed): ApiResponse | Promise<ApiResponse> {
    const { anonymous, plans } = this.options.access.planSet;
    this.owner ??= {
      subject: 'loopback',
      plan: plans[plans.length - 1],
      quota: null,
      window: anonymous.window,
      who: 'Callers on this machine',
      anonymous: true,
    };
    call.plan = 'unmetered';
    const headers = this.unlimited(this.owner, this.clock.window(this.owner.window));
    const denied = this.denied(this.owner, request, routed.route);
    return denied ? this.error(request, denied, headers) : this.answer(api, request, this.owner, headers, routed);
  }

  /** The rate-limit headers of an unlimited caller: the same for every call of a window, so made once. */
  private unlimited(caller: Caller, window: QuotaWindow): Record<string, string> {
    const made = this.unlimitedHeaders.get(caller);
    if (made && made.resetSeconds === window.resetSeconds) return made.headers;
    const headers = rateHeaders(caller, window, undefined);
    if (this.unlimitedHeaders.size >= MAX_CACHED_KEYS) this.unlimitedHeaders.clear();
    this.unlimitedHeaders.set(caller, { resetSeconds: window.resetSeconds, headers });
    return headers;
  }

  private anonymous(address: string): Caller {
    const { anonymous } = this.options.access.planSet;
    return {
      subject: anonymousSubject(address),
      plan: anonymous.access,
      quota: anonymous.quota,
      window: anonymous.window,
      who: 'Anonymous callers',
      anonymous: true,
    };
  }

  /**
   * The 403 when a widget key names another endpoint, or the caller's plan does not open the route the
   * dispatcher matches; 404s and 301s are the dispatcher's and reveal nothing.
   */
  private denied(caller: Caller, request: GateRequest, route: Route | undefined): ApiError | undefined {
    if (request.method !== 'GET' && request.method !== 'HEAD') return undefined;
    const access = route && this.options.access.of(route.path);
    if (caller.restrictions?.widgetOnly && route && !route.asset && !access?.widget)
      return endpointNotAllowed(access?.shownPath ?? route.path);
    if (!access || access.open || access.plans.has(caller.plan.id)) return undefined;
    const local = isLocalCaller(request.remoteAddress, request.headers ?? {});
    return planUpgradeRequired(caller, access.shownPath, access.cheapest, local ? (request.url ?? access.shownPath) : undefined);
  }
}
