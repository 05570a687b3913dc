/**
 * `hcas sample` for the default build: synthetic providers (only providers) over the real world of the
 * bundled public files. Clinicians of every scored taxonomy are drawn at the documented national densities
 * (density-mix.ts) and placed by the sample's service-hub model on real ACS populations and real hospitals
 * (placement.ts: primary care in the towns that serve each area, specialists half by hospital beds, half in
 * large urban catchments, hospital-based staff at the hospitals). The file is declared to the build as a
 * uniform sample of `sample_fraction` of all clinicians, so supply is scaled back up honestly.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { silentCountProgress, type CountProgressFactory } from '../../core/progress.ts';
import { loadGeography } from './geography.ts';
import { buildPlacement } from './placement.ts';
import { densityMix, mixDensity } from './density-mix.ts';
import { writeProviderFiles, type BrokenRow } from './providers.ts';
import { loadRealWorld } from './real-world.ts';

/** The file declaring what the synthetic provider files are, read by the manifest's `providers.sample_fraction_file`. */
export const DECLARATION_PATH = 'synthetic-providers.json';

export interface RealSampleOptions {
  outDir: string;
  /** Manifest of the real files (raw/manifests/public.json): populations and facilities come from it. */
  manifest: string;
  providers: number;
  seed: number;
  log?: (line: string) => void;
  /** Progress of the NPPES rows written. */
  progress?: CountProgressFactory;
}

export interface RealSampleResult {
  providers: number;
  sampleFraction: number;
  /** Individual NPPES providers the mix puts in the whole country. */
  nationalProviders: number;
  nppesRows: number;
  dacRows: number;
  brokenRows: BrokenRow[];
  declaration: string;
}

/** Writes synthetic NPPES and Doctors and Clinicians files over the real world, and their declaration. */
export async function writeRealSample(options: RealSampleOptions): Promise<RealSampleResult> {
  const started = performance.now();
  const log = (line: string) => options.log?.(`[${((performance.now() - started) / 1000).toFixed(1)} s] ${line}`);
  const geo = loadGeography();
  const world = await loadRealWorld(options.manifest, geo);
  log(
    `real world: ${world.population.toLocaleString('en-US')} residents, ${world.facilities.hospitals.length} hospitals, ${world.facilities.sites.length} health centre sites`,
  );
  const kinds = densityMix();
  const nationalProviders = Math.round((mixDensity(kinds) * world.population) / 100_000);
  if (options.providers > nationalProviders) {
    throw new Error(
      `--providers ${options.providers} is more than the ${nationalProviders} individual providers the documented densities give the whole country`,
    );
  }
  const sampleFraction = options.providers / nationalProviders;
  const placement = buildPlacement(geo, world.demographics);
  const progress = (options.progress ?? silentCountProgress)('synthetic NPPES rows');
  const files = await writeProviderFiles(
    options.outDir,
    geo,
    placement,
    world.facilities,
    options.providers,
    options.seed,
    log,
    kinds,
    progress,
  );
  const declaration = join(options.outDir, DECLARATION_PATH);
  await writeFile(
    declaration,
    `${JSON.stringify(
      {
        sample_fraction: +sampleFraction.toPrecision(6),
        providers: options.providers,
        national_providers: nationalProviders,
        seed: options.seed,
        synthetic: true,
        model:
          'Synthetic individual providers at the documented national densities per clinician category (pipeline/config/scoring.ts EXPECTED_DENSITY), placed by population and real hospital locations (producers/sample/real-sample.ts).',
      },
      null,
      2,
    )}\n`,
  );
  log(
    `providers: ${files.individuals} individuals (${(sampleFraction * 100).toFixed(2)}% of ${nationalProviders.toLocaleString('en-US')}), ${files.nppesRows} NPPES rows, ${files.dacRows} DAC rows`,
  );
  return {
    providers: files.individuals,
    sampleFraction,
    nationalProviders,
    nppesRows: files.nppesRows,
    dacRows: files.dacRows,
    brokenRows: files.broken,
    declaration,
  };
}
