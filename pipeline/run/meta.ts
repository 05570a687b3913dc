import path from 'node:path';
import type Database from 'better-sqlite3';
import type { ValidationReport } from '../../core/validation.ts';
import { packageVersion } from '../../core/package.ts';
import { codeFingerprint } from '../base/code.ts';
import { collectGarbage } from '../base/memory.ts';
import { SCORE_TYPES, SMALL_POPULATION } from '../config/scoring.ts';
import { emitMeta } from '../emit/tables.ts';
import type { Reconciler } from '../ingest/reconcile.ts';
import { prevalenceMedians } from '../score/people.ts';
import { analyzeStore, indexStore } from '../store/open.ts';
import { SCORING_CONFIG } from './build-id.ts';
import { planId, type BuildPlan } from './plan.ts';
import type { ProviderInputs } from '../supply/index.ts';
import { CATEGORY_NAMES } from '../config/specialties.ts';
import type { Scored } from './scoring.ts';
import { syntheticProviders } from './scoring.ts';
import type { Geography, Located, Providers, Read } from './stages.ts';

/** What the build made, for its `meta` table. */
export interface Made {
  read: Read;
  geography: Geography;
  located: Located;
  providers: Providers;
  scored: Scored;
  validation: ValidationReport;
  censusValues: number;
}

/**
 * Ends the working store (the read indexes), then writes `meta`: what the build is (its id, code, inputs and
 * their reconciliation, row counts) and what it rests on (provider coverage, validation, data quality,
 * the scoring configuration). Returns the build id.
 */
export async function finishStore(
  db: Database.Database,
  plan: BuildPlan,
  reconciler: Reconciler,
  made: Made,
  now: () => Date = () => new Date(),
): Promise<string> {
  collectGarbage(); // what emitting scores, TVI and validation left behind, before SQLite sorts the indexes
  indexStore(db);
  const [sums, buildId] = await Promise.all([plan.checksums, planId(plan)]);
  const { manifest } = plan;
  const { providers, scored, read } = made;
  const inputs = providers.inputs;
  const sources = manifest.sources.map((s, i) => {
    const tally = reconciler.tallies.get(s.key);
    return {
      key: s.key,
      layout: s.layout,
      path: s.path,
      vintage: s.vintage,
      sha256: sums[i]?.sha256 ?? null,
      bytes: sums[i]?.bytes ?? null,
      rows_read: tally?.read ?? 0,
      rows_landed: tally?.landed ?? 0,
      rows_rejected: tally?.rejected ?? 0,
      source_url: s.sourceUrl,
      licence: s.licence,
      retrieved_from: s.retrievedFrom,
    };
  });
  emitMeta(db, {
    // The code that built it: `hcas diff` tells a change of code from a change of data by it.
    code: { package_version: packageVersion(), pipeline_sha256: codeFingerprint() },
    build_id: buildId,
    built_at: now().toISOString(),
    dataset: { name: manifest.name, synthetic: manifest.synthetic, notice: manifest.notice },
    manifest: path.resolve(manifest.file),
    sources,
    reconciliation: [...reconciler.tallies.values()],
    row_counts: { ...rowCounts(db), census_values: made.censusValues },
    facility_merge: { ...made.located.stats, located: made.located.placement.stats },
    provider_coverage: providerCoverage(inputs),
    validation: made.validation,
    data_quality: {
      provider: {
        status: inputs.status,
        note: inputs.note,
        sample_fraction: inputs.roster.sampleFraction,
        synthetic: syntheticProviders(manifest.synthetic),
      },
      clinicians: clinicianQuality(inputs),
      prevalence_measures: prevalenceUse(read.data.places),
      small_population_threshold: SMALL_POPULATION,
      road_times_zips: scored.scores.filter((s) => s.access.roadTimes).length,
    },
    places: made.geography.stats,
    scoring: SCORING_CONFIG,
  });
  analyzeStore(db);
  return buildId;
}

/** Rows per table, as loaded. */
function rowCounts(db: Database.Database): Record<string, number> {
  return Object.fromEntries(
    (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{ name: string }>).map(({ name }) => [
      name,
      (db.prepare(`SELECT COUNT(*) AS n FROM "${name}"`).get() as { n: number }).n,
    ]),
  );
}

/** Per score type: its PLACES measure and whether this build has it (a condition score without it has no prevalence term). */
function prevalenceUse(prevalence: Map<string, Record<string, number | null>>) {
  const available = prevalenceMedians(prevalence);
  return SCORE_TYPES.map((t) => ({
    score_type_id: t.id,
    measure: t.prevalence,
    available: t.prevalence !== null && t.prevalence in available,
  }));
}

/**
 * `meta.provider_coverage`: the supply's clinicians per 100,000 residents by category (`national`), where each
 * category comes from (`categories`), how completely the rosters count (`roster`, `states`, `shortfalls`), and the
 * count files' checks and placement (`counts`).
 */
function providerCoverage(inputs: ProviderInputs): Record<string, unknown> {
  const { roster, categories } = inputs;
  return {
    status: inputs.status,
    note: inputs.note,
    sampleFraction: roster.sampleFraction,
    national: Object.fromEntries(Object.entries(categories).map(([c, source]) => [c, source.density])),
    categories: Object.fromEntries(Object.entries(categories).map(([c, { density, ...source }]) => [c, source])),
    roster: { complete: roster.complete, national: roster.national },
    states: roster.states,
    shortfalls: roster.shortfalls,
    counts: { checks: inputs.counts.checks, placed_by: inputs.counts.placedBy },
  };
}

/**
 * `meta.data_quality.clinicians`: the category order of `zips.clinician_basis`, the categories each score type
 * weighs and their weights, and where each category comes from (the API's `data_quality.clinicians` reads them).
 */
function clinicianQuality(inputs: ProviderInputs): Record<string, unknown> {
  return {
    categories: CATEGORY_NAMES,
    score_types: Object.fromEntries(SCORE_TYPES.map((type) => [type.id, type.providers])),
    sources: Object.fromEntries(
      Object.entries(inputs.categories).map(([c, { basis, sources, estimatedFrom }]) => [
        c,
        {
          basis,
          sources: sources.map((s) => (s.year ? `${s.key} (${s.year})` : s.key)),
          ...(estimatedFrom ? { estimated_from: estimatedFrom } : {}),
        },
      ]),
    ),
  };
}
