import type { Command } from 'commander';
import { DEFAULT_DATABASE } from '../../core/dataset.ts';

export const DEFAULT_MANIFEST = 'raw/manifests/sample.json';

/** `hcas build`: raw files named by a manifest -> dist-api/hcas.sqlite. */
export function registerBuild(program: Command): void {
  program
    .command('build')
    .description('Build the scored SQLite database from the raw files a sources manifest names')
    .option('--manifest <file>', 'sources manifest (JSON)', DEFAULT_MANIFEST)
    .option('--out <file>', 'output database', DEFAULT_DATABASE)
    .option('--root <dir>', "folder the manifest's file paths are relative to (overrides its \"root\")")
    .option('--allow-partial-providers', 'when the provider files cover the country only partly, publish scores without a provider component instead of failing')
    .option('--quiet', 'print only the summary line')
    .addHelpText('after', '\nExamples:\n  hcas sample && hcas build\n  hcas build --manifest raw/manifests/public.json --out dist-api/real.sqlite   # the real files alone, no provider component')
    .action(async (options: { manifest: string; out: string; root?: string; quiet?: boolean; allowPartialProviders?: boolean }) => {
      // Loaded on demand: the whole pipeline, which `hcas --help` does not need.
      const { build } = await import('../build.ts');
      const summary = await build({ manifest: options.manifest, out: options.out, root: options.root, allowPartialProviders: options.allowPartialProviders, log: options.quiet ? undefined : (line) => console.log(line) });
      console.log(`built ${summary.out} (build ${summary.buildId}): ${summary.zips} ZIP codes, ${summary.providers} providers, ${summary.facilities} facilities in ${summary.seconds.toFixed(1)} s; rejected rows in ${summary.rejectsFile}`);
    });
}
