import { collectGarbage } from '../base/memory.ts';
import { emitDirectory } from '../emit/directory.ts';
import { progressReporter, silentProgress, type ProgressFactory } from '../../core/progress.ts';
import { finishStore } from './meta.ts';
import { closeReconciliation, commitOutput, discardOutput, openOutput } from './output.ts';
import { planBuild, type BuildPlan, type PlanOptions } from './plan.ts';
import { scoreAll, validate, writeTables } from './scoring.ts';
import { stageLog } from './stage-log.ts';
import { locateFacilities, placeClinicianCounts, placeZips, readSources, supplyProviders } from './stages.ts';

export interface BuildOptions extends PlanOptions {
  out: string;
  log?: (line: string) => void;
  /** Injected clock so tests get a reproducible `built_at`. */
  now?: () => Date;
  /** Progress of long reads; default: on standard error when `log` is given, silent otherwise. */
  progress?: ProgressFactory;
}

export interface BuildSummary {
  out: string;
  buildId: string;
  zips: number;
  providers: number;
  facilities: number;
  rejectsFile: string;
  seconds: number;
}

/**
 * Builds the output database from the raw files a manifest names, stage after stage (docs/ARCHITECTURE.md,
 * "The build"). The files are written under temporary names and renamed into place only when every stage
 * succeeded, so a failed build never replaces a good one. `plan` is the one `hcas build --if-changed` decided on.
 */
export async function build(options: BuildOptions, plan: BuildPlan = planBuild(options)): Promise<BuildSummary> {
  const started = Date.now();
  const log = stageLog(options.log);
  const output = openOutput(options.out);
  const { db, reconciler } = output;
  try {
    const ingest = { progress: options.progress ?? (options.log ? progressReporter() : silentProgress) };
    const read = await log.stage(`ingest (${plan.manifest.name})`, () => readSources(plan, db, reconciler, ingest, log.line));
    const geography = await log.stage('geography', () => placeZips(read.data, db, reconciler, log.line));
    const located = await log.stage('facilities', () => locateFacilities(read.data, geography, reconciler, log.line));
    const counted = await log.stage('clinician counts', () => placeClinicianCounts(read.data, geography, reconciler, log.line));
    await closeReconciliation(output, plan.manifest.maxRejectRatio); // later stages leave no landed row out
    const providers = await log.stage('providers', () => supplyProviders(read, geography, located, counted, plan, db, log.line));
    // The directory (the build's largest arrays, for 4 million providers) before the scores, so it never
    // shares memory with their ZIP network; it reads only the providers and facilities tables.
    collectGarbage();
    await log.stage('directory', () => emitDirectory(db, read.data.taxonomy, log.line));
    collectGarbage();
    const scored = await log.stage('scores', () => scoreAll(read, geography, located, providers, log.line));
    const validation = await log.stage('validation', () => validate(read, geography, providers, scored, plan, log.line));
    const { censusValues } = await log.stage('tables', () => writeTables(db, read, geography, scored, plan, log.line));
    const made = { read, geography, located, providers, scored, validation, censusValues };
    const buildId = await log.stage('indexes and metadata', () => finishStore(db, plan, reconciler, made, options.now));
    commitOutput(output);
    log.line('reconciliation (read = landed + rejected):');
    for (const line of reconciler.report()) log.line(`  ${line}`);
    const seconds = (Date.now() - started) / 1000;
    const counts = { zips: geography.places.length, providers: providers.providers, facilities: located.facilities.length };
    return { out: options.out, buildId, ...counts, rejectsFile: output.rejectsFile, seconds };
  } catch (error) {
    discardOutput(output);
    throw error;
  }
}
