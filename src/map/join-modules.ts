import { readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The map page's modules joined into one script, each after the modules it imports: one request instead of
 * seven. A fresh page loads the national view over the browser's six connections to a host; seven scripts
 * beside the stylesheet and the four data files made two rounds of requests, and the first paint waited for
 * the second (bench/map.ts, "modules received").
 *
 * The page's modules are written for this: they import only named bindings of sibling modules
 * (`import { a, b } from './x.js'`, no renaming), export only declarations (`export function`, `export const`,
 * `export class`), and share one scope once joined, so no two declare the same top-level name. Anything else
 * is refused with the file and what to write instead; a clash of names is refused here too (the browser
 * would refuse the whole script).
 */
export function joinModules(dir: string, entry: string): string {
  const order: string[] = [];
  const bodies = new Map<string, string>();
  const visit = (file: string, from: string[]) => {
    if (bodies.has(file)) return;
    if (from.includes(file)) throw new Error(`map page: ${[...from, file].join(' -> ')} import each other; a joined script needs no cycle`);
    const { body, imports } = readModule(dir, file);
    for (const imported of imports) visit(imported, [...from, file]);
    bodies.set(file, body);
    order.push(file);
  };
  visit(entry, []);
  checkNames(bodies);
  return order.map((file) => `// ${file}\n${bodies.get(file)}`).join('\n');
}

const IMPORT = /^import\s*\{([^}]*)\}\s*from\s*'\.\/([\w-]+\.js)';[ \t]*\n/gm;
const EXPORT = /^export (?=(?:async function|function|const|let|class) )/gm;
const DECLARATION = /^(?:async function|function|const|let|class)\s+([\w$]+)/gm;

/** One module's text without its imports and export keywords, and the sibling modules it imports. */
function readModule(dir: string, file: string): { body: string; imports: string[] } {
  const text = readFileSync(path.join(dir, file), 'utf8');
  const imports: string[] = [];
  let body = text.replace(IMPORT, (_, names: string, imported: string) => {
    if (/\bas\b/.test(names)) throw new Error(`map page: ${file} renames an import (${names.trim()}); import the name as exported`);
    imports.push(imported);
    return '';
  });
  body = body.replace(EXPORT, '');
  const other = /^(?:import|export)\b.*$/m.exec(body);
  if (other) {
    throw new Error(
      `map page: ${file} has "${other[0]}"; the page's modules import named bindings of sibling modules and export declarations only (src/map/join-modules.ts)`,
    );
  }
  return { body, imports };
}

/** Refuses two modules declaring one top-level name: joined, they would share it. */
function checkNames(bodies: Map<string, string>): void {
  const declaredIn = new Map<string, string>();
  for (const [file, body] of bodies) {
    for (const [, name] of body.matchAll(DECLARATION)) {
      const other = declaredIn.get(name);
      if (other !== undefined && other !== file)
        throw new Error(`map page: ${other} and ${file} both declare ${name}; rename one (the modules are joined into one script)`);
      declaredIn.set(name, file);
    }
  }
}
