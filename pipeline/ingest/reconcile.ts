import { createWriteStream, type WriteStream } from 'node:fs';
import type { RejectKind } from '../errors.ts';

/** Per-file count of what was read, what landed and what was rejected (and why). */
export interface SourceTally {
  key: string;
  file: string;
  read: number;
  landed: number;
  rejected: number;
  invalid: number;
  reasons: Record<string, number>;
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
    this.out?.write('source,file,line,kind,reason\n');
  }

  tally(key: string, file: string): SourceTally {
    let tally = this.tallies.get(key);
    if (!tally) {
      tally = { key, file, read: 0, landed: 0, rejected: 0, invalid: 0, reasons: {} };
      this.tallies.set(key, tally);
    }
    return tally;
  }

  reject(tally: SourceTally, line: number, reason: string, kind: RejectKind): void {
    tally.rejected++;
    if (kind === 'invalid') tally.invalid++;
    // Reasons are grouped by their text up to the first quoted value so the summary stays short.
    const group = `${kind}: ${reason.replace(/:? ?["0-9].*$/, '')}`;
    tally.reasons[group] = (tally.reasons[group] ?? 0) + 1;
    this.out?.write(`${csvField(tally.key)},${csvField(tally.file)},${line},${kind},${csvField(reason)}\n`);
  }

  /** A row that landed but a later stage left out (a superseded NPI, a closed hospital): moved to the rejects. */
  withdraw(key: string, line: number, reason: string, kind: RejectKind): void {
    const tally = this.tallies.get(key);
    if (!tally) throw new Error(`no rows were read from source ${key}`);
    tally.landed--;
    this.reject(tally, line, reason, kind);
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
