/**
 * The test suite's CPU by file: runs `vitest run` (with any arguments given, as `npm test` runs it after tsc
 * and biome) and prints the files that cost the most CPU, own and in the processes they started, with the
 * whole run's wall time and CPU. On two cores the suite is CPU-bound: its time is the sum of its files'
 * CPU over the cores, so this table, not the slowest file, says where `npm test`'s minutes go (issue 45).
 * Linux only (/proc). Not part of `npm run bench`: it takes as long as the suite.
 *   node bin/run-ts.js bench/suite.ts [--top N] [vitest arguments, e.g. test/cli*.test.ts]
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { machineCpu, processCpu } from '../test/helpers/process-cpu.ts';
import { fmt, numberOption, printTable } from './lib.ts';

const ROOT = path.resolve(import.meta.dirname, '..');

/** One test file's line of test/helpers/cpu-per-file.ts. */
interface FileCpu {
  file: string;
  own: number;
  children: number;
  wall: number;
  /** When it started (epoch ms). */
  started: number;
}

/**
 * Seconds between `from` and `to` (epoch ms) during which fewer files ran than the machine has cores: the
 * setup before the first file, the end of the run, a file that waits alone. The rest of a 2-core run is
 * CPU-bound (the cores' idle share says how much).
 */
function underfilled(files: readonly FileCpu[], from: number, to: number, cores: number): number {
  const edges = files.flatMap((f) => [
    { at: f.started, step: 1 },
    { at: f.started + f.wall * 1000, step: -1 },
  ]);
  edges.push({ at: to, step: 0 });
  edges.sort((a, b) => a.at - b.at);
  let running = 0;
  let last = from;
  let seconds = 0;
  for (const { at, step } of edges) {
    if (running < cores) seconds += (Math.max(at, from) - last) / 1000;
    last = Math.max(at, from);
    running += step;
  }
  return seconds;
}

const top = numberOption('--top') ?? 30;
const vitestArgs = process.argv.slice(2).filter((arg, i, all) => arg !== '--top' && all[i - 1] !== '--top');
const dir = mkdtempSync(path.join(tmpdir(), 'hcas-suite-cpu-'));
const log = path.join(dir, 'cpu.ndjson');
try {
  const startedAt = performance.now();
  const startedEpoch = Date.now();
  const before = processCpu();
  const machineBefore = machineCpu();
  const run = spawnSync(process.execPath, [path.join(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', ...vitestArgs], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, HCAS_TEST_CPU: log },
  });
  const wall = (performance.now() - startedAt) / 1000;
  // The run's CPU: vitest, its workers and what they started and waited for.
  const runCpu = processCpu().children - before.children;
  const machineAfter = machineCpu();
  const idleShare =
    (machineAfter.idle - machineBefore.idle) / (machineAfter.idle - machineBefore.idle + machineAfter.busy - machineBefore.busy);
  const files = readFileSync(log, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as FileCpu)
    .sort((a, b) => b.own + b.children - (a.own + a.children));
  const total = files.reduce((sum, f) => sum + f.own + f.children, 0);
  printTable(
    ['test file', 'CPU s', 'own s', 'children s', 'share', 'wall s'],
    files.slice(0, top).map((f) => {
      const cpu = f.own + f.children;
      return [
        path.relative(ROOT, f.file),
        fmt(cpu, 1),
        fmt(f.own, 1),
        fmt(f.children, 1),
        `${fmt((100 * cpu) / total, 1)}%`,
        fmt(f.wall, 1),
      ];
    }),
  );
  console.log(
    `\n${files.length} files, ${fmt(total, 0)} CPU-s in their tests (${files.length > top ? `the ${top} above ${fmt((100 * files.slice(0, top).reduce((s, f) => s + f.own + f.children, 0)) / total, 0)}%` : 'all above'}); ` +
      `the run ${fmt(wall, 0)} s, ${fmt(runCpu, 0)} CPU-s counted (setup and vitest included; containers not), vitest exit ${run.status}`,
  );
  const cores = availableParallelism();
  console.log(
    `the machine: ${fmt(machineAfter.busy - machineBefore.busy, 0)} core-s busy (anything running, containers and the kernel included), ` +
      `the cores ${fmt(100 * idleShare, 0)}% idle; fewer files than its ${cores} cores ran for ${fmt(underfilled(files, startedEpoch, Date.now(), cores), 0)} s of the run`,
  );
  process.exitCode = run.status ?? 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
