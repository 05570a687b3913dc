import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // The tests run the TypeScript; the processes they start (bin/hcas.js) run dist/, compiled first.
    globalSetup: ['test/helpers/compile.ts', 'test/helpers/shared-data.ts'],
  },
});
