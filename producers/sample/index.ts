/**
 * `hcas sample`: writes a synthetic national data set in the official layouts of the real inputs
 * (Census, UDS Mapper, OMB, NCHS, NUCC, NPPES, CMS, HIFLD, HRSA, CDC PLACES). Geography is real (every
 * 2020 ZCTA and US postal ZIP); every value hung on it is synthetic. Deterministic for a seed.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { silentCountProgress, type CountProgressFactory } from '../../core/progress.ts';
import { loadGeography } from './geography.ts';
import { buildDemographics } from './census-model.ts';
import { writeAcsProfile, writeGazetteer } from './census.ts';
import { buildCounties } from './counties.ts';
import { buildMetro } from './metro.ts';
import { writeCountyCbsa, writeNchs, writeZctaCounty, writeZipZcta } from './crosswalks.ts';
import { writeNucc } from './nucc.ts';
import { buildPlacement } from './placement.ts';
import { buildFacilities } from './facilities.ts';
import { writeHifld, writeHospitalGeneralInformation, writeHrsaSites } from './facility-files.ts';
import { DAC_PATH, NPPES_PATH, writeProviderFiles, type BrokenRow } from './providers.ts';
import { PROVIDER_KINDS } from './provider-mix.ts';
import { writePlaces } from './places.ts';

export type { BrokenRow, BrokenReason } from './providers.ts';

/** Options of {@link writeSample}. */
export interface SampleOptions {
  /** Folder to write into (created if missing; existing files are overwritten). */
  outDir: string;
  /** Individual providers in NPPES (default {@link DEFAULT_PROVIDERS}); organizations and deactivated NPIs come on top. */
  providers?: number;
  /** Facilities: CMS hospitals (7%), HIFLD-only hospitals and HRSA sites (default {@link DEFAULT_FACILITIES}). */
  facilities?: number;
  /** Random seed (default {@link DEFAULT_SEED}); the same seed gives byte-identical files. */
  seed?: number;
  /** Progress lines. */
  log?: (line: string) => void;
  /** Progress of the NPPES rows written, the longest part. */
  progress?: CountProgressFactory;
}

/** What {@link writeSample} wrote. */
export interface SampleResult {
  /** Every file by short name ({@link SAMPLE_FILES}): its path (outDir joined with the relative path) and data rows (header excluded). */
  files: Record<string, { path: string; rows: number }>;
  zctas: number;
  /** Valid individual providers in NPPES (= the providers option). */
  providers: number;
  /** Hospitals plus health center sites (= the facilities option). */
  facilities: number;
  /** NPPES organizations (hospitals included) and deactivated NPIs. */
  organizations: number;
  deactivated: number;
  /** The deliberately broken NPPES rows (invalid check digit, malformed ZIP, short row). */
  brokenRows: BrokenRow[];
  seed: number;
}

/**
 * Default size: the sample writes in about 8 s and the downstream `hcas build` takes about 40-60 s on it
 * (measured; the build's NPPES ingest grows with providers, 400,000 already took 69 s).
 */
export const DEFAULT_PROVIDERS = 250_000;
/** The synthetic nation's full scale: --providers 4000000 writes all of it, fewer are declared a sample of it. */
export const NATIONAL_PROVIDERS = 4_000_000;
export const DEFAULT_FACILITIES = 12_000;
export const DEFAULT_SEED = 20260101;

/** Short names and relative paths of the sample files. */
export const SAMPLE_FILES = {
  gazetteer: 'census/2020_Gaz_zcta_national.txt',
  acs: 'census/acs5_2022_profile_zcta.json',
  zipZcta: 'crosswalks/zip_zcta_crosswalk.csv',
  zctaCounty: 'crosswalks/zcta_county.csv',
  countyCbsa: 'crosswalks/county_cbsa.csv',
  nchs: 'crosswalks/nchs_urban_rural_codes.csv',
  nucc: 'nucc/nucc_taxonomy_251.csv',
  nppes: NPPES_PATH,
  dac: DAC_PATH,
  hospitalGeneral: 'cms/Hospital_General_Information.csv',
  hifld: 'facilities/hifld_hospitals.csv',
  hrsa: 'facilities/hrsa_health_center_sites.csv',
  places: 'places/places_zcta_2023.csv',
} as const;

