import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that make the builds other files read, longest first: the quick start (the default build) and
 * the public build with its three variants, then the other long ones. They start together (as many as there
 * are workers) and every other file starts after one of them ended, when the builds it reads exist: a reader
 * never waits for one with its core idle. Measured cold on the 2-core machine, each file alone (seconds).
 */
const BUILDS = [
  // The container images (a machine's first run: the base ~3 min, the images ~2.5; later ~45 s), then the
  // default build in a container (~2 min) and the compose stack (~30 s): mostly waiting on podman.
  'test/deploy-compose.test.ts',
  'test/cli-default-build.test.ts', // the quick start (~40 s), then every help example (~50 s)
  'test/diff-causes.test.ts', // the public build (~20 s), then it again and two variants of it (~60 s)
  'test/ingest-identity.test.ts', // ~35
  'test/public-bundle.test.ts', // the build of the original files (~20 s), then ~10 s
  'test/build-sample.test.ts', // a synthetic nation and its build, ~30
  'test/diff-weight.test.ts', // a variant of the public build, ~25
  'test/build-real-directory.test.ts', // the build of ../shared/data, ~25
];

/**
 * Then the other files of 7 s or more, longest first (measured cold in the whole suite, three at a time):
 * left to the end, one of them ran on after the others were done, with the cores idle.
 */
const LONG = [
  'test/attacks/fair-queues.test.ts', // 35 (measured alone), three floods of 10 s
  'test/attacks/worker-death.test.ts', // 30 (alone), three clusters, workers killed
  'test/attacks/flood.test.ts', // 22, a fifth of a core: where it runs beside the others (vitest.config.ts)
  'test/attacks/memory.test.ts', // 20
  'test/auth-processes.test.ts', // 19
  'test/attacks/revocation.test.ts', // 15
  'test/attacks/paused-store.test.ts', // 12 (alone), timed: beside the others as the flood test is
  'test/widget-browser.test.ts', // 15
  'test/static-export.test.ts', // 13
  'test/static-preview.test.ts', // 13
  'test/attacks/stalled-readers.test.ts', // 13
  'test/attacks/smaller-items.test.ts', // 13
  'test/deploy-nginx.test.ts', // 13
  'test/attacks/database-file.test.ts', // 12
  'test/sample.test.ts', // 11
  'test/cli-pipes.test.ts', // 11
  'test/build-real-api.test.ts', // 10
  'test/server-ops.test.ts', // 9
  'test/server-lifecycle.test.ts', // 7
  'test/fuzz.test.ts', // 7
];

export const FIRST = [...BUILDS, ...LONG];

/** The files that read a build one of the BUILDS makes, and take a moment once it is there: last, so they never wait for it. */
export const LAST = [
  'test/deploy-image.test.ts', // the image deploy-compose built, run (~25 s)
  'test/build-default.test.ts',
  'test/diff-providers.test.ts',
  'test/scores-world.test.ts',
  'test/build-real.test.ts',
  'test/schema-doc.test.ts',
];

const ROOT = path.resolve(import.meta.dirname, '../..');

/**
 * Vitest's order (by the durations it measured last time, else by file size), with the files that make
 * shared builds and the other long ones first and those that only read the builds last: on a fresh clone,
 * which has no durations, vitest would otherwise start a reader before the file that makes its build, and
 * the core would wait, and end the run on a long file.
 */
export default class BuildsFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification) => {
      const name = path.relative(ROOT, file.moduleId).split(path.sep).join('/');
      const first = FIRST.indexOf(name);
      if (first >= 0) return first - FIRST.length;
      return LAST.includes(name) ? 1 : 0;
    };
    // Array.prototype.sort is stable: within a rank, vitest's order stays (and its projects' group order
    // comes first: a later group still runs after every file of an earlier one).
    return sorted.sort((a, b) => a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder || rank(a) - rank(b));
  }
}
