/**
 * Collects V8's garbage now, at a stage boundary where the stage before has just dropped hundreds of
 * megabytes (the ingest's row objects, the scores' ZIP network of 8 million edges). V8 collects its old
 * generation only as the heap grows, so that garbage would otherwise stay resident through the next stage
 * and add to the build's peak RSS. `hcas build` runs with `--expose-gc` (pipeline/cli/index.ts); without
 * it (a test calling build()) this does nothing.
 */
export function collectGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}
