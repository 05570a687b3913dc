import { readFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { createSchema } from '../pipeline/store/schema.ts';
import { cachedBuild } from './helpers/real-build.ts';
import { PUBLIC_MANIFEST } from './helpers/variant-build.ts';

const DOC = readFileSync(path.resolve(import.meta.dirname, '../docs/schema.md'), 'utf8');

/** The tables and columns the build creates, from its own SQL. */
function schemaColumns(): Map<string, string[]> {
  const db = new Database(':memory:');
  createSchema(db);
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all() as string[];
  const columns = new Map(
    tables.map((table) => [table, db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all(table) as string[]]),
  );
  db.close();
  return columns;
}

/** The page's sections: each `## ` heading with the text under it. */
const SECTIONS = DOC.split(/^(?=## )/m).slice(1);

/** The section that describes a table: its heading names it, or a row of a table of tables does (`provider_*`). */
function sectionOf(table: string): string | undefined {
  return (
    SECTIONS.find((section) => section.split('\n')[0].includes(`\`${table}\``)) ??
    SECTIONS.find((section) => section.includes(`| \`${table} (`))
  );
}

/** The column lists the page writes after a table's name: ## `states` (state_code PK, state_name, ...), or `provider_arrays (name, ...)`. */
function listedColumns(section: string, table: string): string[] | undefined {
  const list = (new RegExp(`^## \`${table}\` \\(([^)]*)\\)`).exec(section) ?? new RegExp(`\`${table} \\(([^)]*)\\)\``).exec(section))?.[1];
  return list?.split(',').map((entry) => entry.trim().split(/\s+/)[0]);
}

/** The names in the first cell of the rows of a `| column | ...` table. */
function columnRows(section: string): string[] {
  const lines = section.split('\n');
  const start = lines.findIndex((line) => /^\| column \|/.test(line));
  if (start < 0) return [];
  const names: string[] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    names.push(
      ...line
        .split('|')[1]
        .replaceAll('`', '')
        .split(',')
        .map((name) => name.trim())
        .filter(Boolean),
    );
  }
  return names;
}

describe('docs/schema.md describes the SQL the build writes (pipeline/store/schema.ts)', () => {
  const columns = schemaColumns();

  it('has a section for every table, naming each of its columns', () => {
    expect(columns.size).toBeGreaterThan(15);
    for (const [table, names] of columns) {
      const section = sectionOf(table);
      expect(section, `docs/schema.md has no section on ${table}`).toBeDefined();
      const missing = names.filter((name) => !new RegExp(`\\b${name}\\b`).test(section!));
      expect(missing, `columns of ${table} docs/schema.md does not name`).toEqual([]);
    }
  });

  it('names no column a table does not have, in its column tables and column lists', () => {
    for (const [table, names] of columns) {
      const section = sectionOf(table)!;
      const listed = listedColumns(section, table);
      if (listed) expect(listed, `the column list of ${table}`).toEqual(names);
      const unknown = columnRows(section).filter((name) => !names.includes(name));
      expect(unknown, `columns docs/schema.md gives ${table} that it does not have`).toEqual([]);
    }
  });

  describe('the meta keys', () => {
    let keys: string[];
    beforeAll(async () => {
      const db = new Database((await cachedBuild(PUBLIC_MANIFEST)).out, { readonly: true });
      keys = db.prepare('SELECT key FROM meta ORDER BY key').pluck().all() as string[];
      db.close();
    }, 600_000);

    it('are the keys a build writes, each a row of the meta table', () => {
      const meta = SECTIONS.find((section) => section.startsWith('## `meta`'))!;
      const documented = [...meta.matchAll(/^\| `([a-z_]+)` \|/gm)].map((match) => match[1]).sort();
      expect(documented).toEqual(keys);
    });
  });
});
