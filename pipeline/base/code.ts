import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { EXIT, FixableError } from '../../core/errors.ts';
import { PACKAGE_ROOT } from '../../core/package.ts';

/** The folders whose code a build's output depends on: the build id and `meta.code` hash them. */
export const BUILD_CODE = ['core', 'pipeline'] as const;
/** The folders `npm run build` compiles for the commands that write data (build, sample, fetch). */
export const WRITER_CODE = ['core', 'pipeline', 'producers'] as const;

/**
 * SHA-256 over the TypeScript sources of `folders` (found from the package root), so a code change gives a
 * new build id (and ETags), and the same code gives the same id whether the TypeScript runs (tests) or the
 * JavaScript compiled from it (bin/hcas.js).
 */
export function codeFingerprint(folders: readonly string[] = BUILD_CODE): string {
  const hash = createHash('sha256');
  for (const folder of folders) {
    const root = path.join(PACKAGE_ROOT, folder);
    for (const file of readdirSync(root, { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts'))
      .sort()) {
      hash.update(`${folder}/${file}`).update(readFileSync(path.join(root, file)));
    }
  }
  return hash.digest('hex');
}

/** Where `npm run build` records the fingerprint of the sources it compiled into dist/ (bin/stamp-dist.js). */
export const COMPILED_FINGERPRINT_FILE = path.join(PACKAGE_ROOT, 'dist', 'code-fingerprint.txt');

/** Records that dist/ holds the current sources, compiled: run by `npm run build` right after tsc. */
export function stampCompiledCode(): void {
  writeFileSync(COMPILED_FINGERPRINT_FILE, `${codeFingerprint(WRITER_CODE)}\n`);
}

/**
 * Refuses (exit 3) to run compiled code older than its sources. The build id hashes the TypeScript sources,
 * so that tests (which run them) and `hcas build` (which runs dist/) agree; a dist/ compiled from other
 * sources would build with the old code under the id of the new. The TypeScript running itself is never stale.
 */
export function refuseStaleCompiledCode(command: string, running: string = import.meta.filename): void {
  if (!running.startsWith(path.join(PACKAGE_ROOT, 'dist') + path.sep)) return;
  const stamped = existsSync(COMPILED_FINGERPRINT_FILE) ? readFileSync(COMPILED_FINGERPRINT_FILE, 'utf8').trim() : undefined;
  if (stamped === codeFingerprint(WRITER_CODE)) return;
  throw new FixableError(
    `the compiled code in dist/ is older than its sources in ${WRITER_CODE.map((folder) => `${folder}/`).join(', ')} (changed since the last \`npm run build\`): ` +
      `run \`npm run build\`, then \`hcas ${command}\` again (it would run the old code under a build id that names the new)`,
    EXIT.data,
  );
}
