/** The state of one check that `/readyz` reports. */
export interface Check {
  /** ok; degraded (serving, but something is not as it should be); failing (this process should get no traffic). */
  status: 'ok' | 'degraded' | 'failing';
  /** One sentence a person can act on, when not ok. */
  detail?: string;
  [field: string]: unknown;
}

/** The build being served, as `/readyz` and the metrics report it. */
export interface ServedBuild {
  buildId: string;
  /** ISO 8601, from the build's meta table. */
  builtAt: string;
}

/** What `/readyz` answers: its HTTP status and body. */
export interface Readiness {
  httpStatus: 200 | 503;
  body: {
    status: 'ready' | 'degraded' | 'not_ready';
    build_id: string;
    built_at: string;
    build_age_seconds: number | null;
    uptime_seconds: number;
    pid: number;
    checks: Record<string, Check>;
  };
}

/**
 * What this server process is doing, for `/readyz` and the metrics: the build it serves, whether it is
 * starting, serving or stopping, and named checks that the parts owning them keep current (the database
 * reload, the key and counter state). A check is a function, read when asked, so a part reports its own
 * state without pushing updates. A failing check makes `/readyz` answer 503 (a load balancer sends no
 * traffic); a degraded one still answers 200 (the process serves: taking every replica out because the
 * shared state is down would turn a degraded service into an outage).
 */
export class ServingState {
  phase: 'starting' | 'serving' | 'stopping' = 'starting';
  build: ServedBuild;
  readonly startedAtMs: number;
  private readonly checks = new Map<string, () => Check>();
  private readonly now: () => number;

  constructor(build: ServedBuild, now: () => number = Date.now) {
    this.build = build;
    this.now = now;
    this.startedAtMs = now();
  }

  /** Adds (or replaces) a named check; `/readyz` lists checks in the order they were first set. */
  setCheck(name: string, check: () => Check): void {
    this.checks.set(name, check);
  }

  /** Seconds since the build was made (null when its time is unknown). */
  buildAgeSeconds(): number | null {
    const builtMs = Date.parse(this.build.builtAt);
    return Number.isFinite(builtMs) ? Math.max(0, Math.round((this.now() - builtMs) / 1000)) : null;
  }

  /** The answer of `/readyz` now. */
  readiness(): Readiness {
    const checks: Record<string, Check> = {
      server:
        this.phase === 'serving'
          ? { status: 'ok' }
          : { status: 'failing', detail: this.phase === 'starting' ? 'starting up' : 'shutting down: finishing the requests in flight' },
    };
    for (const [name, check] of this.checks) {
      try {
        checks[name] = check();
      } catch (error) {
        checks[name] = { status: 'failing', detail: `the check failed: ${error instanceof Error ? error.message : String(error)}` };
      }
    }
    const states = Object.values(checks).map((check) => check.status);
    const status = states.includes('failing') ? 'not_ready' : states.includes('degraded') ? 'degraded' : 'ready';
    return {
      httpStatus: status === 'not_ready' ? 503 : 200,
      body: {
        status,
        build_id: this.build.buildId,
        built_at: this.build.builtAt,
        build_age_seconds: this.buildAgeSeconds(),
        uptime_seconds: Math.round((this.now() - this.startedAtMs) / 1000),
        pid: process.pid,
        checks,
      },
    };
  }
}
