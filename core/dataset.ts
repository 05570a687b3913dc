import path from 'node:path';
import { PACKAGE_ROOT } from './package.ts';

/**
 * The output file as the docs name it: `dist-api/hcas.sqlite` in the hcas folder (the package root, not the
 * working directory). docs/schema.md describes its tables.
 */
export const DEFAULT_DATABASE = 'dist-api/hcas.sqlite';

/**
 * The output file itself: what `hcas build` writes and every reader opens unless told otherwise. Named from
 * the package root, so `hcas score 10001` answers the same from any folder.
 */
export const DEFAULT_DATABASE_FILE = path.join(PACKAGE_ROOT, DEFAULT_DATABASE);

/** The environment variable that names the database for every command (`--db` wins over it). */
export const DATABASE_ENV = 'HCAS_DB';

/**
 * The database a command opens: `--db` (relative to the working directory, as any path typed at a prompt),
 * else `$HCAS_DB`, else the default beside the package.
 */
export function databaseFile(flag: string | undefined, env: NodeJS.ProcessEnv): string {
  if (flag !== undefined) return flag;
  const fromEnv = env[DATABASE_ENV];
  return fromEnv !== undefined && fromEnv !== '' ? fromEnv : DEFAULT_DATABASE_FILE;
}
