import { createHash } from 'node:crypto';
import { copyFileSync, linkSync, mkdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { COMPRESS_MIN_BYTES, compressSync, type Coding } from '../http/compress.ts';

/** The precompressed siblings of an answer, by file suffix, as nginx's gzip_static and brotli_static look for them. */
export const CODINGS: ReadonlyArray<{ coding: Coding; suffix: string }> = [
  { coding: 'gzip', suffix: '.gz' },
  { coding: 'br', suffix: '.br' },
];

/** One file written into the export: its path relative to the folder, size and SHA-256 (the manifest's line). */
export interface WrittenFile {
  path: string;
  bytes: number;
  sha256: string;
}

/** What became of one answer: its files, and whether the previous export had the same bytes (kept as they were). */
export interface WrittenAnswer {
  files: WrittenFile[];
  state: 'added' | 'changed' | 'unchanged';
}

/**
 * Writes answers into a new export folder. An answer whose bytes the previous export (`previous`) already
 * holds at the same path is hard-linked from it with its compressed siblings: no compression, and the file
 * keeps its modification time, so rsync, `aws s3 sync` and HTTP caches (Last-Modified, nginx's ETag) see it
 * unchanged. Bodies under COMPRESS_MIN_BYTES get no siblings: the server does not compress them either.
 */
export class AnswerWriter {
  private readonly folder: string;
  private readonly previous: string | undefined;
  private lastDir = '';

  /** `folder`: the new export; `previous`: the folder of the export it replaces, if any. */
  constructor(folder: string, previous: string | undefined) {
    this.folder = folder;
    this.previous = previous;
  }

  /** Writes the answer `body` at `relative`, and its `.gz` and `.br`. */
  write(relative: string, body: Buffer): WrittenAnswer {
    const target = path.join(this.folder, relative);
    this.ensureDir(path.dirname(target));
    const compressible = body.length >= COMPRESS_MIN_BYTES;
    const old = this.previous === undefined ? undefined : path.join(this.previous, relative);
    const state = old === undefined ? 'added' : sameBytes(old, body);
    const files: WrittenFile[] = [];
    if (state === 'unchanged') {
      linkOrCopy(old!, target);
    } else {
      writeFileSync(target, body);
    }
    files.push(describeFile(relative, body));
    if (!compressible) return { files, state };
    for (const { coding, suffix } of CODINGS) {
      const from = old === undefined ? undefined : `${old}${suffix}`;
      if (state === 'unchanged' && from !== undefined && exists(from)) {
        linkOrCopy(from, `${target}${suffix}`);
        files.push(describeFile(`${relative}${suffix}`, readFileSync(from)));
        continue;
      }
      // On this thread: for bodies of a few kilobytes, zlib's thread pool costs more than it saves.
      const packed = compressSync(body, coding);
      writeFileSync(`${target}${suffix}`, packed);
      files.push(describeFile(`${relative}${suffix}`, packed));
    }
    return { files, state };
  }

  private ensureDir(dir: string): void {
    // Answers come in path order, so the folder of the last one is usually this one's.
    if (dir === this.lastDir) return;
    mkdirSync(dir, { recursive: true });
    this.lastDir = dir;
  }
}

/** The manifest's line of a file: its path in the export, size and SHA-256. */
export function describeFile(relative: string, bytes: Buffer): WrittenFile {
  return { path: relative, bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
}

/** `unchanged` when the file holds exactly `body`, `changed` when it holds something else, `added` when absent. */
function sameBytes(file: string, body: Buffer): 'added' | 'changed' | 'unchanged' {
  let size: number;
  try {
    size = statSync(file).size;
  } catch {
    return 'added';
  }
  return size === body.length && readFileSync(file).equals(body) ? 'unchanged' : 'changed';
}

function exists(file: string): boolean {
  try {
    statSync(file);
    return true;
  } catch {
    return false;
  }
}

/** A hard link (same inode: same bytes and modification time); a copy with the time kept where links fail. */
function linkOrCopy(from: string, to: string): void {
  try {
    linkSync(from, to);
  } catch {
    copyFileSync(from, to);
    const { atime, mtime } = statSync(from);
    utimesSync(to, atime, mtime);
  }
}
