/**
 * Worker thread of the build keeper (build-keeper.ts): copies the database file and checks the copy
 * (build-check.ts), which reads every page, so the thread that answers requests never waits on it.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { BadBuildError, prepareBuild } from './build-check.ts';

const { source, target } = workerData as { source: string; target: string | undefined };
try {
  parentPort!.postMessage({ ok: true, build: prepareBuild(source, target) });
} catch (error) {
  const bad = error instanceof BadBuildError;
  parentPort!.postMessage({ ok: false, bad, error: (error as Error).message });
}
