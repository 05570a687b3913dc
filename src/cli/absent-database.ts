import { readlinkSync, statSync } from 'node:fs';

/**
 * Why there is no file to open at `file`, or undefined when there is one: nothing there (`missing`: not
 * built yet), or a symbolic link that loops or points at nothing, or a path this user may not look into.
 */
export function absentDatabase(file: string): { missing: true } | { missing: false; why: string } | undefined {
  try {
    statSync(file);
    return undefined;
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    if (code === 'ELOOP')
      return { missing: false, why: `${file} is a symbolic link in a loop (its links never reach a file); point it at a database file` };
    let target: string | undefined;
    try {
      target = readlinkSync(file);
    } catch {
      // not a link
    }
    if (target !== undefined)
      return { missing: false, why: `${file} is a symbolic link to ${target}, which does not exist; point it at a database file` };
    if (code === 'ENOENT' || code === 'ENOTDIR') return { missing: true };
    return { missing: false, why: `cannot read ${file}: ${message}` };
  }
}
