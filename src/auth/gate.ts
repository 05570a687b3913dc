import { BoundedMap, keyBytes } from '../http/bounded-map.ts';
import { internalError, type ApiRequest } from '../http/dispatcher.ts';
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
import { StoreHealth, type EventLog } from './health.ts';
import { OutageCounts } from './outage-counts.ts';
import { hashKey, readCredentials } from './keys.ts';
import { originAllowed, requestOrigin } from './origins.ts';
import { afterIo, DEFAULT_COUNT_WAIT_MS, type StateStore, type StoredKey } from './store.ts';
import { CredentialThrottle } from './throttle.ts';
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
  /** Set by the gate: the address the call is counted for. */
  client?: string;
  /** Set by the gate: the caller's plan id, `anonymous`, `invalid` (bad credentials) or `unverified` (a key the state could not check). */
  plan?: string;
  /** Set by the gate: the key's id, for a caller with a valid key. */
  keyId?: number;
  /** Set by the gate: the route pattern the request names, if any. */
  route?: string;
  /**
   * Set by the server: the error for a request the HTTP layer refuses (a repeated Host or credential
   * header). The gate answers it like bad credentials: not counted, with the anonymous headers.
   */
  invalid?: ApiError;
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
   * Callers without a key on this machine, not through a proxy, are served uncounted with the anonymous
   * tier's endpoints (`hcas serve --loopback-unmetered`, as `npm start` runs it): the quick start's owner.
   */
  loopbackUnmetered?: boolean;
}

/** Revocation takes effect in every worker within this many milliseconds while the state answers (docs/api.md). */
export const KEY_CACHE_MS = 5_000;
/** How often each process reads the state's revocation list: a revocation reaches it this soon. */
export const REVOCATION_SYNC_MS = 1_000;
/**
 * How long a key's verdict is trusted after the last moment the state could have told of its revocation
 * (the start of the last revocation read that answered, or the key's own lookup). With the read every
 * second this is never reached while the state answers; when it stops answering, a key seen before keeps
 * its plan this long, then is refused until the state is back. Either way a revocation bites within
 * KEY_CACHE_MS.
 */
export const KEY_TRUST_MS = KEY_CACHE_MS - REVOCATION_SYNC_MS;
/**
 * While the state does not answer, a key this process verified keeps its last known plan this long past
 * its last verification (its own lookup, or the last revocation read that answered): an outage of the
 * state is an outage of counting, not of service. A revocation this process read stays in force; one made
 * less than a read before the outage reaches it when the state is back.
 */
export const OUTAGE_TRUST_MS = 15 * 60_000;
/** Memory for the cache of keys the state knows (valid or revoked): about 3,000 keys. */
const KEY_CACHE_BYTES = 2 * 1024 * 1024;
/** Memory for the cache of keys the state does not know, apart, so a flood of made-up keys never evicts a good one: about 6,000. */
const UNKNOWN_KEY_CACHE_BYTES = 1024 * 1024;
const MAX_CACHED_KEYS = 10_000;
/**
 * Calls of unlimited plans are never refused, so they are answered at once and counted behind, in one
 * write per caller this often (and when the gate closes): the count is exact, it only lands this much later.
 */
export const COUNT_BEHIND_MS = 50;

/** Calls of one unlimited caller waiting to be counted. */
interface Behind {
  caller: Caller;
  window: QuotaWindow;
  calls: number;
}

/** A key as last read from the state, with its caller when it is valid (unknown, revoked: none). */
interface CachedKey {
  key: StoredKey | undefined;
  caller: Caller | undefined;
  fetchedMs: number;
  /** The key's SHA-256, the name the state and the revocation list know it by. */
  hash: string;
  /** Revoked: by the state's answer, or by the revocation list (final either way). */
  revoked: boolean;
}

