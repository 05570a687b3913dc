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
    provider_coverage: { status: inputs.status, note: inputs.note, ...inputs.coverage },
    validation: made.validation,
    data_quality: {
      provider: {
        status: inputs.status,
        note: inputs.note,
        sample_fraction: inputs.coverage.sampleFraction,
        synthetic: syntheticProviders(manifest.synthetic),
      },
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
