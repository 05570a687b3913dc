import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Attack tests that time a server under load run alone, after the rest of the suite: the other test
 * files' processes would otherwise share the machine's cores with the server they measure.
 */
const ALONE = ['test/attacks/flood.test.ts'];

export default defineConfig({
  test: {
    // The tests run the TypeScript; the processes they start (bin/hcas.js) run dist/, compiled first.
    globalSetup: ['test/helpers/compile.ts', 'test/helpers/shared-data.ts'],
    projects: [
      { extends: true, test: { name: 'suite', exclude: [...configDefaults.exclude, ...ALONE] } },
      { extends: true, test: { name: 'alone', include: ALONE, sequence: { groupOrder: 1 } } },
    ],
  },
});