/** What the key cache charges an entry beyond its key: the entry, the stored key and the caller, rounded up. */
const KEY_ENTRY_BYTES = 768;
/** The same for a key the state does not know: the entry and the key's hash. */
const UNKNOWN_KEY_ENTRY_BYTES = 256;

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
 * Revocation holds whatever the state does: each process reads the state's revocation list every second
 * and keeps what it learned (a revoked key stays refused, even if a state restored from an old backup
 * forgets it), and trusts a key's verdict only KEY_TRUST_MS past the last read that could have told it of
 * a revocation. A state that does not answer a count within the count wait (`countWaitMs`, 10 ms by
 * default) is not waited for: the request is
 * answered by the count last known, and the state still counts it. When the state fails (Redis down or
 * paused past STATE_STALL_MS, the state file locked too long), it is an outage of counting, not of service:
 * calls are counted in this process (OutageCounts) and judged by the count last known plus those, then added
 * to the state when it is back; a key verified in the last OUTAGE_TRUST_MS keeps its last known plan, a
 * revoked key stays refused, any other key is refused (401, Retry-After: 1; never the anonymous tier's
 * access), and StoreHealth logs the transitions. Bad credentials are throttled per client address (CredentialThrottle): each costs a read of
 * the state; a key the state has (read with the revocation list) is exempt, so a good key is never refused
 * for its address's bad ones.
 */
export class Gate {
  private readonly clock: WindowClock;
  /** By the key itself, so a cached key costs no hash; bounded by bytes, since clients can send any number of keys. */
  private readonly keys = new BoundedMap<CachedKey>(KEY_CACHE_BYTES, (key) => keyBytes(key) + KEY_ENTRY_BYTES);
  private readonly unknownKeys = new BoundedMap<CachedKey>(UNKNOWN_KEY_CACHE_BYTES, (key) => keyBytes(key) + UNKNOWN_KEY_ENTRY_BYTES);
  /**
   * The first 52 bits of the hash of every key the state has (read with the revocation list): a key among
   * them is looked up whatever its address's bad keys cost, so a good key is never throttled for them.
   */
  private readonly knownKeys = new Set<number>();
  private keysSeen = 0;
  /** Hashes of every key this process has learned is revoked: it only grows (revoked keys are few and final). */
  private readonly revoked = new Set<string>();
  private revocationsSeen = 0;
  /** Start of the last read of the revocation list that answered (the limits' clock). */
  private syncedAtMs = Number.NEGATIVE_INFINITY;
  private readonly syncTimer: NodeJS.Timeout;
  private readonly throttle = new CredentialThrottle();
  readonly proxies: TrustedProxies;
  private readonly quotaDenials = new Map<string, number>();
  private readonly behind = new Map<Caller, Behind>();
  private behindTimer: NodeJS.Timeout | undefined;
  private readonly unlimitedHeaders = new Map<Caller, { resetSeconds: number; headers: Record<string, string> }>();
  private readonly countCalls: boolean;
  private readonly countWaitMs: number;
  /** The caller of the quick start's owner (loopbackUnmetered), made once. */
  private owner: Caller | undefined;
  private readonly health: StoreHealth;
  /** Calls counted here while the state could not count them, added to it when it is back. */
  private readonly outage = new OutageCounts();
  private reportError: (error: unknown, request: ApiRequest) => void;
  private readonly options: GateOptions;

  constructor(options: GateOptions) {
    this.options = options;
    this.clock = new WindowClock(options.now);
    this.proxies = options.proxies ?? new TrustedProxies();
    this.countCalls = options.countCalls ?? true;
    this.countWaitMs = options.countWaitMs ?? DEFAULT_COUNT_WAIT_MS;
    this.health = new StoreHealth(options.store, options.log ?? (() => {}), () => this.recount());
    options.store.events = {
      lost: (subject, window, calls) => this.outage.add(subject, window, calls, subject.startsWith('ip:')),
      stalled: (error) => this.health.fail(error),
    };
    this.reportError = options.reportError ?? ((error) => console.error(error));
    this.syncTimer = setInterval(() => void this.syncKeys(), REVOCATION_SYNC_MS).unref();
    void this.syncKeys();
  }

