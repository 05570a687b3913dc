import type { Command } from 'commander';
import { FixableError } from '../../core/errors.ts';

function positiveInteger(name: string) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 0) throw new FixableError(`--${name} must be a whole number of 0 or more, got ${JSON.stringify(value)}`);
    return n;
  };
}

/** `hcas sample`: writes the synthetic national sample (real ZIP geography) into raw/sample/. */
export function registerSample(program: Command): void {
  program
    .command('sample')
    .description('Write the bundled synthetic sample (real ZIP geography, synthetic values) in the official file layouts')
    .option('--out <dir>', 'output folder', 'raw/sample')
    .option('--providers <n>', 'individual providers to generate', positiveInteger('providers'))
    .option('--facilities <n>', 'facilities to generate', positiveInteger('facilities'))
    .option('--seed <n>', 'random seed (same seed, same files)', positiveInteger('seed'))
    .addHelpText('after', '\nExamples:\n  hcas sample\n  hcas sample --providers 4000000 --facilities 85000   # full national scale')
    .action(async (options: { out: string; providers?: number; facilities?: number; seed?: number }) => {
      // Loaded on demand: the generator pulls in ZIP tables that other commands do not need.
      const { writeSample } = await import('../sample/index.ts');
      const started = Date.now();
      const result = await writeSample({ outDir: options.out, providers: options.providers, facilities: options.facilities, seed: options.seed, log: (line: string) => console.log(line) });
      console.log(`wrote ${Object.keys(result.files).length} files to ${options.out}: ${result.zctas} ZCTAs, ${result.providers} providers, ${result.facilities} facilities in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    });
}
