/**
 * Progress of a download: bytes, share of the file, rate and time left. On a terminal it redraws one line
 * with a bar; otherwise (a log file, CI) it prints a plain line every few seconds; with `silent`, nothing.
 * The clock and the output are passed in, so it tests without a terminal or a wait.
 */

/** Receives the running total of one transfer; `done` clears its line. */
export interface ByteProgress {
  /** `bytes`: the file's bytes on disk so far (a resumed download starts above 0); `total`: its size when known. */
  update(bytes: number, total: number | null): void;
  done(): void;
}

export type ByteProgressFactory = (label: string) => ByteProgress;

export interface ByteProgressOptions {
  /** Where to write (standard error by default); a TTY gets the redrawn bar. */
  stream?: { write(text: string): unknown; isTTY?: boolean };
  /** auto: bar on a TTY, lines otherwise. */
  mode?: 'auto' | 'bar' | 'lines' | 'silent';
  /** Milliseconds between plain lines (5000) or redraws of the bar (250). */
  intervalMs?: number;
  now?: () => number;
}

export const silentByteProgress: ByteProgressFactory = () => ({ update() {}, done() {} });

/** A factory of download progress reporters writing to `options.stream` in the chosen mode. */
export function byteProgress(options: ByteProgressOptions = {}): ByteProgressFactory {
  const stream = options.stream ?? process.stderr;
  const mode = options.mode === undefined || options.mode === 'auto' ? (stream.isTTY ? 'bar' : 'lines') : options.mode;
  if (mode === 'silent') return silentByteProgress;
  const now = options.now ?? Date.now;
  const interval = options.intervalMs ?? (mode === 'bar' ? 250 : 5000);
  return (label) => {
    const started = now();
    let last = started;
    let first: number | null = null;
    let shown = false;
    return {
      update(bytes, total) {
        // The rate counts only this session's bytes: a resumed download must not look instantly fast.
        first ??= bytes;
        const time = now();
        if (time - last < interval) return;
        last = time;
        shown = true;
        const line = formatByteProgress({ label, bytes, total, seconds: (time - started) / 1000, sessionBytes: bytes - first }, mode === 'bar');
        stream.write(mode === 'bar' ? `\r${line}\x1b[K` : `${line}\n`);
      },
      done() {
        if (shown && mode === 'bar') stream.write('\r\x1b[K');
      },
    };
  };
}

export interface ByteSnapshot {
  label: string;
  bytes: number;
  total: number | null;
  seconds: number;
  /** Bytes received in this session (the rate's numerator). */
  sessionBytes: number;
}

/** `nppes  512 MB of 1.2 GB  [########            ] 43%  40 MB/s  ETA 0:17`, or the same as a log line. */
export function formatByteProgress(s: ByteSnapshot, bar: boolean): string {
  const rate = s.seconds > 0 ? s.sessionBytes / s.seconds : 0;
  const parts = [s.label, s.total === null ? formatBytes(s.bytes) : `${formatBytes(s.bytes)} of ${formatBytes(s.total)}`];
  if (s.total !== null && s.total > 0) {
    const fraction = Math.min(1, s.bytes / s.total);
    const percent = `${Math.floor(fraction * 100)}%`;
    parts.push(bar ? `[${'#'.repeat(Math.round(fraction * 20)).padEnd(20)}] ${percent}` : percent);
  }
  parts.push(`${formatBytes(rate)}/s`);
  if (s.total !== null && rate > 0) parts.push(`ETA ${clock((s.total - s.bytes) / rate)}`);
  return bar ? `  ${parts.join('  ')}` : `  ${parts.join(', ')}`;
}

/** 950 B, 12 kB, 340 MB, 1.2 GB (decimal units, as publishers state file sizes). */
export function formatBytes(bytes: number): string {
  if (bytes >= 1e9) return `${(bytes / 1e9).toFixed(1)} GB`;
  if (bytes >= 1e6) return `${(bytes / 1e6).toFixed(0)} MB`;
  if (bytes >= 1e3) return `${(bytes / 1e3).toFixed(0)} kB`;
  return `${Math.round(bytes)} B`;
}

function clock(seconds: number): string {
  const total = Math.max(0, Math.round(seconds));
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const rest = String(total % 60).padStart(2, '0');
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, '0')}:${rest}` : `${minutes}:${rest}`;
}
