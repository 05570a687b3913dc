import type { CommandEntry } from '../../../core/command.ts';

/**
 * The API side's commands, in the order `hcas --help` lists them; each module registers its commands and is
 * loaded only when one of them runs, so `hcas score` never loads the server, the cluster or Redis.
 */
export const API_COMMANDS: readonly CommandEntry[] = [
  { names: ['serve'], load: async () => (await import('./serve.ts')).registerServe },
  { names: ['get'], load: async () => (await import('./get.ts')).registerGet },
  { names: ['score'], load: async () => (await import('./score.ts')).registerScore },
  { names: ['scores'], load: async () => (await import('./scores.ts')).registerScores },
  { names: ['nearby'], load: async () => (await import('./nearby.ts')).registerNearby },
  { names: ['states'], load: async () => (await import('./states.ts')).registerStates },
  { names: ['score-types'], load: async () => (await import('./score-types.ts')).registerScoreTypes },
  { names: ['tvi'], load: async () => (await import('./tvi.ts')).registerTvi },
  { names: ['census'], load: async () => (await import('./census.ts')).registerCensus },
  { names: ['compare'], load: async () => (await import('./compare.ts')).registerCompare },
  { names: ['export'], load: async () => (await import('./export.ts')).registerExport },
  { names: ['export-static'], load: async () => (await import('./export-static.ts')).registerExportStatic },
  { names: ['preview'], load: async () => (await import('./preview.ts')).registerPreview },
  { names: ['keys'], load: async () => (await import('./keys.ts')).registerKeys },
  { names: ['providers', 'provider'], load: async () => (await import('./providers.ts')).registerProviders },
  { names: ['facilities', 'facility'], load: async () => (await import('./facilities.ts')).registerFacilities },
  { names: ['autocomplete'], load: async () => (await import('./autocomplete.ts')).registerAutocomplete },
  { names: ['rankings'], load: async () => (await import('./rankings.ts')).registerRankings },
  { names: ['validate'], load: async () => (await import('./validate.ts')).registerValidate },
  { names: ['diff'], load: async () => (await import('./diff.ts')).registerDiff },
  { names: ['map'], load: async () => (await import('./map.ts')).registerMap },
];
