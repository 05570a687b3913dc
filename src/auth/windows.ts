/** A quota window: calendar-aligned in UTC, so every client and every replica agree on when it resets. */
export type WindowUnit = 'day' | 'month';

/** One window: its start and the moment it resets, both Unix epoch seconds. */
export interface QuotaWindow {
  startSeconds: number;
  resetSeconds: number;
}

/** The window of `unit` containing the instant `nowMs` (epoch milliseconds). */
export function windowAt(unit: WindowUnit, nowMs: number): QuotaWindow {
  const now = new Date(nowMs);
  const year = now.getUTCFullYear();
  const month = now.getUTCMonth();
  if (unit === 'day') {
    const start = Date.UTC(year, month, now.getUTCDate());
    return { startSeconds: start / 1000, resetSeconds: start / 1000 + 86_400 };
  }
  return { startSeconds: Date.UTC(year, month, 1) / 1000, resetSeconds: Date.UTC(year, month + 1, 1) / 1000 };
}

/**
 * The current window of each unit, recomputed only when the clock passes a reset: the hot path compares
 * one number instead of building dates.
 */
export class WindowClock {
  private readonly current = new Map<WindowUnit, QuotaWindow>();

  readonly now: () => number;

  constructor(now: () => number = Date.now) {
    this.now = now;
  }

  /** The window of `unit` containing now. */
  window(unit: WindowUnit): QuotaWindow {
    const nowMs = this.now();
    let window = this.current.get(unit);
    if (window === undefined || nowMs >= window.resetSeconds * 1000 || nowMs < window.startSeconds * 1000) {
      window = windowAt(unit, nowMs);
      this.current.set(unit, window);
    }
    return window;
  }
}
