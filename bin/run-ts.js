#!/usr/bin/env node
// Runs one TypeScript file (a benchmark or a test helper) with tsx's loader, a development dependency:
// `node bin/run-ts.js bench/run.ts`. The product itself runs compiled JavaScript (bin/hcas.js).
import { register } from 'tsx/esm/api';
import { pathToFileURL } from 'node:url';
import path from 'node:path';

register();
const [file, ...rest] = process.argv.slice(2);
if (!file) {
  console.error('usage: node bin/run-ts.js FILE.ts [args]');
  process.exit(2);
}
process.argv = [process.argv[0], file, ...rest];
await import(pathToFileURL(path.resolve(file)).href);
