import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '..');

/**
 * The build's stages in data-flow order (docs/ARCHITECTURE.md, "The build"): each may import only the
 * ones before it, never one after, so no import runs back up. `pipeline/accessibility.ts` is a stage of its
 * own (the public catchment method the scores use).
 */
const PIPELINE_ORDER = [
  'pipeline/base',
  'pipeline/config',
  'pipeline/layouts',
  'pipeline/ingest',
  'pipeline/store',
  'pipeline/geo',
  'pipeline/facilities',
  'pipeline/supply',
  'pipeline/accessibility.ts',
  'pipeline/score',
  'pipeline/validate',
  'pipeline/emit',
  'pipeline/run',
  'pipeline/cli',
] as const;

/** What the producers of raw files may use of the build: its reading side, never the stages that score and write. */
const BUILD_FOR_PRODUCERS = ['pipeline/base', 'pipeline/config', 'pipeline/layouts', 'pipeline/ingest', 'pipeline/facilities'];

/**
 * The folders of docs/ARCHITECTURE.md and the folders each may import (besides itself, Node and npm
 * packages). A longer prefix wins: `src/api/x.ts` is in `src/api`, not `src`.
 */
const MAY_IMPORT: Record<string, readonly string[]> = {
  core: [],
  ...Object.fromEntries(PIPELINE_ORDER.map((stage, i) => [stage, ['core', ...PIPELINE_ORDER.slice(0, i)]])),
  'producers/sample': [...BUILD_FOR_PRODUCERS, 'core'],
  'producers/fetch': [...BUILD_FOR_PRODUCERS, 'core'],
  'producers/bundle': [...BUILD_FOR_PRODUCERS, 'core'],
  'producers/cli': ['producers/sample', 'producers/fetch', 'pipeline/base', 'pipeline/config', 'pipeline/layouts', 'core'],
  'src/http': [],
  'src/answers': ['src/http', 'core'],
  'src/query': ['src/answers', 'core'],
  // Which parts of the score each scoring constant moves is written beside the constants; only the diff reads it.
  'pipeline/config/scoring-parts.ts': ['pipeline/config', 'core'],
  'src/diff': ['src/query', 'pipeline/config/scoring-parts.ts', 'core'],
  'src/map': ['src/query', 'core'],
  'src/api': ['src/http', 'src/answers', 'src/query', 'src/map', 'core'],
  'src/auth': ['src/http', 'core'],
  'src/server': ['src/http', 'src/api', 'src/auth', 'core'],
  'src/static': ['src/api', 'src/auth', 'src/http', 'src/query', 'src/map', 'core'],
  'src/cli': ['src/server', 'src/static', 'src/api', 'src/auth', 'src/http', 'src/diff', 'src/map', 'src/query', 'src/answers', 'core'],
};

function folderOf(file: string): string | undefined {
  return Object.keys(MAY_IMPORT)
    .filter((folder) => file === folder || file.startsWith(`${folder}/`))
    .sort((a, b) => b.length - a.length)[0];
}

