/**
 * Progress of long work (a file read by the build, a download, records written by `hcas sample` or
 * `hcas export`), one engine for all of it: on a terminal it redraws one line with a bar; otherwise (a log
 * file, CI) it prints a plain line every few seconds; `json` prints the same snapshots as JSON lines for
 * machines; `silent` prints nothing. The clock and the output are passed in, so it tests without a terminal
 * or a wait. Each kind of work (reads, downloads, counted records) has its own line format below.
 */
import { FixableError } from './errors.ts';

/** auto: a bar on a TTY, lines otherwise. */
export type ProgressMode = 'auto' | 'bar' | 'lines' | 'json' | 'silent';

export interface ProgressOptions {
  /** Where to write (standard error by default); a TTY gets the redrawn bar. */
  stream?: { write(text: string): unknown; isTTY?: boolean };
  mode?: ProgressMode;
  /** Milliseconds between plain lines or JSON lines (5000), or redraws of the bar (250). */
  intervalMs?: number;
  /** A task that ends sooner than this (ms) prints nothing (1000). */
  quietMs?: number;
  now?: () => number;
}

/** The help of the `--log-format` flag of the long commands (build, sample, fetch, export). */
export const LOG_FORMAT_HELP = 'progress and log lines as text for people (default) or json: one JSON object per line, for machines';

/** The `--quiet` and `--log-format` flags of the long commands, as a mode; a usage error names what is accepted. */
export function progressMode(flags: { quiet?: boolean; logFormat?: string }): ProgressMode {
  const format = flags.logFormat ?? 'text';
  if (format !== 'text' && format !== 'json') throw new FixableError(`--log-format must be text or json, got ${format}`);
  if (flags.quiet && format === 'json')
    throw new FixableError('choose one of --quiet and --log-format json: JSON lines are for a program reading them, --quiet prints none');
  return flags.quiet ? 'silent' : format === 'json' ? 'json' : 'auto';
}

/** One moment of a task, as text for people and as fields for machines. */
interface Reading {
  text(bar: boolean): string;
  fields(): Record<string, unknown>;
}

/** Starts a task's display; `update` takes the task's reading, built only when it will be shown. */
type Task = { update(read: (seconds: number) => Reading): void; done(): void };

/** The shared engine: chooses the mode, throttles, draws or prints, and clears the bar at the end. */
function engine(options: ProgressOptions): ((label: string) => Task) | null {
  const stream = options.stream ?? process.stderr;
  const mode = options.mode === undefined || options.mode === 'auto' ? (stream.isTTY ? 'bar' : 'lines') : options.mode;
  if (mode === 'silent') return null;
  const now = options.now ?? Date.now;
  const interval = options.intervalMs ?? (mode === 'bar' ? 250 : 5000);
  const quiet = options.quietMs ?? 1000;
  return (label) => {
    const started = now();
    let last = started;
    let shown = false;
    let latest: ((seconds: number) => Reading) | null = null;
    const write = (reading: Reading, event: string) => {
      if (mode === 'json') stream.write(`${JSON.stringify({ event, task: label, ...reading.fields() })}\n`);
      else stream.write(mode === 'bar' ? `\r${reading.text(true)}\x1b[K` : `${reading.text(false)}\n`);
    };
    return {
      update(read) {
        latest = read;
        const time = now();
        if (time - last < interval || time - started < quiet) return;
        last = time;
        shown = true;
        write(read((time - started) / 1000), 'progress');
      },
      done() {
        // JSON readers get the final totals of every task that showed progress; the bar's line is cleared,
        // since the caller prints its own summary of the task.
        if (shown && mode === 'json' && latest) write(latest((now() - started) / 1000), 'progress_done');
        if (shown && mode === 'bar') stream.write('\r\x1b[K');
      },
    };
  };
}

const SILENT = { update() {}, done() {} };

// ---- Reads: rows and bytes of a file, and the share of it read (the build's ingest). ----

