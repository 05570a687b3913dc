import os from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // The tests run the TypeScript; the processes they start (bin/hcas.js) run dist/, compiled first.
    globalSetup: ['test/helpers/compile.ts', 'test/helpers/shared-data.ts'],
    // A test file waits on servers, child processes and builds of other files as much as it computes: two
    // files at a time keep a 2-core machine busy, where vitest's default (cores - 1) runs one.
    maxWorkers: Math.max(2, os.availableParallelism() - 1),
  },
});
