import type { CommandEntry } from '../../core/command.ts';

/**
 * The commands that write raw files for the build to read: `hcas sample` (synthetic providers, or a whole
 * synthetic nation) and `hcas fetch` (the official national files). bin/hcas.js lists them before `build`.
 */
export const PRODUCER_COMMANDS: readonly CommandEntry[] = [
  { names: ['sample'], load: async () => (await import('./sample.ts')).registerSample },
  { names: ['fetch'], load: async () => (await import('./fetch.ts')).registerFetch },
];
