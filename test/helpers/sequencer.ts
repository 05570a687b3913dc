import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that make the builds other files read, longest first: the quick start (the default build) and
 * the public build with its three variants, then the other long ones. They start together (as many as there
 * are workers) and every other file starts after one of them ended, when the builds it reads exist: a reader
 * never waits for one with its core idle. Measured cold on the 2-core machine, each file alone (seconds).
 */
const FIRST = [
  'test/cli-default-build.test.ts', // the quick start (~40 s), then every help example (~50 s)
  'test/diff-causes.test.ts', // the public build (~20 s), then it again and two variants of it (~60 s)
  'test/ingest-identity.test.ts', // ~35
  'test/public-bundle.test.ts', // the build of the original files (~20 s), then ~10 s
  'test/build-sample.test.ts', // a synthetic nation and its build, ~30
  'test/diff-weight.test.ts', // a variant of the public build, ~25
  'test/build-real-directory.test.ts', // the build of ../shared/data, ~25
];

/**
 * The files that read a build one of the FIRST makes, and take a moment once it is there: last, so they never
 * wait for it. (build-real-api reads the public build too, but takes 10 s: last, it would end the run alone.)
 */
const LAST = [
  'test/build-default.test.ts',
  'test/diff-providers.test.ts',
  'test/scores-world.test.ts',
  'test/build-real.test.ts',
  'test/schema-doc.test.ts',
];

const ROOT = path.resolve(import.meta.dirname, '../..');

/**
 * Vitest's order (by the durations it measured last time, else by file size), with the files that make
 * shared builds first and those that only read them last: on a fresh clone, which has no durations, vitest
 * would otherwise start a reader before the file that makes its build, and the core would wait.
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
