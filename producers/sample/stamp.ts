/**
 * What a written sample was made from, so `hcas sample --if-changed` (npm start) can keep it instead of
 * writing the same bytes again: the generator is seeded, so the same options, inputs and code give
 * byte-identical files. The stamp lists each file's SHA-256, so a file edited or removed by hand is noticed.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { packageVersion } from '../../core/package.ts';
import { codeFingerprint, WRITER_CODE } from '../../pipeline/base/code.ts';
import { fileChecksum } from '../../pipeline/base/checksum.ts';

/** Beside the files, hidden: the build's manifests never name it. */
export const STAMP_FILE = '.hcas-sample.json';

interface Stamp {
  key: string;
  files: Record<string, string>;
}

/** The identity of a sample: its options, the checksums of the real files it reads, the package and the code that writes data (core, pipeline, producers). */
export function sampleKey(options: Record<string, unknown>, inputChecksums: ReadonlyArray<string | null>): string {
  return createHash('sha256')
    .update(JSON.stringify({ options, inputs: inputChecksums, version: packageVersion(), code: codeFingerprint(WRITER_CODE) }))
    .digest('hex')
    .slice(0, 16);
}

/** True when `outDir` holds the sample of this key, every file as it was written. */
export async function sampleIsCurrent(outDir: string, key: string): Promise<boolean> {
  const file = path.join(outDir, STAMP_FILE);
  if (!existsSync(file)) return false;
  let stamp: Stamp;
  try {
    stamp = JSON.parse(readFileSync(file, 'utf8')) as Stamp;
  } catch {
    return false;
  }
  if (stamp.key !== key || Object.keys(stamp.files ?? {}).length === 0) return false;
  for (const [name, sha256] of Object.entries(stamp.files)) {
    const full = path.join(outDir, name);
    if (!existsSync(full) || (await fileChecksum(full)).sha256 !== sha256) return false;
  }
  return true;
}

/** Removes the stamp before writing, so an interrupted run never leaves a stamp over half-written files. */
export function clearStamp(outDir: string): void {
  rmSync(path.join(outDir, STAMP_FILE), { force: true });
}

/** Records the key and every file now in `outDir`. */
export async function writeStamp(outDir: string, key: string): Promise<void> {
  const names = readdirSync(outDir, { recursive: true, encoding: 'utf8' })
    .filter((name) => name !== STAMP_FILE && statSync(path.join(outDir, name)).isFile())
    .sort();
  const files: Record<string, string> = {};
  for (const name of names) files[name] = (await fileChecksum(path.join(outDir, name))).sha256;
  writeFileSync(path.join(outDir, STAMP_FILE), `${JSON.stringify({ key, files } satisfies Stamp, null, 2)}\n`);
}
