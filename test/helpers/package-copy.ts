import { cpSync, mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './cli.ts';

/** What a fresh clone would not have, or what is too big or private to copy: installed packages, outputs, downloads. */
const LEFT_OUT = new Set(['.git', '.node', 'node_modules', 'var', '.scratch', 'test/artifacts', 'raw/sample', 'raw/synthetic']);

/**
 * A copy of this package as a user has it after `npm install` (compiled dist/ included, node_modules
 * linked), with no build and no sample: commands run there see the copy's own default database and raw
 * files, so a test can run `hcas sample && hcas build` and everything after it without touching this
 * working tree.
 */
export function copyPackage(into: string): string {
  const copy = path.join(into, 'hcas');
  mkdirSync(copy, { recursive: true });
  cpSync(ROOT, copy, {
    recursive: true,
    filter: (source) => {
      const relative = path.relative(ROOT, source).split(path.sep).join('/');
      if (LEFT_OUT.has(relative)) return false;
      // Build outputs and downloads: the copy starts without them (their folders' READMEs stay).
      if (/^dist-api\/./.test(relative)) return relative === 'dist-api/README.md';
      if (/^raw\/national\/./.test(relative)) return ['raw/national/sources.json', 'raw/national/README.md'].includes(relative);
      return true;
    },
  });
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(copy, 'node_modules'));
  return copy;
}
