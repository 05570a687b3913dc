import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { openReadOnly } from './database.ts';
import { readBuildMeta } from './meta.ts';

/** A file that is not a build the server may serve; the message says what is wrong with it. */
export class BadBuildError extends Error {
  override name = 'BadBuildError';
}

const MAGIC = 'SQLite format 3\0';

/**
 * Checks the 100-byte SQLite header against the file's size: a file cut short (`truncate`, a copy still
 * being written, a full disk) has fewer bytes than the pages its header counts. Costs one small read.
 */
export function checkHeader(file: string): void {
  const size = statSync(file).size;
  if (size === 0) throw new BadBuildError('the file is empty (0 bytes)');
  const header = Buffer.alloc(100);
  const fd = openSync(file, 'r');
  let read: number;
  try {
    read = readSync(fd, header, 0, 100, 0);
  } finally {
    closeSync(fd);
  }
  if (read < 100 || header.toString('latin1', 0, 16) !== MAGIC) throw new BadBuildError('the file is not an SQLite database');
  const pageSize = header.readUInt16BE(16) === 1 ? 65_536 : header.readUInt16BE(16);
  const pages = header.readUInt32BE(28);
  // The page count is valid when the change counter matches the version-valid-for number (SQLite 3.7.0+).
  if (pages > 0 && header.readUInt32BE(24) === header.readUInt32BE(92) && size < pages * pageSize) {
    throw new BadBuildError(
      `the file is cut short: ${size.toLocaleString('en-US')} bytes of the ${(pages * pageSize).toLocaleString('en-US')} its header counts`,
    );
  }
}

/**
 * Checks that `file` is a whole, sound build: the header against the size, SQLite's `quick_check` (every
 * page of every table and index read and its structure checked: about 0.5 s for the default build, a few
 * seconds for a national one) and the build's own `meta` (its build id). Throws BadBuildError naming the
 * problem. Synchronous: the server runs it off the serving thread (src/server/build-worker.ts).
 */
export function checkBuild(file: string): { buildId: string; builtAt: string } {
  checkHeader(file);
  let db: ReturnType<typeof openReadOnly>;
  try {
    db = openReadOnly(file);
  } catch (error) {
    throw new BadBuildError(`the file cannot be opened: ${(error as Error).message}`);
  }
  try {
    const problems = db.pragma('quick_check(5)', { simple: false }) as Array<{ quick_check: string }>;
    const found = problems.map((row) => row.quick_check).filter((line) => line !== 'ok');
    if (found.length > 0) throw new BadBuildError(`SQLite's quick_check found damage: ${found.join('; ')}`);
    const meta = readBuildMeta(db);
    return { buildId: meta.build_id, builtAt: meta.built_at };
  } catch (error) {
    if (error instanceof BadBuildError) throw error;
    throw new BadBuildError((error as Error).message);
  } finally {
    db.close();
  }
}