  /**
   * Reads the revocations made and the keys created since the last read (the gate does every
   * REVOCATION_SYNC_MS; tests call it). A read that fails leaves what the process knows as it was, and
   * reports the state failing.
   */
  async syncKeys(): Promise<void> {
    const started = this.clock.now();
    try {
      const [revoked, created] = await Promise.all([
        this.options.store.revocations(this.revocationsSeen),
        this.options.store.keyHashes(this.keysSeen),
      ]);
      for (const hash of revoked.hashes) this.revoked.add(hash);
      this.revocationsSeen = revoked.next;
      for (const hash of created.hashes) this.knownKeys.add(hashPrefix(hash));
      this.keysSeen = created.next;
      this.syncedAtMs = Math.max(this.syncedAtMs, started);
    } catch (error) {
      this.health.fail(error);
    }
  }

  /** The server hands the gate its log and error reporter (unless the gate was given its own). */
  attach(log: EventLog, reportError: (error: unknown, request: ApiRequest) => void): void {
    if (!this.options.log) this.health.log = log;
    if (!this.options.reportError) this.reportError = reportError;
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
    await this.countBehind();
    this.health.close();
  }

  /**
   * The dispatcher's answer to `request`, or the gate's own error, with the rate-limit headers. Synchronous
   * up to the count, which the state answers later (the calls of one event-loop turn are counted together).
   */
  respond(api: Responder, request: GateRequest): ApiResponse | Promise<ApiResponse> {
    const headers = request.headers ?? {};
    const address = clientAddress(request.remoteAddress, headers['x-forwarded-for'], this.proxies);
    request.client = address;
    const route = api.routeOf(request.url);
    request.route = route?.path;
    if (request.invalid !== undefined) return this.refuse(request, request.invalid, this.anonymous(address));
    const credentials = readCredentials(headers);
    switch (credentials.kind) {
      case 'none':
        if (this.options.loopbackUnmetered && isLocalCaller(request.remoteAddress, headers)) return this.unmetered(api, request, route);
        return this.counted(api, request, this.anonymous(address), route);
      case 'conflicting':
        return this.refuse(request, conflictingCredentials(), this.anonymous(address));
      case 'malformed':
        return this.refuse(request, malformedKey(credentials.header), this.anonymous(address));
    }
    const found = this.lookup(credentials.key, anonymousSubject(address));
    return found instanceof Promise
      ? found.then((entry) => this.keyed(api, request, address, entry, route))
      : this.keyed(api, request, address, found, route);
  }

  /** The rate-limit headers of an address's anonymous bucket, without counting (for errors of the HTTP parser). */
  async anonymousHeaders(remoteAddress: string | undefined): Promise<Record<string, string>> {
    const caller = this.anonymous(clientAddress(remoteAddress, undefined, this.proxies));
    const window = this.clock.window(caller.window);
    return rateHeaders(caller, window, await this.callsSoFar(caller, window));
  }

  private keyed(
    api: Responder,
    request: GateRequest,
    address: string,
    entry: CachedKey | 'unverified' | 'throttled',
    route: Route | undefined,
  ): ApiResponse | Promise<ApiResponse> {
    if (entry === 'throttled') return this.throttled(request, this.anonymous(address));
    if (entry === 'unverified')
      return this.refuse(request, unverifiableKey(), this.anonymous(address), { spend: false, plan: 'unverified', read: false });
    const { caller } = entry;
    if (caller) {
      const origins = caller.restrictions?.origins;
      if (origins && origins.length > 0 && request.method !== 'OPTIONS') {
        const origin = requestOrigin(request.headers ?? {});
        if (!originAllowed(origins, origin)) return this.refuse(request, originNotAllowed(origin), this.anonymous(address));
      }
      return this.counted(api, request, caller, route);
    }
    const { key } = entry;
    const why = entry.revoked
      ? key?.revokedAt
        ? `was revoked at ${key.revokedAt}`
        : 'was revoked'
      : !key
        ? 'is not a key of this service'
        : `is on the plan "${key.plan}", which ${this.options.access.planSet.name} does not offer (ask for the key to be reissued)`;
    return this.refuse(request, refusedKey(why), this.anonymous(address));
  }

