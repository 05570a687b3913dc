import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { BuildError } from '../../pipeline/base/errors.ts';

/**
 * `fetched.json` beside the downloads: per source, what was downloaded from where, when, its size and
 * SHA-256, and the file the manifest points at. It is how a re-run knows a file is complete, and the record
 * of where every input came from. Paths are relative to the output folder.
 */
export interface FetchRecord {
  /** The address asked for (secrets replaced by their `${VAR}` names). */
  url: string;
  vintage: string;
  download: {
    path: string;
    final_url: string;
    bytes: number;
    sha256: string;
    published_sha256: string | null;
    etag: string | null;
    last_modified: string | null;
    retrieved_at: string;
  } | null;
  /** The file the manifest names (the download itself, or what was unpacked from it); null until checked. */
  file: { path: string; bytes: number; sha256: string; member: string | null } | null;
}

export interface FetchLog {
  file: string;
  records: Record<string, FetchRecord>;
}

export function readFetchLog(outDir: string): FetchLog {
  const file = path.join(outDir, 'fetched.json');
  if (!existsSync(file)) return { file, records: {} };
  try {
    const raw = JSON.parse(readFileSync(file, 'utf8'));
    return { file, records: typeof raw?.sources === 'object' && raw.sources !== null ? raw.sources : {} };
  } catch (error) {
    throw new BuildError(`${file} is not readable JSON (${(error as Error).message}). Delete it: hcas fetch then checks every file again.`);
  }
}

/** Writes the log through a temporary file, so an interrupted run never leaves it half written. */
export function writeFetchLog(log: FetchLog): void {
  const body = {
    about:
      'Written by hcas fetch: what each source was downloaded from, when, and the SHA-256 of each file. Paths are relative to this folder.',
    sources: log.records,
  };
  writeFileSync(`${log.file}.tmp`, `${JSON.stringify(body, null, 2)}\n`);
  renameSync(`${log.file}.tmp`, log.file);
}
