import { constants, copyFileSync, rmSync, statSync } from 'node:fs';
import { BadBuildError, checkBuild, checkHeader } from '../api/build.ts';

export { BadBuildError, checkHeader };

/** A build file that passed the checks: where it is, and what it is. */
export interface CheckedBuild {
  /** The file to open: the private copy, or the database file itself when there is none. */
  file: string;
  buildId: string;
  builtAt: string;
  /** The database file's identity when it was read (see fileIdentity). */
  identity: string;
}

/** What changes when a file is replaced (a new inode) or rewritten in place (size, time). */
export function fileIdentity(file: string): string {
  const stat = statSync(file);
  return `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeMs}`;
}

/**
 * Copies the database file to `target` (a reflink where the file system has them, else a copy) and checks
 * the copy, which is what will be served: whatever happens to the original later cannot reach it. A file
 * that changed while it was copied is refused (it was being written); the next change event tries again.
 * Without a target the file itself is checked and served.
 */
export function prepareBuild(source: string, target: string | undefined): CheckedBuild {
  let identity: string;
  try {
    identity = fileIdentity(source);
  } catch (error) {
    throw new BadBuildError(`the file cannot be read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  if (target === undefined) return { file: source, identity, ...checkBuild(source) };
  try {
    checkHeader(source);
    copyFileSync(source, target, constants.COPYFILE_FICLONE);
    if (fileIdentity(source) !== identity)
      throw new BadBuildError('the file changed while it was being copied (it is still being written)');
    return { file: target, identity, ...checkBuild(target) };
  } catch (error) {
    rmSync(target, { force: true });
    if (error instanceof BadBuildError) throw error;
    throw new BadBuildError(`the file cannot be copied: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}