/** Receives the running totals of one read; `done` ends its line. */
export interface Progress {
  /** `fraction` is the share of the work done (0..1) when it is known. */
  update(rows: number, bytes: number, fraction?: number): void;
  done(): void;
}

/** Starts the progress of one task (a file being read). */
export type ProgressFactory = (label: string) => Progress;

/** A read's progress in numbers. */
export interface ProgressSnapshot {
  label: string;
  rows: number;
  bytes: number;
  seconds: number;
  bytesPerSecond: number;
  fraction: number | null;
  etaSeconds: number | null;
}

export const silentProgress: ProgressFactory = () => SILENT;

/** A factory of read progress reporters writing to `options.stream` in the chosen mode. */
export function progressReporter(options: ProgressOptions = {}): ProgressFactory {
  const start = engine(options);
  if (!start) return silentProgress;
  return (label) => {
    const task = start(label);
    return {
      update: (rows, bytes, fraction) => task.update((seconds) => reading(snapshot(label, rows, bytes, seconds, fraction), formatProgress)),
      done: () => task.done(),
    };
  };
}

export function snapshot(label: string, rows: number, bytes: number, seconds: number, fraction: number | undefined): ProgressSnapshot {
  const known = fraction !== undefined && fraction > 0 && fraction <= 1;
  return {
    label,
    rows,
    bytes,
    seconds,
    bytesPerSecond: seconds > 0 ? bytes / seconds : 0,
    fraction: known ? fraction : null,
    etaSeconds: known ? (seconds * (1 - fraction)) / fraction : null,
  };
}

/** `nppes  1,234,567 rows  2.1 GB at 180 MB/s  [#####     ] 45%  ETA 0:23` (a bar) or the same as a log line. */
export function formatProgress(s: ProgressSnapshot, bar: boolean): string {
  const rows = `${s.rows.toLocaleString('en-US')} rows`;
  const read = `${megabytes(s.bytes)} at ${(s.bytesPerSecond / 1e6).toFixed(0)} MB/s`;
  return progressLine(
    { label: s.label, amounts: [rows, read], fraction: s.fraction, percentOf: ' of the file', etaSeconds: s.etaSeconds },
    bar,
  );
}

// ---- Downloads: bytes of a file of known or unknown size (hcas fetch). ----

/** Receives the running total of one transfer; `done` clears its line. */
export interface ByteProgress {
  /** `bytes`: the file's bytes on disk so far (a resumed download starts above 0); `total`: its size when known. */
  update(bytes: number, total: number | null): void;
  done(): void;
}

export type ByteProgressFactory = (label: string) => ByteProgress;

export const silentByteProgress: ByteProgressFactory = () => SILENT;

