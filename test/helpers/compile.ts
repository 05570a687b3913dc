import { execFileSync } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');

/**
 * Vitest's global setup: compiles the product into dist/ (incrementally: a second run with nothing changed
 * takes a moment) before any test runs, so the tests that start `bin/hcas.js` run the code under test.
 */
export default function compile(): void {
  execFileSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], {
    cwd: root,
    stdio: 'inherit',
  });
  // As `npm run build` does: record the sources compiled, or `hcas build` refuses dist/ as stale.
  execFileSync(process.execPath, [path.join(root, 'bin/stamp-dist.js')], { cwd: root, stdio: 'inherit' });
}
