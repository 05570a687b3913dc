import type { CommandEntry, ProcessRuntime } from '../../core/command.ts';

/**
 * A build allocates millions of short-lived row objects on the main thread. V8's default young generation
 * (16 MB semi-spaces) promotes many of them to the old generation before they die: a national build spent
 * about 20 s of its CPU in the collector and its old generation held 500 MB of garbage. With 32 MB the
 * NPPES ingest took 43-54 s instead of 57-69 s (runs side by side) and its peak RSS was 200 MB lower.
 * glibc gives each thread its own malloc arena and keeps what a thread freed; two arenas saved another
 * 150 MB of peak RSS at the same speed.
 */
const BUILD_RUNTIME: ProcessRuntime = {
  // --expose-gc: the build collects between stages (pipeline/base/memory.ts).
  nodeFlags: ['--max-semi-space-size=32', '--expose-gc'],
  env: { MALLOC_ARENA_MAX: '2' },
};

/** The pipeline's command: `hcas build` (bin/hcas.js joins it to the producers' and the API's). */
export const PIPELINE_COMMANDS: readonly CommandEntry[] = [
  { names: ['build'], load: async () => (await import('./build.ts')).registerBuild, runtime: BUILD_RUNTIME },
];
