import { keyBytes } from '../http/bounded-map.ts';
import type { QuotaWindow } from './windows.ts';

/** Calls of one subject in one window, counted in this process. */
export interface LocalCount {
  subject: string;
  window: QuotaWindow;
  calls: number;
}

/** Memory for the counts of anonymous callers (client addresses): about 25,000 addresses. Keys' counts always fit. */
export const OUTAGE_COUNTS_BYTES = 4 * 1024 * 1024;
/** What one count holds beyond its key: the entry and its window. */
const ENTRY_BYTES = 160;

/**
 * Calls this process counted itself because the key and counter state could not: while it was down or
 * paused, or when a count it answered late then failed. They are added to the state when it is back
 * (`take`), so an outage of the state is an outage of counting, not a loss of counts. Anonymous callers'
 * counts are bounded by memory (a flood of made-up addresses cannot grow them without end): past the
 * budget, their calls are only summed (`unattributed`) and that sum is reported when the state is back. A
 * key's calls are always kept: there are as many as there are keys.
 */
export class OutageCounts {
  private readonly counts = new Map<string, LocalCount>();
  private anonymousBytes = 0;
  /** Anonymous calls counted past the memory budget, by no address. */
  unattributed = 0;

  /** Adds `calls` to a subject's window; answers that subject's calls counted here in the window. */
  add(subject: string, window: QuotaWindow, calls: number, anonymous: boolean): number {
    const name = `${subject}\n${window.startSeconds}`;
    const count = this.counts.get(name);
    if (count) return (count.calls += calls);
    const bytes = keyBytes(name) + ENTRY_BYTES;
    if (anonymous) {
      if (this.anonymousBytes + bytes > OUTAGE_COUNTS_BYTES) {
        this.unattributed += calls;
        return calls;
      }
      this.anonymousBytes += bytes;
    }
    this.counts.set(name, { subject, window, calls });
    return calls;
  }

  /** A subject's calls counted here in a window. */
  calls(subject: string, windowStart: number): number {
    return this.counts.get(`${subject}\n${windowStart}`)?.calls ?? 0;
  }

  /** True when there is nothing to add to the state. */
  get empty(): boolean {
    return this.counts.size === 0 && this.unattributed === 0;
  }

  /** Takes every count, to add them to the state (what fails is added back with `add`), and the unattributed sum. */
  take(): { counts: LocalCount[]; unattributed: number } {
    const taken = { counts: [...this.counts.values()], unattributed: this.unattributed };
    this.counts.clear();
    this.anonymousBytes = 0;
    this.unattributed = 0;
    return taken;
  }
}
