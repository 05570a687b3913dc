import os from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';
import { mayRaisePriority } from './test/helpers/priority.ts';
import BuildsFirst from './test/helpers/sequencer.ts';

/**
 * The attack tests that time a server (under a flood, through a paused Redis) need the server and its client
 * to get a core whenever they wake. Where this user may raise a process's priority (root, as CI runs), they
 * run beside the other files, above them (test/helpers/priority.ts); elsewhere they run alone, after the rest
 * of the suite, for the other files' processes would share the cores with the server measured. Alone, the
 * flood test kept one core of two idle for its 22 s (it needs about a fifth of a core).
 */
const TIMED = ['test/attacks/flood.test.ts', 'test/attacks/paused-store.test.ts'];
const ALONE = mayRaisePriority() ? [] : TIMED;

export default defineConfig({
  test: {
    // The tests run the TypeScript; the processes they start (bin/hcas.js) run dist/, compiled first. The run
    // writes its temp files in a folder of its own, removed at the end (run-temp.ts); the builds it makes are
    // kept for the next (build-cache.ts).
    globalSetup: ['test/helpers/run-temp.ts', 'test/helpers/compile.ts', 'test/helpers/shared-data.ts', 'test/helpers/build-cache.ts'],
    // A test file waits on servers, child processes and sleeps as much as it computes: one file more than
    // there are cores keeps them busy (measured cold on a 2-core machine: 3 files at a time 305 s, 2 326 s,
    // 4 329 s, the cores then fighting over the long builds).
    maxWorkers: os.availableParallelism() + 1,
    // A worker process runs one test file after another without starting afresh for each: a fresh process
    // per file re-imports the product and vitest for each of about a hundred files (measured with every
    // build cached on the 2-core machine: 195 s and 318 s of CPU isolated, 167 s and 269 s not). A file
    // that changes a module for itself undoes it (diff-weight.test.ts); everything else a file starts (servers,
    // child processes, temp folders) it stops in its afterAll.
    isolate: false,
    // The files that make shared builds first, those that only read them last (test/helpers/sequencer.ts).
    sequence: { sequencer: BuildsFirst },
    projects: [
      { extends: true, test: { name: 'suite', exclude: [...configDefaults.exclude, ...ALONE] } },
      ...(ALONE.length ? [{ extends: true, test: { name: 'alone', include: ALONE, sequence: { groupOrder: 1 } } }] : []),
    ],
  },
});
