import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import { databaseFile } from '../../core/dataset.ts';
import { packageVersion } from '../../core/package.ts';

/**
 * `hcas --version`: the package version on the first line (what scripts read), then the database the
 * commands read by default (`$HCAS_DB`, else the one beside the package) and its build id, or how to make it.
 */
export function versionText(env: NodeJS.ProcessEnv): string {
  const file = databaseFile(undefined, env);
  return `hcas ${packageVersion()}\ndatabase ${file}: ${describeBuild(file)}\n`;
}

function describeBuild(file: string): string {
  if (!existsSync(file)) return 'not built yet (run `hcas sample && hcas build`, or npm start)';
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
    return `not an hcas database (${(error as Error).message}); rebuild it with \`hcas build\``;
  }
}
