import type { CommandEntry } from '../../core/command.ts';

/** The pipeline's commands: `hcas sample` and `hcas build` (bin/hcas.js adds them to the API's). */
export const PIPELINE_COMMANDS: readonly CommandEntry[] = [
  { names: ['sample'], load: async () => (await import('./sample.ts')).registerSample },
  { names: ['fetch'], load: async () => (await import('./fetch.ts')).registerFetch },
  { names: ['build'], load: async () => (await import('./build.ts')).registerBuild },
];
