import { accessSync, chmodSync, constants, mkdtempSync, readdirSync, readFileSync, rmSync, statfsSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** A run's folder left behind by a run that was killed (its teardown never ran) is removed this long after. */
const ABANDONED_MS = 24 * 60 * 60_000;
const PREFIX = 'hcas-test-run-';

/**
 * The temp folder the test run was started with, where what outlives a run is kept (the build cache, the
 * fixture database). Everything else a run writes to the temp folder goes to a folder of its own
 * (`runTemp`).
 */
export function lastingTempDir(): string {
  return process.env.HCAS_TEST_LASTING_TMP ?? os.tmpdir();
}

/**
 * Vitest's global setup: points TMPDIR at a folder of this run's own (in memory when the machine has a usable
 * tmpfs, memoryFolder), which the test files' processes, and everything they start, inherit (os.tmpdir(),
 * mkdtemp, servers' snapshots, nginx, Chromium, Node's compile cache), and removes it when the run ends. Test files leave temp folders behind (a second build of the public data, copies of the
 * package): about 220 MB a run, which filled /tmp run after run.
 */
export default function runTemp(): () => void {
  const lasting = lastingTempDir();
  const memory = memoryFolder();
  for (const parent of memory ? [lasting, memory] : [lasting]) {
    for (const name of readdirSync(parent).filter((entry) => entry.startsWith(PREFIX))) {
      const old = path.join(parent, name);
      if (Date.now() - (statSync(old, { throwIfNoEntry: false })?.mtimeMs ?? Date.now()) > ABANDONED_MS)
        rmSync(old, { recursive: true, force: true });
    }
  }
  const dir = mkdtempSync(path.join(memory ?? lasting, PREFIX));
  // Open to every user as /tmp is (mkdtemp makes it the owner's alone): nginx's workers, which run as
  // another user, read the files tests put in folders of their own under it.
  chmodSync(dir, 0o1777);
  process.env.HCAS_TEST_LASTING_TMP = lasting;
  process.env.TMPDIR = dir;
  // One compile cache for every Node the run starts, worker threads included: `hcas` keeps one already (in
  // TMPDIR, bin/hcas.js), but a thread started from the TypeScript (the reader worker of an ingest test,
  // a server's query thread) compiled its modules afresh each time: ingest-identity's CPU in bench/suite.ts
  // shows the difference. Node checks each entry against its source, so a changed file is compiled again.
  const ownCompileCache = process.env.NODE_COMPILE_CACHE === undefined;
  if (ownCompileCache) process.env.NODE_COMPILE_CACHE = path.join(dir, 'node-compile-cache');
  return () => {
    if (ownCompileCache) delete process.env.NODE_COMPILE_CACHE;
    rmSync(dir, { recursive: true, force: true });
    process.env.TMPDIR = lasting;
  };
}

const MEMORY_FOLDER = '/dev/shm';
const MEMORY_NEEDED = 4 * 1024 ** 3;

/**
 * /dev/shm when it is a tmpfs this user may write, executable (a package copy's bin runs from it) and with
 * 4 GiB free; else undefined. On this project's machines /tmp is ext4 mounted with `discard`: removing one
 * static export's 122,624 files took 50 s there on a quiet machine and over 120 s in CI beside the container
 * builds (a failed afterAll), 2 s on tmpfs.
 */
export function memoryFolder(): string | undefined {
  try {
    const mount = readFileSync('/proc/mounts', 'utf8')
      .split('\n')
      .map((line) => line.split(' '))
      .find(([, point]) => point === MEMORY_FOLDER);
    if (mount?.[2] !== 'tmpfs' || mount[3].split(',').includes('noexec')) return undefined;
    accessSync(MEMORY_FOLDER, constants.W_OK);
    const { bavail, bsize } = statfsSync(MEMORY_FOLDER);
    return bavail * bsize >= MEMORY_NEEDED ? MEMORY_FOLDER : undefined;
  } catch {
    return undefined; // not Linux, or no such mount
  }
}
