import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '..');

/**
 * The folders of docs/ARCHITECTURE.md and the folders each may import (besides itself, Node and npm
 * packages). A longer prefix wins: `src/api/x.ts` is in `src/api`, not `src`.
 */
const MAY_IMPORT: Record<string, readonly string[]> = {
  core: [],
  pipeline: ['core'],
  producers: ['pipeline', 'core'],
  'src/query': ['core'],
  'src/diff': ['src/query', 'core'],
  'src/http': [],
  'src/api': ['src/http', 'src/query', 'core'],
  'src/auth': ['src/http', 'core'],
  'src/server': ['src/http', 'src/api', 'src/auth', 'core'],
  'src/cli': ['src/server', 'src/api', 'src/auth', 'src/http', 'src/diff', 'src/query', 'core'],
};

function folderOf(file: string): string | undefined {
  return Object.keys(MAY_IMPORT)
    .filter((folder) => file === folder || file.startsWith(`${folder}/`))
    .sort((a, b) => b.length - a.length)[0];
}

/** Every relative import (static, dynamic, re-export) of every TypeScript file under the folders above. */
function imports(): Array<{ from: string; to: string }> {
  const found: Array<{ from: string; to: string }> = [];
  for (const top of ['core', 'pipeline', 'producers', 'src']) {
    for (const name of readdirSync(path.join(root, top), { recursive: true, encoding: 'utf8' })) {
      if (!name.endsWith('.ts')) continue;
      const from = `${top}/${name}`;
      const text = readFileSync(path.join(root, from), 'utf8');
      for (const match of text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)) {
        found.push({ from, to: path.posix.normalize(path.posix.join(path.posix.dirname(from), match[1])) });
      }
    }
  }
  return found;
}

describe('architecture (docs/ARCHITECTURE.md)', () => {
  const all = imports();

  it('reads the imports', () => expect(all.length).toBeGreaterThan(300));

  it('every import goes the way the folder table allows: no cycle between folders, src and pipeline apart', () => {
    const wrong = all
      .filter(({ from, to }) => {
        const [a, b] = [folderOf(from), folderOf(to)];
        return a === undefined || b === undefined || (a !== b && !MAY_IMPORT[a].includes(b));
      })
      .map(({ from, to }) => `${from} -> ${to}`);
    expect(wrong, 'move the shared code to core/ or the lower folder, or change the table in docs/ARCHITECTURE.md first').toEqual([]);
  });
});

describe('lint', () => {
  it('biome ci reports nothing: no warning, no deprecated configuration (npm test prints what a user can act on)', () => {
    const biome = spawnSync(process.execPath, [path.join(root, 'node_modules/@biomejs/biome/bin/biome'), 'ci', '--colors=off', '.'], {
      cwd: root,
      encoding: 'utf8',
    });
    const output = biome.stdout + biome.stderr;
    expect(biome.status, output).toBe(0);
    expect(output).not.toMatch(/DEPRECATED|warning|noExplicitAny/);
  });
});