function count(name: string, value: number | undefined, fallback: number): number {
  const n = value ?? fallback;
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`${name} must be a whole number of 0 or more, got ${value}`);
  return n;
}

/** Writes the whole sample into options.outDir. */
export async function writeSample(options: SampleOptions): Promise<SampleResult> {
  const providers = count('providers', options.providers, DEFAULT_PROVIDERS);
  const facilityCount = count('facilities', options.facilities, DEFAULT_FACILITIES);
  const seed = count('seed', options.seed, DEFAULT_SEED);
  const { outDir } = options;
  const started = performance.now();
  const log = (line: string) => options.log?.(`[${((performance.now() - started) / 1000).toFixed(1)} s] ${line}`);
  const rows: Partial<Record<keyof typeof SAMPLE_FILES, number>> = {};

  const geo = loadGeography();
  const demo = buildDemographics(geo, seed);
  log(`geography: ${geo.zctas.length} ZCTAs, ${geo.postal.length} postal ZIPs`);
  rows.gazetteer = await writeGazetteer(outDir, geo, demo);
  rows.acs = await writeAcsProfile(outDir, geo, demo, seed);

  const { counties, zctaCounties } = buildCounties(geo, demo, seed);
  const metro = buildMetro(counties, seed);
  rows.zipZcta = await writeZipZcta(outDir, geo);
  rows.zctaCounty = await writeZctaCounty(outDir, geo, zctaCounties);
  rows.countyCbsa = await writeCountyCbsa(outDir, counties, metro);
  rows.nchs = await writeNchs(outDir, counties, metro);
  rows.nucc = await writeNucc(outDir);
  log(`census and crosswalks: ${counties.length} counties, ${metro.cbsas.length} CBSAs`);

  const placement = buildPlacement(geo, demo);
  const facilities = buildFacilities(geo, demo, placement, facilityCount, seed);
  const countyOf = (h: { zcta: { index: number } }) => zctaCounties[h.zcta.index]![0]!;
  rows.hospitalGeneral = await writeHospitalGeneralInformation(outDir, facilities, countyOf, seed);
  rows.hifld = await writeHifld(outDir, facilities, countyOf, seed);
  rows.hrsa = await writeHrsaSites(outDir, facilities, seed);
  log(`facilities: ${facilities.hospitals.length} hospitals, ${facilities.sites.length} health center sites`);

  const p = await writeProviderFiles(
    outDir,
    geo,
    placement,
    facilities,
    { count: providers, kinds: PROVIDER_KINDS },
    seed,
    log,
    (options.progress ?? silentCountProgress)('synthetic NPPES rows'),
  );
  rows.nppes = p.nppesRows;
  rows.dac = p.dacRows;
  log(`providers: ${p.nppesRows} NPPES rows, ${p.dacRows} DAC rows`);
  rows.places = await writePlaces(outDir, geo, demo, seed);
  // Declared to the build (manifest providers.sample_fraction_file) so supply is scaled to the full nation.
  await writeFile(
    join(outDir, 'synthetic-providers.json'),
    `${JSON.stringify({ sample_fraction: Math.min(1, +(p.individuals / NATIONAL_PROVIDERS).toPrecision(6)), providers: p.individuals, synthetic: true }, null, 2)}\n`,
  );
  log('done');

  const files = Object.fromEntries(
    Object.entries(SAMPLE_FILES).map(([name, rel]) => [
      name,
      { path: join(outDir, rel), rows: rows[name as keyof typeof SAMPLE_FILES] ?? 0 },
    ]),
  );
  return {
    files,
    zctas: geo.zctas.length,
    providers: p.individuals,
    facilities: facilities.hospitals.length + facilities.sites.length,
    organizations: p.organizations,
    deactivated: p.deactivated,
    brokenRows: p.broken,
    seed,
  };
}