/** A factory of download progress reporters writing to `options.stream` in the chosen mode. */
export function byteProgress(options: ProgressOptions = {}): ByteProgressFactory {
  const start = engine({ quietMs: 0, ...options });
  if (!start) return silentByteProgress;
  return (label) => {
    const task = start(label);
    let first: number | null = null;
    return {
      update(bytes, total) {
        // The rate counts only this session's bytes: a resumed download must not look instantly fast.
        first ??= bytes;
        const sessionBytes = bytes - first;
        task.update((seconds) => reading({ label, bytes, total, seconds, sessionBytes }, formatByteProgress));
      },
      done: () => task.done(),
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
  return amountLine(s.label, s.bytes, s.total, rate, (n) => formatBytes(n), bar);
}

// ---- Counted work: records of a known or unknown total (hcas sample, hcas export). ----

/** Receives the count of things done so far and, when known, how many there will be. */
export interface CountProgress {
  update(count: number, total: number | null): void;
  done(): void;
}

export type CountProgressFactory = (label: string) => CountProgress;

export const silentCountProgress: CountProgressFactory = () => SILENT;

/** A factory of reporters of counted work (`unit`: what is counted, e.g. `records`). */
export function countProgress(unit: string, options: ProgressOptions = {}): CountProgressFactory {
  const start = engine(options);
  if (!start) return silentCountProgress;
  return (label) => {
    const task = start(label);
    return {
      update: (count, total) => task.update((seconds) => reading({ label, unit, count, total, seconds }, formatCountProgress)),
      done: () => task.done(),
    };
  };
}

export interface CountSnapshot {
  label: string;
  unit: string;
  count: number;
  total: number | null;
  seconds: number;
}

/** `providers  12,000 of 36,646 records  [#######             ] 32%  4,000/s  ETA 0:06`, or the same as a log line. */
export function formatCountProgress(s: CountSnapshot, bar: boolean): string {
  const rate = s.seconds > 0 ? s.count / s.seconds : 0;
  const thousands = (n: number) => Math.round(n).toLocaleString('en-US');
  return amountLine(s.label, s.count, s.total, rate, thousands, bar, ` ${s.unit}`);
}

// ---- Shared pieces ----

/** A snapshot as a reading: its line through `format`, its fields (snake_case) for JSON. */
function reading<S extends object>(s: S, format: (s: S, bar: boolean) => string): Reading {
  return {
    text: (bar) => format(s, bar),
    fields: () =>
      Object.fromEntries(
        Object.entries(s)
          .filter(([key]) => key !== 'label')
          .map(([key, value]) => [key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), value]),
      ),
  };
}

/** What one progress line says: the task, its amounts so far, the share done, the rate, the time left. */
interface Line {
  label: string;
  amounts: string[];
  /** The share done (0..1), null when unknown. */
  fraction: number | null;
  /** Said after the percentage in a log line (` of the file`). */
  percentOf?: string;
  rate?: string;
  etaSeconds: number | null;
}

/** The one renderer of every progress line: parts two spaces apart with a bar, or a comma-separated log line. */
function progressLine({ label, amounts, fraction, percentOf = '', rate, etaSeconds }: Line, bar: boolean): string {
  const parts = [label, ...amounts];
  if (fraction !== null) {
    const percent = `${Math.floor(fraction * 100)}%`;
    parts.push(bar ? `${drawBar(fraction)} ${percent}` : `${percent}${percentOf}`);
  }
  if (rate !== undefined) parts.push(rate);
  if (etaSeconds !== null) parts.push(`ETA ${clock(etaSeconds)}`);
  return bar ? `  ${parts.join('  ')}` : `  ${parts.join(', ')}`;
}

/** An amount done of a total (when known) at a rate per second, each amount written by `show`. */
function amountLine(label: string, done: number, total: number | null, rate: number, show: (n: number) => string, bar: boolean, unit = '') {
  const known = total !== null && total > 0;
  return progressLine(
    {
      label,
      amounts: [total === null ? `${show(done)}${unit}` : `${show(done)} of ${show(total)}${unit}`],
      fraction: known ? Math.min(1, done / total) : null,
      rate: `${show(rate)}/s`,
      etaSeconds: total !== null && rate > 0 ? Math.max(0, total - done) / rate : null,
    },
    bar,
  );
}

function drawBar(fraction: number): string {
  return `[${'#'.repeat(Math.round(fraction * 20)).padEnd(20)}]`;
}

function megabytes(bytes: number): string {
  return bytes >= 1e9 ? `${(bytes / 1e9).toFixed(1)} GB` : `${(bytes / 1e6).toFixed(0)} MB`;
}

/** 950 B, 12 kB, 340 MB, 1.2 GB (decimal units, as publishers state file sizes). */
export function formatBytes(bytes: number): string {
  if (bytes >= 1e9) return `${(bytes / 1e9).toFixed(1)} GB`;
  if (bytes >= 1e6) return `${(bytes / 1e6).toFixed(0)} MB`;
  if (bytes >= 1e3) return `${(bytes / 1e3).toFixed(0)} kB`;
  return `${Math.round(bytes)} B`;
}

/** 0:07, 12:30, 1:02:03. */
function clock(seconds: number): string {
  const total = Math.max(0, Math.round(seconds));
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const rest = String(total % 60).padStart(2, '0');
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, '0')}:${rest}` : `${minutes}:${rest}`;
}
