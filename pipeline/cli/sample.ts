import type { Command } from 'commander';
import { FixableError } from '../../core/errors.ts';

function positiveInteger(name: string) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 0) throw new FixableError(`--${name} must be a whole number of 0 or more, got ${JSON.stringify(value)}`);
    return n;
  };
}

interface SampleOptions {
  out?: string;
  providers?: number;
  facilities?: number;
  seed?: number;
  manifest: string;
  syntheticNation?: boolean;
}

/**
 * `hcas sample`: writes the synthetic providers the default build pairs with the bundled real public data
 * (raw/sample/); with --synthetic-nation, a whole synthetic nation in the official layouts (raw/synthetic/),
 * for builds at national scale.
 */
export function registerSample(program: Command): void {
  program
    .command('sample')
    .description('Write synthetic providers over the bundled real public data (raw/sample/), or with --synthetic-nation a whole synthetic national data set')
    .option('--out <dir>', 'output folder (default raw/sample, or raw/synthetic with --synthetic-nation)')
    .option('--providers <n>', 'individual providers to generate (default 250000)', positiveInteger('providers'))
    .option('--seed <n>', 'random seed (same seed, same files)', positiveInteger('seed'))
    .option('--manifest <file>', 'manifest of the real files the providers are placed over', 'raw/manifests/public.json')
    .option('--synthetic-nation', 'write a whole synthetic nation (real ZIP geography; synthetic census, facilities and providers) instead')
    .option('--facilities <n>', 'with --synthetic-nation: facilities to generate', positiveInteger('facilities'))
    .addHelpText('after', '\nExamples:\n  hcas sample && hcas build\n  hcas sample --synthetic-nation --providers 4000000 --facilities 85000 && hcas build --manifest raw/manifests/synthetic.json   # national scale')
    .action(async (options: SampleOptions) => {
      const started = Date.now();
      const log = (line: string) => console.log(line);
      const seconds = () => ((Date.now() - started) / 1000).toFixed(1);
      // Loaded on demand: the generators pull in ZIP tables that other commands do not need.
      if (options.syntheticNation) {
        const { writeSample } = await import('../sample/index.ts');
        const out = options.out ?? 'raw/synthetic';
        const result = await writeSample({ outDir: out, providers: options.providers, facilities: options.facilities, seed: options.seed, log });
        console.log(`wrote a synthetic nation to ${out}: ${result.zctas} ZCTAs, ${result.providers} providers, ${result.facilities} facilities in ${seconds()} s`);
        return;
      }
      if (options.facilities !== undefined) throw new FixableError('--facilities applies to --synthetic-nation only: the default sample uses the real facilities of the bundled public data');
      const { writeRealSample } = await import('../sample/real-sample.ts');
      const { DEFAULT_PROVIDERS, DEFAULT_SEED } = await import('../sample/index.ts');
      const out = options.out ?? 'raw/sample';
      const result = await writeRealSample({ outDir: out, manifest: options.manifest, providers: options.providers ?? DEFAULT_PROVIDERS, seed: options.seed ?? DEFAULT_SEED, log });
      console.log(`wrote ${result.providers} synthetic providers to ${out} (${(result.sampleFraction * 100).toFixed(2)}% of the ${result.nationalProviders.toLocaleString('en-US')} the documented densities give the country) in ${seconds()} s; ` +
        'the census, facilities and geography they are placed over are real (raw/public)');
    });
}
