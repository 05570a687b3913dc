import type { Caller } from './answers.ts';
import type { StoreHealth } from './health.ts';
import { OutageCounts } from './outage-counts.ts';
import { withinWait, type StateStore } from './store.ts';
import type { QuotaWindow } from './windows.ts';

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

/**
 * How the gate counts calls: in the state when it answers within the count wait; by the count last known
 * plus this call when it is late (the state still counts it); in this process (OutageCounts) when the state
 * fails, added to the state when it is back. Calls of unlimited plans are counted behind, in batches.
 */
export class Counting {
  /** Calls counted here while the state could not count them. */
  private readonly outage = new OutageCounts();
  private readonly behind = new Map<Caller, Behind>();
  private behindTimer: NodeJS.Timeout | undefined;
  /** Writes of calls counted behind still under way: a flush (the gate closing) waits for the timer's too. */
  private readonly writing = new Set<Promise<unknown>>();
  private readonly store: StateStore;
  private readonly health: StoreHealth;
  private readonly countCalls: boolean;
  private readonly countWaitMs: number;

  /**
   * `countCalls` false (`hcas get --key`): counts are read as if counted, never written. `countWaitMs`: how long
   * a request waits for the state.
   */
  constructor(store: StateStore, health: StoreHealth, countCalls: boolean, countWaitMs: number) {
    this.store = store;
    this.health = health;
    this.countCalls = countCalls;
    this.countWaitMs = countWaitMs;
    store.events = {
      lost: (subject, window, calls) => this.outage.add(subject, window, calls, subject.startsWith('ip:')),
      stalled: (error) => health.fail(error),
    };
  }

  /**
   * Counts the call (or, for `hcas get`, reads the count as if it were counted) and answers the caller's
   * count, including it. When the state cannot count it (degraded, or failing now) the call is counted here,
   * and the answer is the count last known plus those; when the state is late (a count unanswered within the
   * count wait) the state still counts it, and the answer is the count last known plus one.
   */
  count(caller: Caller, window: QuotaWindow, requestId: string | undefined): Promise<number> {
    if (this.health.degraded) return Promise.resolve(this.countHere(caller, window));
    const counted = this.countCalls
      ? this.store.hit(caller.subject, window, requestId === undefined ? undefined : { requestId })
      : this.store.peek(caller.subject, window).then((calls) => calls + 1);
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

  /** The calls counted so far, without counting (headers of answers that are not counted); the state is given the count wait. */
  soFar(caller: Caller, window: QuotaWindow): Promise<number> {
    const here = () => this.known(caller, window) + this.outage.calls(caller.subject, window.startSeconds);
    if (this.health.degraded) return Promise.resolve(here());
    return withinWait(
      this.store.peek(caller.subject, window).then(
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

  /** The calls this process counted for a subject in a window, without asking the state. */
  countedHere(subject: string, windowStart: number): number {
    return this.outage.calls(subject, windowStart);
  }

  /** True when an unlimited caller's call may be answered at once and counted behind (the state answers). */
  get behindPossible(): boolean {
    return this.countCalls && !this.health.degraded;
  }

  /** Adds an unlimited caller's call to those counted behind, and makes sure they are written soon. */
  later(caller: Caller, window: QuotaWindow): void {
    const waiting = this.behind.get(caller);
    if (waiting && waiting.window.startSeconds === window.startSeconds) {
      waiting.calls++;
    } else {
      if (waiting) void this.flush(); // the window turned: last window's calls go now
      this.behind.set(caller, { caller, window, calls: 1 });
    }
    this.behindTimer ??= setTimeout(() => void this.flush(), COUNT_BEHIND_MS).unref();
  }

  /**
   * Writes the calls counted behind (also when the gate closes); those the state cannot take are counted here.
   * Resolves when they, and any write of an earlier flush still under way, are done.
   */
  flush(): Promise<unknown> {
    clearTimeout(this.behindTimer);
    this.behindTimer = undefined;
    const waiting = [...this.behind.values()];
    this.behind.clear();
    const written = Promise.all(
      waiting.map(({ caller, window, calls }) => this.addToState(caller.subject, window, calls, caller.anonymous)),
    );
    this.writing.add(written);
    void written.finally(() => this.writing.delete(written));
    return Promise.all([...this.writing]);
  }

  /** The state is back: the calls counted here during the outage are added to it. What the recovery log line says of them. */
  recount(): object {
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

  /** Counts a call in this process (for `hcas get`, only reads); answers the count last known plus those counted here. */
  private countHere(caller: Caller, window: QuotaWindow): number {
    if (!this.countCalls) return this.known(caller, window) + this.outage.calls(caller.subject, window.startSeconds) + 1;
    return this.known(caller, window) + this.outage.add(caller.subject, window, 1, caller.anonymous);
  }

  /** The count the state last answered for the caller in this window (0 when none). */
  private known(caller: Caller, window: QuotaWindow): number {
    return caller.lastWindowStart === window.startSeconds ? (caller.lastCalls ?? 0) : 0;
  }

  /** Adds calls counted here (behind, or in an outage) to the state; if it fails, they stay counted here. */
  private addToState(subject: string, window: QuotaWindow, calls: number, anonymous: boolean): Promise<unknown> {
    return this.store.hit(subject, window, { calls }).catch((error: unknown) => {
      this.outage.add(subject, window, calls, anonymous);
      this.health.fail(error);
    });
  }
}
