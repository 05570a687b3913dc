import type Database from 'better-sqlite3';
import type { ValidationReport } from '../../core/validation.ts';
import { emitBlog } from '../emit/blog.ts';
import { emitCensus, emitReference, emitScores, emitTvi } from '../emit/tables.ts';
import { scoredHospitals, type ScoredHospital } from '../facilities/hospitals.ts';
import { scoreZips, type ZipScores } from '../score/index.ts';
import { computeTvi, type TviRecord } from '../score/tvi.ts';
import { validateBuild } from '../validate/index.ts';
import { basisLetters, CLINICIAN_BASES } from '../supply/index.ts';
import type { Category } from '../config/specialties.ts';
import type { BuildPlan } from './plan.ts';
import type { Geography, Located, Providers, Read } from './stages.ts';

/** The stages from the scores on: scored, checked against independent measures, written. */

/** Every ZIP's scores and TVI, and the hospitals they were measured against. */
export interface Scored {
  hospitals: ScoredHospital[];
  scores: ZipScores[];
  tvi: TviRecord[];
  /** Each ZIP's clinician sources, one letter per category (null without a provider component). */
  clinicianBasis: string[] | null;
}

/** Scores every ZIP for every score type, then its Transportation Vulnerability Index. Pure: nothing is written. */
export function scoreAll(read: Read, geography: Geography, located: Located, providers: Providers, log: (line: string) => void): Scored {
  const { data } = read;
  const { places, index } = geography;
  const hospitals = scoredHospitals(located.facilities, located.placement.zipIndexOf);
  const driveTimes = {
    hospital: data.driveTimes.get('hospital') ?? null,
    healthCenter: data.driveTimes.get('health_center') ?? null,
  };
  const scores = scoreZips(
    {
      places,
      index,
      census: data.census,
      prevalence: data.places,
      providerSupply: providers.inputs.supply,
      providerSourced: providers.inputs.supply ? sourcedMask(providers.inputs.basis) : null,
      providerProportional: providers.inputs.proportional,
      hospitals,
      healthCenters: providers.healthCenters,
      driveTimes,
    },
    log,
  );
  const clinicianBasis = providers.inputs.supply ? basisLetters(providers.inputs.basis, places.length) : null;
  return { hospitals, scores, tvi: computeTvi(places, data.census, data.places, scores), clinicianBasis };
}

/** The build's validation report (docs/VALIDATION.md), each check in the log. */
export function validate(
  read: Read,
  geography: Geography,
  providers: Providers,
  scored: Scored,
  plan: BuildPlan,
  log: (line: string) => void,
): ValidationReport {
  const validation = validateBuild(geography.places, scored.scores, scored.hospitals, read.data, {
    syntheticProviders: syntheticProviders(plan.manifest.synthetic),
    clinicians: { supply: providers.inputs.sourced, counts: providers.counted, sampleFraction: providers.inputs.roster.sampleFraction },
  });
  for (const check of validation.checks)
    log(`  validation ${check.pass ? 'ok  ' : 'FAIL'} ${check.name}: ${check.value} (target ${check.target})`);
  return validation;
}

/** Writes the scores, the reference measures, the census values, the blog and the TVI; returns the census rows written. */
export function writeTables(
  db: Database.Database,
  read: Read,
  geography: Geography,
  scored: Scored,
  plan: BuildPlan,
  log: (line: string) => void,
): { censusValues: number } {
  const { data } = read;
  const { places, index } = geography;
  emitScores(db, places, index, scored.scores, scored.clinicianBasis);
  emitReference(db, places, data.reference, data.zctaRuca);
  const censusValues = emitCensus(db, places, data.census);
  emitBlog(db, plan.blogPosts);
  const cbsaTitles = new Map([...data.countyCbsa.values()].map((c) => [c.cbsaCode, { title: c.cbsaTitle, type: c.cbsaType }]));
  const metros = emitTvi(db, places, scored.tvi, cbsaTitles);
  log(`  TVI for ${scored.tvi.length} ZIPs and ${metros} metro/micro areas`);
  return { censusValues };
}

/** Whether the manifest declares its providers synthetic (all of the data, or the "providers" part). */
export function syntheticProviders(synthetic: boolean | string[]): boolean {
  return synthetic === true || (Array.isArray(synthetic) && synthetic.includes('providers'));
}

/** 1 where a category's clinicians have a source in a ZIP, 0 where none counts them. */
function sourcedMask(basis: Record<Category, Uint8Array>): Record<Category, Uint8Array> {
  const none = CLINICIAN_BASES.indexOf('none');
  return Object.fromEntries(Object.entries(basis).map(([c, codes]) => [c, codes.map((b) => (b === none ? 0 : 1))])) as Record<
    Category,
    Uint8Array
  >;
}