/** Every relative import (static, dynamic, type-only, re-export) of every TypeScript file under `tops`. */
function imports(tops: readonly string[] = ['core', 'pipeline', 'producers', 'src']): Array<{ from: string; to: string }> {
  const found: Array<{ from: string; to: string }> = [];
  for (const top of tops) {
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

/** The imports the folder table forbids, as `from -> to`. */
function forbidden(all: ReadonlyArray<{ from: string; to: string }>): string[] {
  return all
    .filter(({ from, to }) => {
      const [a, b] = [folderOf(from), folderOf(to)];
      return a === undefined || b === undefined || (a !== b && !MAY_IMPORT[a].includes(b));
    })
    .map(({ from, to }) => `${from} -> ${to}`);
}

/** Each import cycle between files, once, as its files in order (Tarjan's strongly connected components). */
function fileCycles(all: ReadonlyArray<{ from: string; to: string }>): string[][] {
  const next = new Map<string, string[]>();
  for (const { from, to } of all) next.set(from, [...(next.get(from) ?? []), to]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (file: string) => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const to of next.get(file) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(file, Math.min(low.get(file)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(file, Math.min(low.get(file)!, index.get(to)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    for (let member = stack.pop()!; ; member = stack.pop()!) {
      onStack.delete(member);
      component.push(member);
      if (member === file) break;
    }
    if (component.length > 1 || next.get(file)?.includes(file)) cycles.push(component.reverse());
  };
  for (const file of next.keys()) if (!index.has(file)) visit(file);
  return cycles;
}

describe('architecture (docs/ARCHITECTURE.md)', () => {
  const all = imports();

  it('reads the imports', () => expect(all.length).toBeGreaterThan(300));

  it('every import goes the way the folder table allows: no cycle between folders, src and pipeline apart', () => {
    expect(
      forbidden(all),
      'an import goes only to a folder the table allows (a pipeline stage: one before it): move the shared code down, or change the table in docs/ARCHITECTURE.md first',
    ).toEqual([]);
  });

  it('covers every folder of the pipeline: each stage is in the order, and no file of pipeline/ or producers/ is outside a stage', () => {
    const stages = new Set(readdirSync(path.join(root, 'pipeline')).map((name) => `pipeline/${name}`));
    expect([...stages].sort()).toEqual([...PIPELINE_ORDER].sort());
    const files = [...new Set(all.flatMap(({ from, to }) => [from, to]))].filter((file) => /^(pipeline|producers)\//.test(file));
    expect(files.filter((file) => folderOf(file) === undefined)).toEqual([]);
  });

  it('docs/ARCHITECTURE.md names every folder of the table, and the stages in this order', () => {
    const page = readFileSync(path.join(root, 'docs/ARCHITECTURE.md'), 'utf8');
    const rows = (heading: string) => {
      const section = page.split(heading)[1].split('\n## ')[0];
      return [...section.matchAll(/^\| `([^`]+)` \|/gm)].map(([, name]) => name.replace(/\/$/, ''));
    };
    expect(rows('## The build').map((stage) => `pipeline/${stage}`)).toEqual([...PIPELINE_ORDER]);
    const folders = rows('## Folders');
    for (const folder of Object.keys(MAY_IMPORT).filter((f) => !f.startsWith('pipeline/') && !f.startsWith('producers/')))
      expect(folders, `a row for ${folder}`).toContain(folder);
  });

  it('fails on an import that runs back up the pipeline (a stage importing a later one, or the build importing a producer)', () => {
    expect(forbidden([{ from: 'pipeline/ingest/index.ts', to: 'pipeline/store/provider-stage.ts' }])).toEqual([
      'pipeline/ingest/index.ts -> pipeline/store/provider-stage.ts',
    ]);
    expect(forbidden([{ from: 'pipeline/geo/residents.ts', to: 'pipeline/score/road-times.ts' }])).toHaveLength(1);
    expect(forbidden([{ from: 'pipeline/run/index.ts', to: 'producers/sample/index.ts' }])).toHaveLength(1);
    expect(forbidden([{ from: 'producers/sample/index.ts', to: 'pipeline/score/index.ts' }])).toHaveLength(1);
    expect(forbidden([{ from: 'pipeline/store/open.ts', to: 'pipeline/ingest/reconcile.ts' }])).toEqual([]);
  });

  it('has no import cycle between files anywhere in the repository (tests and benchmarks included)', () => {
    const everywhere = imports(['core', 'pipeline', 'producers', 'src', 'test', 'bench']);
    expect(fileCycles(everywhere)).toEqual([]);
    // The finder finds one.
    expect(fileCycles([...everywhere, { from: 'pipeline/base/errors.ts', to: 'pipeline/config/manifest.ts' }])).toEqual([
      ['pipeline/base/errors.ts', 'pipeline/config/manifest.ts'],
    ]);
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
    // biome reads every file of the repository: seconds on a busy 2-core machine.
  }, 60_000);
});
