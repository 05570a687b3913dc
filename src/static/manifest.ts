import { closeSync, createReadStream, existsSync, openSync, readFileSync, readSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { WrittenFile } from './files.ts';

/** The manifest's name in the export folder (served with it: a sync tool may fetch the remote one to compare). */
export const MANIFEST_FILE = 'hcas-manifest.json';
export const MANIFEST_FORMAT = 'hcas-static-export/1';

/** What the manifest says about the export as a whole (its first line); `files` follows, one file a line. */
export interface ManifestHeader {
  format: typeof MANIFEST_FORMAT;
  build_id: string;
  built_at: string;
  hcas_version: string;
  exported_at: string;
  index_name: string;
  providers: boolean;
  /** The plan whose answers callers without a key get, which is what was written; null with `paid_answers`. */
  plan: string | null;
  /** True when the paid plans' answers were written too (`--publish-paid-answers`): anyone can read them. */
  paid_answers: boolean;
  /** When an answer of the export changes by itself (the next scheduled blog post): export again then. */
  valid_until: string | null;
  previous_build_id: string | null;
  totals: Record<string, number>;
  routes: Array<{ path: string; answers: number; not_found: number; headers: Record<string, string> }>;
  /** The routes left to the server, and why: they need parameters or differ by caller, or are paid. */
  server_only: Array<{ path: string; reason: string }>;
}

/**
 * Writes the manifest: valid JSON, laid out one line for the header and one line per file, so it can be read
 * with jq, compared with diff or grep, and streamed. File lines go to a part file while the export runs (four
 * million provider profiles make too many lines to hold), and the header is written before them at the end.
 */
export class ManifestWriter {
  private readonly folder: string;
  private readonly partFile: string;
  private readonly fd: number;
  private pending = '';
  private count = 0;
  private open = true;

  constructor(folder: string) {
    this.folder = folder;
    this.partFile = path.join(folder, `${MANIFEST_FILE}.part`);
    this.fd = openSync(this.partFile, 'w');
  }

  /** Adds the lines of some files, in the export's order. */
  add(files: readonly WrittenFile[]): void {
    for (const file of files) {
      this.pending += `${this.count === 0 ? '' : ',\n'}${JSON.stringify(file)}`;
      this.count++;
    }
    if (this.pending.length > 1 << 16) this.flush();
  }

  /** Writes `hcas-manifest.json`: the header line, then every file line. */
  finish(header: ManifestHeader): void {
    this.flush();
    this.open = false;
    closeSync(this.fd);
    const out = openSync(path.join(this.folder, MANIFEST_FILE), 'w');
    try {
      const first = JSON.stringify(header);
      writeSync(out, `${first.slice(0, -1)},\n"files":[\n`);
      const part = openSync(this.partFile, 'r');
      try {
        const chunk = Buffer.allocUnsafe(1 << 20);
        for (let read = readSync(part, chunk); read > 0; read = readSync(part, chunk)) writeSync(out, chunk, 0, read);
      } finally {
        closeSync(part);
      }
      writeSync(out, '\n]}\n');
    } finally {
      closeSync(out);
    }
    rmSync(this.partFile);
  }

  /** Drops the part file (the export failed); nothing once `finish` has begun. */
  abandon(): void {
    if (!this.open) return;
    this.open = false;
    closeSync(this.fd);
    rmSync(this.partFile, { force: true });
  }

  private flush(): void {
    if (this.pending === '') return;
    writeSync(this.fd, this.pending);
    this.pending = '';
  }
}

/** The header of the export in `folder`, or undefined when the folder holds no manifest (or an unreadable one). */
export function readManifestHeader(folder: string): ManifestHeader | undefined {
  const file = path.join(folder, MANIFEST_FILE);
  if (!existsSync(file)) return undefined;
  const fd = openSync(file, 'r');
  try {
    const head = Buffer.alloc(1 << 20);
    const text = head.subarray(0, readSync(fd, head)).toString('utf8');
    const line = text.slice(0, text.indexOf('\n'));
    const header = JSON.parse(`${line.slice(0, -1)}}`) as ManifestHeader;
    return header.format === MANIFEST_FORMAT ? header : undefined;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** The paths of the files the manifest in `folder` lists, read a line at a time. */
export async function* manifestPaths(folder: string): AsyncGenerator<string> {
  const lines = createInterface({ input: createReadStream(path.join(folder, MANIFEST_FILE)), crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line.startsWith('{"path":')) continue;
    yield (JSON.parse(line.endsWith(',') ? line.slice(0, -1) : line) as WrittenFile).path;
  }
}

/** The whole manifest, parsed (tests and small exports; a national export with providers is gigabytes). */
export function readManifest(folder: string): ManifestHeader & { files: WrittenFile[] } {
  return JSON.parse(readFileSync(path.join(folder, MANIFEST_FILE), 'utf8'));
}
