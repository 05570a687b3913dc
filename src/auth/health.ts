import type { StateStore } from './store.ts';

/** Where the gate's events go: one JSON object per call (the server's log). */
export type EventLog = (record: object) => void;

/** How often a degraded state is asked whether it is back. */
const PROBE_EVERY_MS = 1_000;
/**
 * How often a working state is asked anyway: a state file deleted under the server still takes counts (on
 * the open file nobody else sees), so only a check of the state itself notices it.
 */
export const CHECK_EVERY_MS = 5_000;

/**
 * Whether the key and counter state answers. The first failure (of a request's count or lookup, or of the
 * check every CHECK_EVERY_MS) marks it degraded and logs `limits_degraded`; a probe pings the state every
 * second, and the first answer marks it ok again and logs `limits_recovered`: one log line per transition,
 * however many requests fail in between.
 */
export class StoreHealth {
  private failing = false;
  /** Failures reported, each one (also while already degraded): the metrics' state errors. */
  errors = 0;
  private probe: NodeJS.Timeout | undefined;
  private readonly store: StateStore;
  log: EventLog;

  private readonly check: NodeJS.Timeout;
  /** Called when the state answers again; what it returns is added to the `limits_recovered` line. */
  private readonly recovered: () => object;

  constructor(store: StateStore, log: EventLog, recovered: () => object = () => ({})) {
    this.store = store;
    this.log = log;
    this.recovered = recovered;
    this.check = setInterval(() => {
      if (!this.failing) this.store.ping().catch((error: unknown) => this.fail(error));
    }, CHECK_EVERY_MS).unref();
  }

  /** True while the state is not answering: calls are counted in this process (outage-counts.ts). */
  get degraded(): boolean {
    return this.failing;
  }

  /** Reports a failure of the state (a no-op while already degraded). */
  fail(error: unknown): void {
    this.errors++;
    if (this.failing) return;
    this.failing = true;
    const { backend, location } = this.store;
    const message = error instanceof Error ? error.message : String(error);
    this.log({
      time: new Date().toISOString(),
      level: 'warn',
      event: 'limits_degraded',
      backend,
      location,
      pid: process.pid,
      error: message,
      detail: 'calls are counted in this process until the state is back, then added to it',
    });
    this.probe = setInterval(() => {
      this.store.ping().then(
        () => {
          if (!this.failing) return;
          this.failing = false;
          clearInterval(this.probe);
          this.log({
            time: new Date().toISOString(),
            level: 'info',
            event: 'limits_recovered',
            backend,
            location,
            pid: process.pid,
            ...this.recovered(),
          });
        },
        () => {},
      );
    }, PROBE_EVERY_MS).unref();
  }

  /** Stops the probe and the check. */
  close(): void {
    clearInterval(this.probe);
    clearInterval(this.check);
  }
}
