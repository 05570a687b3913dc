/**
 * `hcas sample` for the default build: synthetic providers (only providers) over the real world of the
 * bundled public files. The clinicians the scores count follow the real counts: each county's number of each
 * kind is its real count (County Health Rankings, the Dartmouth Atlas, the OB/GYN roster; clinician-plan.ts)
 * times the sample fraction, placed within the county by the sample's service-hub model (county-places.ts);
 * every other kind of provider is drawn at its national density and placed by the hub model over the country
 * (placement.ts). Names, NPIs and addresses are made up. The files are declared to the build as a uniform sample
 * of `sample_fraction` of all clinicians, so supply scaled back up gives the real counts.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { silentCountProgress, type CountProgressFactory } from '../../core/progress.ts';
import { planClinicians, type ClinicianPlan, type GroupResult } from './clinician-plan.ts';
import { CountyPlacement } from './county-places.ts';
import { loadGeography, withPracticeZips, type Geography } from './geography.ts';
import { buildPlacement, placementWeights, type PlacementKind } from './placement.ts';
import { densityMix } from './density-mix.ts';
import type { ProviderKind } from './provider-mix.ts';
import { writeProviderFiles, type BrokenRow } from './providers.ts';
import { loadRealCounts } from './real-counts.ts';
import { loadRealWorld, type RealWorld } from './real-world.ts';

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

/** What the declaration says the synthetic clinicians follow, and how. */
const MODEL =
  'Synthetic individual providers: names, NPIs and addresses are made up. Real: how many clinicians of each kind practise in each county, ' +
  'times sample_fraction (within one clinician): primary care physicians, primary care nurse practitioners and physician assistants, ' +
  'mental health providers and dentists from the clinician count files of the manifest (County Health Rankings; where a county has none, ' +
  'Connecticut from the Dartmouth Atlas 2010 or its planning regions spread by residents, as the build reads them); the physician ' +
  'specialties, paediatrics and geriatrics as the build estimates them (the national density where the Dartmouth Atlas 2010 places ' +
  'specialists or primary care physicians); OB/GYNs at the ZIPs of the CMS roster. Where no file counts a county (Puerto Rico, the island ' +
  "areas, Connecticut's dentists, the District of Columbia's specialists), the national density. Synthetic: the ZIP within the county " +
  '(the service-hub model of producers/sample/placement.ts), and every other kind (nurses, pharmacists, therapists, dietitians and ' +
  "women's health nurse practitioners, whom no file counts) at national densities placed by population and real hospitals.";

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
  const placement = buildPlacement(geo, world.demographics);
  const weights = new Map<PlacementKind, Float64Array>();
  const weightsOf = (kind: PlacementKind) => {
    let w = weights.get(kind);
    if (!w) {
      // Where no practice ZIP leads to a ZCTA in the build, nobody practises there.
      w = placementWeights(geo, placement, kind, world.facilities.bedsByZcta).map((x, i) => x * world.reachable[i]);
      weights.set(kind, w);
    }
    return w;
  };
  const plan = await planOverCounts(world, geo, weightsOf, kinds, options);
  const { sampleFraction, nationalProviders } = plan;
  log(`plan: ${plan.groups.map((g) => `${nameOf(g)} ${g.drawn}`).join(', ')}`);
  const progress = (options.progress ?? silentCountProgress)('synthetic NPPES rows');
  const files = await writeProviderFiles(
    options.outDir,
    // Practice ZIPs from the real crosswalk, so the build places each provider in the ZCTA planned.
    withPracticeZips(geo, world.practiceZips),
    placement,
    world.facilities,
    { count: options.providers, kinds, planned: plan },
    options.seed,
    log,
    progress,
  );
  const declaration = join(options.outDir, DECLARATION_PATH);
  await writeFile(
    declaration,
    `${JSON.stringify(
      {
        sample_fraction: +sampleFraction.toPrecision(6),
        providers: options.providers,
        national_providers: Math.round(nationalProviders),
        seed: options.seed,
        synthetic: true,
        model: MODEL,
        clinicians: plan.groups.map((g) => ({ follows: nameOf(g), basis: g.basis, national: Math.round(g.national), drawn: g.drawn })),
      },
      null,
      2,
    )}\n`,
  );
  log(
    `providers: ${files.individuals} individuals (${(sampleFraction * 100).toFixed(2)}% of ${Math.round(nationalProviders).toLocaleString('en-US')}), ${files.nppesRows} NPPES rows, ${files.dacRows} DAC rows`,
  );
  return {
    providers: files.individuals,
    sampleFraction,
    nationalProviders: Math.round(nationalProviders),
    nppesRows: files.nppesRows,
    dacRows: files.dacRows,
    brokenRows: files.broken,
    declaration,
  };
}

/** The clinician plan over the real counts; the counties, counts and rosters are let go before the files are written. */
async function planOverCounts(
  world: RealWorld,
  geo: Geography,
  weightsOf: (kind: PlacementKind) => Float64Array,
  kinds: readonly ProviderKind[],
  options: RealSampleOptions,
): Promise<ClinicianPlan> {
  const residents = world.demographics.map((d) => d.population);
  const { counties, counts, rosters } = await loadRealCounts(world.files, geo, residents);
  const placement = new CountyPlacement(counties, residents, world.reachable, weightsOf);
  return planClinicians(
    { counties, placement, counts, rosters, population: world.population, weights: weightsOf },
    kinds,
    options.providers,
    options.seed,
  );
}

/** A group's name: the count kind or category it follows. */
function nameOf(group: Pick<GroupResult, 'follows'>): string {
  return 'count' in group.follows ? group.follows.count : group.follows.estimate;
}
