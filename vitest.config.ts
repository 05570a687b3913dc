import os from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';
import { mayRaisePriority } from './test/helpers/priority.ts';
import BuildsFirst from './test/helpers/sequencer.ts';

/**
 * The attack tests that time a server (under a flood, through a paused Redis) need the server and its client
 * to get a core whenever they wake. The flood test runs alone, after the rest of the suite: beside the other
 * files, even with its processes' priority raised, it failed two CI runs of about ten (a p99 of 651 and 82 ms
 * against 7 alone, other processes on 1.6-1.7 of the 2 cores); alone it keeps one core idle for its 22 s.
 * The paused-store test runs beside the others where this user may raise a process's priority (root, as CI
 * runs: test/helpers/priority.ts), else alone too.
 */
const FLOOD = 'test/attacks/flood.test.ts';
const PAUSED_STORE = 'test/attacks/paused-store.test.ts';
const ALONE = mayRaisePriority() ? [FLOOD] : [FLOOD, PAUSED_STORE];

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
    // bench/suite.ts measures each file's CPU (test/helpers/cpu-per-file.ts); a plain run adds nothing.
    setupFiles: process.env.HCAS_TEST_CPU ? ['test/helpers/cpu-per-file.ts'] : [],
    // Vitest's 5 s (10 s for a hook) is too short for three files sharing two cores while the shared builds are
    // made cold: one CI run after a change to core/ ran three plain tests (request-log, attacks/details) past
    // 5 s. A test that hangs still fails, later. Hooks that wait for a shared build allow 15 minutes.
    testTimeout: 30_000,
    hookTimeout: 60_000,
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