  /**
   * Counts the call, then answers: 429 past the quota, 403 outside the plan, else the dispatcher. OPTIONS
   * and the static widget script are answered with the caller's headers, uncounted; an unlimited plan's call
   * is answered at once and counted behind.
   */
  private counted(api: Responder, request: GateRequest, caller: Caller, route: Route | undefined): ApiResponse | Promise<ApiResponse> {
    request.plan = caller.anonymous ? 'anonymous' : caller.plan.id;
    request.keyId = caller.keyId;
    const window = this.clock.window(caller.window);
    if (request.method === 'OPTIONS' || route?.asset) {
      return this.callsSoFar(caller, window).then((calls) => this.answer(api, request, caller, rateHeaders(caller, window, calls)));
    }
    if (caller.quota === null && this.countCalls && !this.health.degraded) {
      this.countLater(caller, window);
      const headers = this.unlimited(caller, window);
      const denied = this.denied(caller, request, route);
      return denied ? this.error(request, denied, headers) : this.answer(api, request, caller, headers);
    }
    return this.count(caller, window, request.proxyRequestId).then((calls) => {
      const headers = rateHeaders(caller, window, calls);
      if (calls !== undefined && caller.quota !== null && calls > caller.quota) {
        headers['Retry-After'] = String(Math.max(1, Math.ceil(window.resetSeconds - this.clock.now() / 1000)));
        this.quotaDenials.set(request.plan!, (this.quotaDenials.get(request.plan!) ?? 0) + 1);
        return this.error(request, rateLimited(caller, window, isLocalCaller(request.remoteAddress, request.headers ?? {})), headers);
      }
      const denied = this.denied(caller, request, route);
      if (denied) return this.error(request, denied, headers);
      return this.answer(api, request, caller, headers);
    });
  }

  private answer(
    api: Responder,
    request: GateRequest,
    caller: Caller,
    headers: Record<string, string>,
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
      const response = api.respond(forward);
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
    error: ApiError,
    caller: Caller,
    { spend = true, plan = 'invalid', read = true } = {},
  ): Promise<ApiResponse> {
    request.plan = plan;
    const window = this.clock.window(caller.window);
    const nowMs = this.clock.now();
    if (spend && !this.throttle.allows(caller.subject, nowMs)) {
      return this.error(request, error, rateHeaders(caller, window, this.throttle.known(caller.subject, window.startSeconds)));
    }
    if (spend) this.throttle.spend(caller.subject, nowMs);
    // A key the state could not check: the request waited for the state once already, it does not wait again for the headers.
    const calls = read ? await this.callsSoFar(caller, window) : this.outage.calls(caller.subject, window.startSeconds);
    this.throttle.remember(caller.subject, window.startSeconds, calls);
    return this.error(request, error, rateHeaders(caller, window, calls));
  }

  /** 429 to an address past its bad-credential reads: nothing is read, the key is not looked up. */
  private throttled(request: GateRequest, caller: Caller): ApiResponse {
    request.plan = 'invalid';
    const window = this.clock.window(caller.window);
    const seconds = this.throttle.retryAfterSeconds(caller.subject, this.clock.now());
    const headers = {
      ...rateHeaders(caller, window, this.throttle.known(caller.subject, window.startSeconds)),
      'Retry-After': String(seconds),
    };
    return this.error(request, badCredentialsThrottled(seconds), headers);
  }

