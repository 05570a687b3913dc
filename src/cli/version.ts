import Database from 'better-sqlite3';
import { databaseFile } from '../../core/dataset.ts';
import { packageVersion } from '../../core/package.ts';
import { absentDatabase } from './absent-database.ts';
import { withRebuildAdvice } from './errors.ts';

/**
 * `hcas --version`: the package version on the first line (what scripts read), then the database the
 * commands read by default (`$HCAS_DB`, else the one beside the package) and its build id, or how to make it.
 */
export function versionText(env: NodeJS.ProcessEnv): string {
  const file = databaseFile(undefined, env);
  return `hcas ${packageVersion()}\ndatabase ${file}: ${describeBuild(file)}\n`;
}

function describeBuild(file: string): string {
  const absent = absentDatabase(file);
  if (absent) return absent.missing ? 'not built yet (run `hcas sample && hcas build`, or npm start)' : absent.why;
  try {
    // Only the meta table is read, so this stays quick whatever the size of the file.
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      const value = (key: string) => {
        const row = db.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined;
        return row === undefined ? undefined : (JSON.parse(row.value) as string);
      };
      return `build ${value('build_id') ?? 'unknown'} of ${value('built_at') ?? 'an unknown date'}`;
    } finally {
      db.close();
    }
  } catch (error) {
    return withRebuildAdvice(`not an hcas database: ${(error as Error).message}`);
  }
}
