import { createWriteStream, type WriteStream } from 'node:fs';
import { rejectCode, type RejectKind } from '../base/errors.ts';

/** The rejects of one file with one code: their kind, how many, and the first one's reason as an example. */
export interface RejectGroup {
  kind: RejectKind;
  count: number;
  example: string;
}

/** Per-file count of what was read, what landed and what was rejected (and why, by reject code). */
export interface SourceTally {
  key: string;
  file: string;
  read: number;
  landed: number;
  rejected: number;
  invalid: number;
  reasons: Record<string, RejectGroup>;
}

/**
 * Keeps the books of the build: every data row read is either landed or rejected, and each rejection
 * is written to the rejects CSV with its file, line and reason.
 */
export class Reconciler {
  readonly tallies = new Map<string, SourceTally>();
  private readonly out: WriteStream | null;

  constructor(rejectsFile: string | null) {
    this.out = rejectsFile ? createWriteStream(rejectsFile) : null;
    this.out?.write('source,file,line,kind,code,reason\n');
  }

  tally(key: string, file: string): SourceTally {
    let tally = this.tallies.get(key);
    if (!tally) {
      tally = { key, file, read: 0, landed: 0, rejected: 0, invalid: 0, reasons: {} };
      this.tallies.set(key, tally);
    }
    return tally;
  }

  /** Writes a rejected row with its code (the reason's own, `rejectCode(reason)` by default) and counts it. */
  reject(tally: SourceTally, line: number, reason: string, kind: RejectKind, code: string = rejectCode(reason)): void {
    tally.rejected++;
    if (kind === 'invalid') tally.invalid++;
    const group = tally.reasons[code];
    if (group) group.count++;
    else tally.reasons[code] = { kind, count: 1, example: reason };
    this.out?.write(`${csvField(tally.key)},${csvField(tally.file)},${line},${kind},${code},${csvField(reason)}\n`);
  }

  /** A row that landed but a later stage left out (a superseded NPI, a closed hospital): moved to the rejects. */
  withdraw(key: string, line: number, reason: string, kind: RejectKind, code?: string): void {
    const tally = this.tallies.get(key);
    if (!tally) throw new Error(`no rows were read from source ${key}`);
    tally.landed--;
    this.reject(tally, line, reason, kind, code);
  }

  /** Resolves once every reject line is on disk. */
  close(): Promise<void> {
    return new Promise((resolve, reject) => {
      if (!this.out) return resolve();
      this.out.end((error?: Error | null) => (error ? reject(error) : resolve()));
    });
  }

  /** Human-readable reconciliation table, one line per file. */
  report(): string[] {
    const lines = ['source                      read     landed   rejected (invalid)'];
    for (const t of this.tallies.values()) {
      lines.push(
        `${t.key.padEnd(24)} ${String(t.read).padStart(9)} ${String(t.landed).padStart(10)} ${String(t.rejected).padStart(10)} (${t.invalid})`,
      );
    }
    return lines;
  }
}

/** Quotes a CSV field when it needs it (RFC 4180). */
export function csvField(value: string): string {
  return /[",\n\r]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/**
 * Says how many rows of each source a stage left out after they landed: the ingest table counted them as
 * landed, the reconciliation at the end counts them rejected, and this line is the difference.
 */
export function logLeftOut(log: (line: string) => void, what: string, keys: readonly string[]): void {
  if (keys.length === 0) return;
  const counts = new Map<string, number>();
  for (const key of keys) counts.set(key, (counts.get(key) ?? 0) + 1);
  log(`  ${what}, so rejected in the reconciliation: ${[...counts].map(([key, n]) => `${key} ${n}`).join(', ')}`);
}
