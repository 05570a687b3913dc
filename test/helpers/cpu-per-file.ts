/**
 * A setup file that `bench/suite.ts` adds (through HCAS_TEST_CPU, vitest.config.ts): the CPU each test file
 * costs, appended as a JSON line to the file HCAS_TEST_CPU names. The suite's time on a 2-core machine is set
 * by the CPU of all its files together, not by its slowest file, so this is the number to cut.
 *
 * A worker process runs one file after another (isolate: false), so the difference of its counters between a
 * file's first and last hook is that file's: `own` is every thread of the worker (servers and builds started
 * in-process included), `children` the processes the file started and waited for (Linux counts a process's
 * CPU to its parent once reaped). Not counted: processes that outlive the file, and containers (podman hands
 * them to conmon, not to the test).
 */
import { appendFileSync } from 'node:fs';
import { afterAll, beforeAll } from 'vitest';
import { processCpu } from './process-cpu.ts';

const LOG = process.env.HCAS_TEST_CPU;
if (!LOG) throw new Error('test/helpers/cpu-per-file.ts records into the file HCAS_TEST_CPU names: run it through bench/suite.ts');

let file = '';
let start = { own: 0, children: 0 };
let startedAt = 0;

// Vitest hands a top-level hook the file's suite as its second argument.
// biome-ignore lint/correctness/noEmptyPattern: vitest reads the first as the fixtures wanted, and requires a pattern
beforeAll(({}, suite) => {
  file = 'filepath' in suite ? suite.filepath : suite.name;
  start = processCpu();
  startedAt = performance.now();
});

afterAll(() => {
  const end = processCpu();
  const line = {
    file,
    own: end.own - start.own,
    children: end.children - start.children,
    wall: (performance.now() - startedAt) / 1000,
    // When it started (epoch ms): a timeline of the run, the files side by side.
    started: Date.now() - (performance.now() - startedAt),
    pid: process.pid,
  };
  appendFileSync(LOG, `${JSON.stringify(line)}\n`);
});