  /** A caller on this machine with `--loopback-unmetered`: the anonymous tier's endpoints, unlimited, never counted. */
  private unmetered(api: Responder, request: GateRequest, route: Route | undefined): ApiResponse | Promise<ApiResponse> {
    const { anonymous } = this.options.access.planSet;
    this.owner ??= {
      subject: 'loopback',
      plan: anonymous.access,
      quota: null,
      window: anonymous.window,
      who: 'Callers on this machine',
      anonymous: true,
    };
    request.plan = 'unmetered';
    const headers = this.unlimited(this.owner, this.clock.window(this.owner.window));
    const denied = this.denied(this.owner, request, route);
    return denied ? this.error(request, denied, headers) : this.answer(api, request, this.owner, headers);
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

  /** Adds an unlimited caller's call to those counted behind, and makes sure they are written soon. */
  private countLater(caller: Caller, window: QuotaWindow): void {
    const waiting = this.behind.get(caller);
    if (waiting && waiting.window.startSeconds === window.startSeconds) {
      waiting.calls++;
    } else {
      if (waiting) void this.countBehind(); // the window turned: last window's calls go now
      this.behind.set(caller, { caller, window, calls: 1 });
    }
    this.behindTimer ??= setTimeout(() => void this.countBehind(), COUNT_BEHIND_MS).unref();
  }

  /** Writes the calls counted behind; those the state cannot take are counted here until it is back. */
  private countBehind(): Promise<unknown> {
    clearTimeout(this.behindTimer);
    this.behindTimer = undefined;
    const waiting = [...this.behind.values()];
    this.behind.clear();
    return Promise.all(waiting.map(({ caller, window, calls }) => this.addToState(caller.subject, window, calls, caller.anonymous)));
  }

  /** Adds calls counted here (behind, or in an outage) to the state; if it fails, they stay counted here. */
  private addToState(subject: string, window: QuotaWindow, calls: number, anonymous: boolean): Promise<unknown> {
    return this.options.store.hit(subject, window, { calls }).catch((error: unknown) => {
      this.outage.add(subject, window, calls, anonymous);
      this.health.fail(error);
    });
  }

  /** The state is back: the calls counted here during the outage are added to it. What the recovery log line says of them. */
  private recount(): object {
    const { counts, unattributed } = this.outage.take();
    let calls = 0;
    for (const count of counts) {
      calls += count.calls;
      void this.addToState(count.subject, count.window, count.calls, count.subject.startsWith('ip:'));
    }
    return {
      calls_recounted: calls,
      callers_recounted: counts.length,
      ...(unattributed > 0 && { anonymous_calls_unattributed: unattributed }),
    };
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
   * A key's cache entry, when its verdict is still trusted, else read again from the state (a promise):
   * 'unverified' when the state does not answer, 'throttled' when the caller's address has spent its
   * bad-credential reads (an unknown key costs one).
   */
  private lookup(key: string, subject: string): CachedKey | 'unverified' | 'throttled' | Promise<CachedKey | 'unverified'> {
    const nowMs = this.clock.now();
    const cached = this.keys.get(key) ?? this.unknownKeys.get(key);
    if (cached !== undefined && this.trusted(cached, nowMs)) return cached;
    const hash = cached?.hash ?? hashKey(key);
    // A key the state has is looked up whatever its address's bad keys cost: only made-up keys are throttled.
    if (!this.throttle.allows(subject, nowMs) && !this.knownKeys.has(hashPrefix(hash))) return 'throttled';
    // The refusal of a key that is not valid spends the address's read (refuse), whether it was read now or cached.
    // A state that does not answer within the count wait: the key's last verdict if it is recent enough for an
    // outage (the lookup goes on, and what it finds is kept), else the key cannot be checked.
    const fallback = () =>
      cached?.caller && !this.revoked.has(hash) && nowMs < this.verifiedAt(cached) + OUTAGE_TRUST_MS ? cached : 'unverified';
    return withinWait(
      this.options.store.findKey(hash).then(
        (found) => this.remember(key, hash, found, nowMs),
        (error: unknown) => {
          this.health.fail(error);
          return fallback();
        },
      ),
      this.countWaitMs,
      fallback,
    );
  }

  /**
   * True while a cached verdict holds: a revocation is final; a valid key holds KEY_TRUST_MS past the last
   * moment the state could have told of its revocation; an unknown key is asked about again after that
   * long (it may have been created since).
   */
  private trusted(entry: CachedKey, nowMs: number): boolean {
    if (entry.revoked) return true;
    if (this.revoked.has(entry.hash)) {
      entry.revoked = true;
      entry.caller = undefined;
      return true;
    }
    if (entry.caller) return nowMs < this.verifiedAt(entry) + (this.health.degraded ? OUTAGE_TRUST_MS : KEY_TRUST_MS);
    return nowMs - entry.fetchedMs < KEY_TRUST_MS;
  }

  /** The last moment the state could have told of the key's revocation: its lookup, or the last revocation read. */
  private verifiedAt(entry: CachedKey): number {
    return Math.max(entry.fetchedMs, this.syncedAtMs);
  }

  /** Caches a key's lookup; the revocation list wins over a state that no longer says the key is revoked. */
  private remember(key: string, hash: string, found: StoredKey | undefined, nowMs: number): CachedKey {
    if (found?.revokedAt) this.revoked.add(hash);
    const revoked = this.revoked.has(hash);
    const plan = found && !revoked ? this.options.access.planSet.plans.find((p) => p.id === found.plan) : undefined;
    const caller: Caller | undefined =
      found && plan
        ? {
            subject: `key:${found.id}`,
            plan,
            quota: plan.quota,
            window: plan.window,
            who: `The ${plan.name} plan`,
            anonymous: false,
            keyId: found.id,
            restrictions: found.restrictions ?? undefined,
          }
        : undefined;
    const entry: CachedKey = { key: found, caller, fetchedMs: nowMs, hash, revoked };
    if (found) {
      this.keys.set(key, entry);
      this.unknownKeys.delete(key);
    } else {
      this.unknownKeys.set(key, entry);
    }
    return entry;
  }

  /**
   * Counts the call (or, for `hcas get`, reads the count as if it were counted) and answers the caller's
   * count, including it. When the state cannot count it (degraded, or failing now) the call is counted here
   * (OutageCounts), and the answer is the count last known plus those; when the state is late (a count
   * unanswered within the count wait) the state still counts it, and the answer is the count last known plus one.
   */
  private count(caller: Caller, window: QuotaWindow, requestId: string | undefined): Promise<number> {
    if (this.health.degraded) return Promise.resolve(this.countHere(caller, window));
    const { store } = this.options;
    const counted = this.countCalls
      ? store.hit(caller.subject, window, requestId === undefined ? undefined : { requestId })
      : store.peek(caller.subject, window).then((calls) => calls + 1);
    return counted.then(
      (calls) => {
        const known = calls ?? this.known(caller, window) + 1;
        caller.lastCalls = known;
        caller.lastWindowStart = window.startSeconds;
        return calls === undefined ? known + this.outage.calls(caller.subject, window.startSeconds) : calls;
      },
      (error: unknown) => {
        this.health.fail(error);
        return this.countHere(caller, window);
      },
    );
  }

  /** Counts a call in this process (for `hcas get`, only reads); answers the count last known plus those counted here. */
  private countHere(caller: Caller, window: QuotaWindow): number {
    if (!this.countCalls) return this.known(caller, window) + this.outage.calls(caller.subject, window.startSeconds) + 1;
    return this.known(caller, window) + this.outage.add(caller.subject, window, 1, caller.anonymous);
  }

  /** The count the state last answered for the caller in this window (0 when none). */
  private known(caller: Caller, window: QuotaWindow): number {
    return caller.lastWindowStart === window.startSeconds ? (caller.lastCalls ?? 0) : 0;
  }

  /** The calls counted so far, without counting (headers of answers that are not counted); the state is given the count wait to answer. */
  private callsSoFar(caller: Caller, window: QuotaWindow): Promise<number | undefined> {
    const here = () => this.known(caller, window) + this.outage.calls(caller.subject, window.startSeconds);
    if (this.health.degraded) return Promise.resolve(here());
    return withinWait(
      this.options.store.peek(caller.subject, window).then(
        (calls) => calls + this.outage.calls(caller.subject, window.startSeconds),
        (error: unknown) => {
          this.health.fail(error);
          return here();
        },
      ),
      this.countWaitMs,
      here,
    );
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
    return planUpgradeRequired(caller, access.shownPath, access.cheapest);
  }
}

/** The first 52 bits of a key's SHA-256 (hex), as a number: what the set of known keys holds. */
function hashPrefix(hash: string): number {
  return Number.parseInt(hash.slice(0, 13), 16);
}

/** `answer`, or `fallback()` if it has not settled within `waitMs` (it still runs to its end). */
function withinWait<T>(answer: Promise<T>, waitMs: number, fallback: () => T): Promise<T> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => afterIo(() => resolve(fallback())), waitMs);
    void answer.then((value) => {
      clearTimeout(timer);
      resolve(value);
    });
  });
}
