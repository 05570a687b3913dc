import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { joinModules } from '../src/map/join-modules.ts';
import { PAGE_DIR } from '../src/map/page.ts';

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A folder of modules, each file's text by name. */
function modules(files: Record<string, string>): string {
  dir = mkdtempSync(path.join(os.tmpdir(), 'hcas-join-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
  return dir;
}

describe("the map page's modules joined into one script", () => {
  it('puts each module after the ones it imports, once, without its imports and export keywords', () => {
    const folder = modules({
      'main.js': "import { a } from './a.js';\nimport { b, c } from './b.js';\nconsole.log(a(), b, c);\n",
      'a.js': "import { b } from './b.js';\nexport function a() {\n  return b;\n}\n",
      'b.js': 'export const b = 1;\nexport class c {}\n',
    });
    expect(joinModules(folder, 'main.js')).toBe(
      '// b.js\nconst b = 1;\nclass c {}\n\n// a.js\nfunction a() {\n  return b;\n}\n\n// main.js\nconsole.log(a(), b, c);\n',
    );
  });

  it('refuses what a joined script cannot keep: renamed imports, other imports and exports, cycles, one name twice', () => {
    const refuse = (files: Record<string, string>, message: string) => {
      expect(() => joinModules(modules(files), 'main.js')).toThrow(message);
      rmSync(dir, { recursive: true, force: true });
    };
    refuse({ 'main.js': "import { a as b } from './a.js';\n", 'a.js': 'export const a = 1;\n' }, 'main.js renames an import (a as b)');
    refuse({ 'main.js': "import * as a from './a.js';\n", 'a.js': '' }, 'main.js has "import * as a from \'./a.js\';"');
    refuse({ 'main.js': 'export default 1;\n' }, 'main.js has "export default 1;"');
    refuse(
      { 'main.js': "import { a } from './a.js';\n", 'a.js': "import { b } from './main.js';\nexport const a = 1;\n" },
      'main.js -> a.js -> main.js import each other',
    );
    refuse(
      { 'main.js': "import { a } from './a.js';\nfunction size() {}\n", 'a.js': 'export const a = 1;\nconst size = 2;\n' },
      'a.js and main.js both declare size',
    );
    dir = modules({});
  });

  it("joins the page's own modules into a script a JavaScript engine parses", async () => {
    const script = joinModules(PAGE_DIR, 'main.js');
    for (const file of ['columns.js', 'data.js', 'draw.js', 'geometry.js', 'panels.js', 'search.js', 'main.js'])
      expect(script).toContain(`// ${file}\n`);
    // A module's syntax, checked without running it (it needs a page): a clash of names would be a SyntaxError.
    dir = modules({ 'joined.mjs': script });
    const { execFileSync } = await import('node:child_process');
    expect(() => execFileSync(process.execPath, ['--check', path.join(dir, 'joined.mjs')], { stdio: 'pipe' })).not.toThrow();
  });
});
