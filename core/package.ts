import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The folder of hcas's package.json, found by walking up from this file: `core/` when the TypeScript
 * runs (tests), `dist/core/` when the compiled JavaScript does. Files the code reads at run time (plan
 * presets, the widget script, the pipeline's own sources) are named from here, never relative to a module.
 */
export const PACKAGE_ROOT = findPackageRoot(import.meta.dirname);

/** The package's version, from package.json. */
export function packageVersion(): string {
  return (JSON.parse(readFileSync(path.join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
}

function findPackageRoot(start: string): string {
  for (let dir = start; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no package.json above ${start}: hcas must run from its package folder`);
  }
}
