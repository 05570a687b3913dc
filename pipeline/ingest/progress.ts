/**
 * Progress of a long read: rows, bytes, rate, share of the file and time left. On a terminal it redraws one
 * status line; otherwise (a log file, CI) it prints a plain line every few seconds; it can also be silent.
 * The clock and the output are passed in, so it tests without a terminal or a wait.
 */

/** Receives the running totals of one task; `done` ends its line. */
export interface Progress {
  /** `fraction` is the share of the work done (0..1) when it is known. */
  update(rows: number, bytes: number, fraction?: number): void;
  done(): void;
}

/** Starts the progress of one task (a file being read, a sample being written). */
export type ProgressFactory = (label: string) => Progress;

export interface ProgressOptions {
  /** Where to write (standard error by default); a TTY gets the redrawn status line. */
  stream?: { write(text: string): unknown; isTTY?: boolean };
  /** auto: bar on a TTY, lines otherwise. */
  mode?: 'auto' | 'bar' | 'lines' | 'silent';
  /** Milliseconds between plain lines (5000) or redraws of the bar (250). */
  intervalMs?: number;
  /** A task that ends sooner than this (ms) prints nothing (1000). */
  quietMs?: number;
  now?: () => number;
}

/** A progress snapshot in numbers, for formats other than text (a later `--log-format json`). */
export interface ProgressSnapshot {
  label: string;
  rows: number;
  bytes: number;
  seconds: number;
  bytesPerSecond: number;
  fraction: number | null;
  etaSeconds: number | null;
}

export const silentProgress: ProgressFactory = () => ({ update() {}, done() {} });

/** A factory of progress reporters writing to `options.stream` in the chosen mode. */
export function progressReporter(options: ProgressOptions = {}): ProgressFactory {
  const stream = options.stream ?? process.stderr;
  const mode = options.mode === 'auto' || options.mode === undefined ? (stream.isTTY ? 'bar' : 'lines') : options.mode;
  if (mode === 'silent') return silentProgress;
  const now = options.now ?? Date.now;
  const interval = options.intervalMs ?? (mode === 'bar' ? 250 : 5000);
  const quiet = options.quietMs ?? 1000;
  return (label) => {
    const started = now();
    let last = started;
    let shown = false;
    let latest: ProgressSnapshot = snapshot(label, 0, 0, 0, undefined);
    return {
      update(rows, bytes, fraction) {
        const time = now();
        if (time - last < interval || time - started < quiet) return;
        last = time;
        latest = snapshot(label, rows, bytes, (time - started) / 1000, fraction);
        shown = true;
        stream.write(mode === 'bar' ? `\r${formatProgress(latest, true)}\x1b[K` : `${formatProgress(latest, false)}\n`);
      },
      done() {
        // The bar's line is cleared: the caller prints its own summary of the task.
        if (shown && mode === 'bar') stream.write('\r\x1b[K');
      },
    };
  };
}

export function snapshot(label: string, rows: number, bytes: number, seconds: number, fraction: number | undefined): ProgressSnapshot {
  const known = fraction !== undefined && fraction > 0 && fraction <= 1;
  return {
    label, rows, bytes, seconds,
    bytesPerSecond: seconds > 0 ? bytes / seconds : 0,
    fraction: known ? fraction : null,
    etaSeconds: known ? (seconds * (1 - fraction)) / fraction : null,
  };
}

/** `nppes  1,234,567 rows  2.1 GB at 180 MB/s  [#####     ] 45%  ETA 0:23` (a bar) or the same as a log line. */
export function formatProgress(s: ProgressSnapshot, bar: boolean): string {
  const parts = [`${s.label}`, `${s.rows.toLocaleString('en-US')} rows`, `${megabytes(s.bytes)} at ${(s.bytesPerSecond / 1e6).toFixed(0)} MB/s`];
  if (s.fraction !== null) {
    const percent = `${Math.floor(s.fraction * 100)}%`;
    parts.push(bar ? `[${'#'.repeat(Math.round(s.fraction * 20)).padEnd(20)}] ${percent}` : `${percent} of the file`);
    parts.push(`ETA ${clock(s.etaSeconds!)}`);
  }
  return bar ? `  ${parts.join('  ')}` : `  ${parts.join(', ')}`;
}

function megabytes(bytes: number): string {
  return bytes >= 1e9 ? `${(bytes / 1e9).toFixed(1)} GB` : `${(bytes / 1e6).toFixed(0)} MB`;
}

function clock(seconds: number): string {
  const total = Math.round(seconds);
  const m = Math.floor(total / 60);
  return `${m}:${String(total % 60).padStart(2, '0')}`;
}
