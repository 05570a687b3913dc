import path from 'node:path';
import type { Command } from 'commander';
import type { CommandIo } from '../../core/command.ts';
import { FixableError } from '../../core/errors.ts';
import { PACKAGE_ROOT } from '../../core/package.ts';
import { countProgress, LOG_FORMAT_HELP, progressMode } from '../../core/progress.ts';
import { logLines, shownPath } from '../../core/log-lines.ts';

function positiveInteger(name: string) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 0)
      throw new FixableError(`--${name} must be a whole number of 0 or more, got ${JSON.stringify(value)}`);
    return n;
  };
}

interface SampleOptions {
  out?: string;
  providers?: number;
  facilities?: number;
  seed?: number;
  manifest?: string;
  syntheticNation?: boolean;
  ifChanged?: boolean;
  quiet?: boolean;
  logFormat?: string;
}

/** Folders and the manifest the sample reads, named from the package root so `hcas sample` works from any folder. */
const DEFAULTS = {
  sample: path.join(PACKAGE_ROOT, 'raw/sample'),
  nation: path.join(PACKAGE_ROOT, 'raw/synthetic'),
  manifest: path.join(PACKAGE_ROOT, 'raw/manifests/public.json'),
};

/**
 * `hcas sample`: writes the synthetic providers the default build pairs with the bundled real public data
 * (raw/sample/); with --synthetic-nation, a whole synthetic nation in the official layouts (raw/synthetic/),
 * for builds at national scale.
 */
export function registerSample(program: Command, io: CommandIo): void {
  program
    .command('sample')
    .description(
      'Write synthetic providers over the bundled real public data (raw/sample/), or with --synthetic-nation a whole synthetic national data set',
    )
    .option('--out <dir>', 'output folder (default raw/sample, or raw/synthetic with --synthetic-nation, in the hcas folder)')
    .option('--providers <n>', 'individual providers to generate (default 250000)', positiveInteger('providers'))
    .option('--seed <n>', 'random seed (same seed, same files)', positiveInteger('seed'))
    .option(
      '--manifest <file>',
      'manifest of the real files the providers are placed over (default raw/manifests/public.json in the hcas folder)',
    )
    .option('--synthetic-nation', 'write a whole synthetic nation (real ZIP geography; synthetic census, facilities and providers) instead')
    .option('--facilities <n>', 'with --synthetic-nation: facilities to generate', positiveInteger('facilities'))
    .option(
      '--if-changed',
      'write only when the folder does not already hold this sample, written from the same options, inputs and code (npm start uses this)',
    )
    .option('--quiet', 'print only the summary line: no log, no progress')
    .option('--log-format <text|json>', LOG_FORMAT_HELP)
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        '  hcas sample && hcas build',
        '  hcas sample --if-changed       # keeps raw/sample when it is already this sample',
        '  hcas sample --synthetic-nation --providers 20000 --facilities 2000 --out raw/synthetic-small   # a small synthetic nation',
      ].join('\n'),
    )
    .action((options: SampleOptions) => writeSampleCommand(options, io));
}

/** Refuses options that do nothing for the sample asked, then writes it (unless --if-changed finds it written). */
async function writeSampleCommand(options: SampleOptions, io: CommandIo): Promise<void> {
  const mode = progressMode(options);
  const print = logLines(mode, io.stdout);
  const log = mode === 'silent' ? undefined : print.line;
  const progress = countProgress('rows', { mode, stream: io.stderr });
  const started = Date.now();
  const seconds = () => ((Date.now() - started) / 1000).toFixed(1);
  if (options.syntheticNation && options.manifest !== undefined) {
    throw new FixableError('--manifest applies to the default sample only: a synthetic nation reads no real files');
  }
  if (!options.syntheticNation && options.facilities !== undefined) {
    throw new FixableError(
      '--facilities applies to --synthetic-nation only: the default sample uses the real facilities of the bundled public data',
    );
  }
  // Loaded on demand: the generators pull in ZIP tables that other commands do not need.
  const [stamp, sample, { refuseStaleCompiledCode }] = await Promise.all([
    import('../sample/stamp.ts'),
    import('../sample/index.ts'),
    import('../../pipeline/base/code.ts'),
  ]);
  refuseStaleCompiledCode('sample');
  const out = options.out ?? (options.syntheticNation ? DEFAULTS.nation : DEFAULTS.sample);
  const manifest = options.manifest ?? DEFAULTS.manifest;
  const providers = options.providers ?? sample.DEFAULT_PROVIDERS;
  const seed = options.seed ?? sample.DEFAULT_SEED;
  const key = stamp.sampleKey(
    options.syntheticNation
      ? { kind: 'nation', providers, seed, facilities: options.facilities ?? null }
      : { kind: 'real', providers, seed },
    options.syntheticNation ? [] : await inputChecksums(manifest),
  );
  if (options.ifChanged && (await stamp.sampleIsCurrent(out, key))) {
    print.summary(`${shownPath(out)} already holds this sample (written from the same options, inputs and code); nothing written`, {
      event: 'up_to_date',
      out,
    });
    return;
  }
  stamp.clearStamp(out);
  if (options.syntheticNation) {
    const result = await sample.writeSample({ outDir: out, providers, facilities: options.facilities, seed, log, progress });
    await stamp.writeStamp(out, key);
    print.summary(
      `wrote a synthetic nation to ${shownPath(out)}: ${result.zctas} ZCTAs, ${result.providers} providers, ${result.facilities} facilities in ${seconds()} s`,
      {
        event: 'sample_written',
        out,
        zctas: result.zctas,
        providers: result.providers,
        facilities: result.facilities,
        seconds: Number(seconds()),
      },
    );
    return;
  }
  const { writeRealSample } = await import('../sample/real-sample.ts');
  const result = await writeRealSample({ outDir: out, manifest, providers, seed, log, progress });
  await stamp.writeStamp(out, key);
  print.summary(
    `wrote ${result.providers} synthetic providers to ${shownPath(out)} (${(result.sampleFraction * 100).toFixed(2)}% of the ${result.nationalProviders.toLocaleString('en-US')} the real counts and documented densities give the country) in ${seconds()} s; ` +
      'their number per county and kind, and the census, facilities and geography they are placed over, are real (raw/public)',
    { event: 'sample_written', out, providers: result.providers, sample_fraction: result.sampleFraction, seconds: Number(seconds()) },
  );
}

/** The checksums of the real files the default sample reads (the manifest's sources). */
async function inputChecksums(manifest: string): Promise<Array<string | null>> {
  const [{ loadManifest, sourceChecksums }, { LAYOUTS }] = await Promise.all([
    import('../../pipeline/config/manifest.ts'),
    import('../../pipeline/layouts/index.ts'),
  ]);
  return (await sourceChecksums(loadManifest(manifest, new Set(LAYOUTS.keys())))).map((sum) => sum?.sha256 ?? null);
}
