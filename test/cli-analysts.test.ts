import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { hcas, ROOT } from './helpers/cli.ts';
import { fixtureDb } from './helpers/fixture-db.ts';
import { hasCommand, serviceMissing } from './helpers/services.ts';

/**
 * The README's page for analysts promises that the built file can be queried directly and that its queries
 * return what the commands beside them print. Each ```sql block there names its command (`-- same as: hcas
 * ...`); this runs the SQL through better-sqlite3 and the sqlite3 binary on a read-only handle, runs the
 * command through the real binary, and compares the rows.
 */
const README = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const QUERIES = [...README.matchAll(/```sql\n([\s\S]*?)```/g)].map(([, block]) => ({
  sql: block.trim(),
  command: /^-- same as: hcas (.+)$/m.exec(block)?.[1],
}));

/** `hcas ARGS` split as a shell would split the documented line (it holds no quotes). */
const words = (line: string) => line.trim().split(/\s+/);

let db: string;
beforeAll(async () => {
  db = await fixtureDb();
});

/** `sqlite3 ARGS < sql`, as a person runs a saved query (a leading `--` comment would read as an option). */
function sqlite3(args: string[], sql: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile('sqlite3', args, { maxBuffer: 16 * 2 ** 20 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
    child.stdin!.end(sql);
  });
}

describe("the README's SQL returns what the commands print", { timeout: 60_000 }, () => {
  it('finds the documented queries, each naming its command', () => {
    expect(QUERIES.length).toBeGreaterThanOrEqual(3);
    for (const query of QUERIES) expect(query.command, query.sql).toBeDefined();
  });

  for (const { sql, command } of QUERIES) {
    it(`through better-sqlite3: ${command}`, async () => {
      const handle = new Database(db, { readonly: true, fileMustExist: true });
      const rows = handle.prepare(sql).all();
      handle.close();
      const printed = await hcas([...words(command!), '--db', db]);
      expect(printed.code, printed.stderr).toBe(0);
      expect(rows.length).toBeGreaterThan(1);
      expect(rows).toEqual(JSON.parse(printed.stdout));
    });
  }
});

if (hasCommand('sqlite3', ['-version'])) {
  describe('the sqlite3 command line', { timeout: 60_000 }, () => {
    it('opens the file read-only: a write is refused and the file is unchanged', async () => {
      const before = readFileSync(db);
      const write = await sqlite3(['-readonly', db], "DELETE FROM meta WHERE key = 'build_id';");
      expect(write.code).not.toBe(0);
      expect(write.stderr).toMatch(/readonly database/);
      expect(readFileSync(db).equals(before)).toBe(true);
    });

    for (const { sql, command } of QUERIES) {
      it(`returns the same rows: ${command}`, async () => {
        const result = await sqlite3(['-readonly', '-json', db], sql);
        expect(result.code, result.stderr).toBe(0);
        const printed = await hcas([...words(command!), '--db', db]);
        expect(JSON.parse(result.stdout)).toEqual(JSON.parse(printed.stdout));
      });
    }
  });
} else {
  serviceMissing('the README queries through the sqlite3 command line', 'install it: apt-get install sqlite3 (.ci/run does)');
}
