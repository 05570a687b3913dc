import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { buildId as buildIdOf, SCORING_CONFIG } from './build-id.ts';
import { createIndexes, createSchema } from './emit/schema.ts';
import { emitCensus, emitFacilities, emitMeta, emitReference, emitScores, emitTvi, emitZipAliases } from './emit/tables.ts';
import { emitProviders, facilityProviderCounts, providerSupply } from './emit/providers.ts';
import { stopwatch } from './base/stopwatch.ts';
import { collectGarbage } from './base/memory.ts';
import { emitBlog } from './emit/blog.ts';
import { emitDirectory } from './emit/directory.ts';
import { emitWidgetScript } from './emit/widget.ts';
import { readBlogPosts } from './ingest/blog.ts';
import { BuildError } from './base/errors.ts';
import { scoredHospitals } from './facilities/hospitals.ts';
import { placeFacilities } from './facilities/locate.ts';
import { buildRoster } from './facilities/roster.ts';
import { assemblePlaces } from './geo/places.ts';
import { STATE_NAMES } from './geo/states.ts';
import { ingestAll } from './ingest/index.ts';
import { Reconciler } from './ingest/reconcile.ts';
import { progressReporter, silentProgress, type ProgressFactory } from '../core/progress.ts';
import type { IngestOptions } from './ingest/source.ts';
import { LAYOUTS } from './layouts/index.ts';
import { loadManifest, sourceChecksums, type Manifest } from './config/manifest.ts';
import { FACILITY_MATCH_MILES } from './config/scoring.ts';
import { scoreZips } from './score/index.ts';
import { providerInputs } from './score/provider-inputs.ts';
import { computeTvi } from './score/tvi.ts';
import { validateBuild } from './validate/index.ts';
import { prevalenceMedians } from './score/people.ts';
import { SCORE_TYPES, SMALL_POPULATION } from './config/scoring.ts';

export interface BuildOptions {
  manifest: string;
  out: string;
  /** Folder the manifest's paths are relative to, instead of its own `root`. */
  root?: string;
  log?: (line: string) => void;
  /** Injected clock so tests get a reproducible `built_at`. */
  now?: () => Date;
  /** Folder of the blog's Markdown posts (default `content/blog/`). */
  blogDir?: string;
  /** Publish scores without a provider component when provider coverage is partial (the manifest's `providers.on_partial_coverage`). */
  allowPartialProviders?: boolean;
  /** Progress of long reads; default: on standard error when `log` is given, silent otherwise. */
  progress?: ProgressFactory;
  /** Which reader splits the input files (tests compare the fast one with the reference). */
  reader?: IngestOptions['reader'];
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

/** SQLite page cache (negative: KiB) while ingest appends rows, and for the stages after it. */
const INGEST_CACHE_KIB = -16_384;
const CACHE_KIB = -262_144;
/**
 * SQLite page cache (KiB) while the read indexes are built. SQLite sorts an index in memory up to the cache's
 * size before it spills, so with the large cache the providers' NPI index took 120-180 MB above a cache
 * already full: the build's peak (1.43 GiB at full scale). With 64 MiB the sort runs in the pages the smaller
 * cache frees: no memory above the peak before it, in the same 4-5 s (measured on the full-scale database).
 */
const INDEX_CACHE_KIB = -65_536;

/**
 * Creates the output database as ingest writes it: no journal, the schema, and the scratch database attached
 * as `stage` (staging tables that are dropped with it); on failure both files are removed. The benchmark's
 * NPPES-only ingest opens it the same way.
 */
export function openForIngest(file: string, stageFile: string): Database.Database {
  const db = new Database(file);
  try {
    db.pragma('journal_mode = OFF');
    db.pragma('synchronous = OFF');
    // Ingest only appends to the output (providers): a large page cache would hold 250 MB of rows already
    // written (a national build peaked at 1.9 GB with it, 1.65 GB without). The later stages read, join and
    // sort, and get the large cache.
    db.pragma(`cache_size = ${INGEST_CACHE_KIB}`);
    db.pragma('temp_store = MEMORY');
    db.prepare('ATTACH DATABASE ? AS stage').run(stageFile);
    db.exec('PRAGMA stage.journal_mode = OFF; PRAGMA stage.synchronous = OFF');
    createSchema(db);
    return db;
  } catch (error) {
    db.close();
    for (const made of [file, stageFile]) rmSync(made, { force: true });
    throw error;
  }
}

/**
 * Builds the output database from the raw files a manifest names. Writes to a temporary file beside
 * `out` and renames it into place only when everything succeeded, so a failed build never replaces a good one.
 */
export async function build(options: BuildOptions): Promise<BuildSummary> {
  const started = Date.now();
  const print = options.log ?? (() => {});
  // Section headers (unindented lines) carry the elapsed time and memory, so a slow or hungry stage shows in every build log.
  const log = (line: string) =>
    print(
      line.startsWith(' ')
        ? line
        : `${line.padEnd(40)} ${((Date.now() - started) / 1000).toFixed(1).padStart(6)} s ${String(Math.round(process.memoryUsage.rss() / 2 ** 20)).padStart(6)} MB`,
    );
  const manifest = loadManifest(options.manifest, new Set(LAYOUTS.keys()), options.root);
  const blogPosts = readBlogPosts(options.blogDir); // before the long stages, so a bad post fails the build at once
  const outDir = path.dirname(path.resolve(options.out));
  mkdirSync(outDir, { recursive: true });
  const tmp = `${options.out}.tmp-${process.pid}`;
  const stageFile = `${options.out}.stage-${process.pid}`;
  const rejectsFile = rejectsFileOf(options.out);
  const rejectsTmp = `${rejectsFile}.tmp-${process.pid}`;
  for (const file of [tmp, stageFile, rejectsTmp]) rmSync(file, { force: true });
  const db = openForIngest(tmp, stageFile);
  try {
    const checksums = sourceChecksums(manifest);

    log(`ingest (${manifest.name}):`);
    const reconciler = new Reconciler(rejectsTmp);
    const data = await ingestAll(manifest, db, reconciler, log, {
      reader: options.reader,
      progress: options.progress ?? (options.log ? progressReporter() : silentProgress),
    });

    db.pragma(`cache_size = ${CACHE_KIB}`);
    collectGarbage();
    log('geography:');
    const { places, index, stats: placeStats, withdrawn: pointsLeftOut } = assemblePlaces(data);
    for (const { key, line, reason, kind } of pointsLeftOut) reconciler.withdraw(key, line, reason, kind);
    const zipIndex = new Map(places.map((p, i) => [p.zip, i]));
    const zctaOfZip = (zip: string) => data.zipToZcta.get(zip)?.zcta ?? (zipIndex.has(zip) ? zip : null);
    log(
      `  ${places.length} ZIP codes (ZCTAs); state from ${JSON.stringify(placeStats.stateFrom)}; residents placed at ${JSON.stringify(placeStats.pointFrom)}`,
    );
    logLeftOut(
      log,
      'left out of the ZIP points after landing',
      pointsLeftOut.map(({ key }) => key),
    );
    const aliases = emitZipAliases(db, data.zipToZcta, (zip) => zipIndex.has(zip));
    log(`  ${aliases} ZIP codes without an area of their own (PO boxes, single addresses) answered by the ZIP code they lie in`);

    log('facilities:');
    const zipPoint = (zip: string) => places[zipIndex.get(zctaOfZip(zip) ?? '') ?? -1] ?? null;
    const roster = buildRoster(data.facilities, { zipPoint, matchMiles: FACILITY_MATCH_MILES });
    for (const { origin, reason, kind } of roster.withdrawn) reconciler.withdraw(origin.key, origin.line, reason, kind);
    await reconciler.close();
    checkRejectRatio(reconciler, manifest.maxRejectRatio, rejectsFile);
    const located = placeFacilities(roster.facilities, zctaOfZip, zipIndex, places, index);
    log(
      `  ${roster.stats.input_records} source records -> ${roster.stats.hospitals} hospitals ${JSON.stringify(roster.stats.roster)}, ${roster.stats.health_center_sites} health centre sites; joined ${JSON.stringify(roster.stats.joined)}; left out ${JSON.stringify(roster.stats.excluded)}`,
    );
    logLeftOut(
      log,
      'left out of the roster after landing',
      roster.withdrawn.map(({ origin }) => origin.key),
    );

    log('providers:');
    const providerTotals = emitProviders(db, data.taxonomy);
    const providerWatch = stopwatch();
    const counts = facilityProviderCounts(db, roster.facilities);
    const countSeconds = providerWatch();
    const healthCenters = roster.facilities
      .filter((f) => !f.isHospital && located.zipIndexOf.has(f.id))
      .map((f) => ({ zipIndex: located.zipIndexOf.get(f.id)!, longitude: f.longitude!, latitude: f.latitude! }));
    const policy = providerPolicy(manifest, options);
    const providers = providerInputs(places, providerSupply(db, data.providerCounts, zipIndex), policy, healthCenters, manifest.file);
    const { clinicians, completed, clinicianOnly } = providerTotals.seconds;
    log(
      `  ${providerTotals.providers} providers (${providerTotals.clinicianOnly} known only from Doctors and Clinicians); provider component ${providers.status}: ${providers.note}`,
    );
    log(
      `  steps: clinicians grouped ${clinicians.toFixed(1)} s, NPPES rows completed ${completed.toFixed(1)} s, clinician-only rows ${clinicianOnly.toFixed(1)} s, facility counts ${countSeconds.toFixed(1)} s, supply ${providerWatch().toFixed(1)} s`,
    );
    emitFacilities(
      db,
      roster.facilities,
      (f) => places[located.zipIndexOf.get(f.id) ?? -1]?.zip ?? null,
      (f) => located.precision.get(f.id) ?? 'none',
      counts,
      (code) => STATE_NAMES[code] ?? code,
    );

    // The directory (the build's largest arrays, for 4 million providers) before the scores, so it never
    // shares memory with their ZIP network; it reads only the providers and facilities tables.
    collectGarbage();
    log('directory:');
    emitDirectory(db, data.taxonomy, log);

    collectGarbage();
    log('scores:');
    const hospitals = scoredHospitals(roster.facilities, located.zipIndexOf);
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
        providerSupply: providers.supply,
        hospitals,
        healthCenters,
        driveTimes,
      },
      log,
    );
    emitScores(db, places, index, scores);
    emitReference(db, places, data.reference, data.zctaRuca);
    const censusRows = emitCensus(db, places, data.census);
    emitBlog(db, blogPosts);
    const tvi = computeTvi(places, data.census, data.places, scores);
    const cbsaTitles = new Map([...data.countyCbsa.values()].map((c) => [c.cbsaCode, { title: c.cbsaTitle, type: c.cbsaType }]));
    const metros = emitTvi(db, places, tvi, cbsaTitles);
    log(`  TVI for ${tvi.length} ZIPs and ${metros} metro/micro areas`);
    const validation = validateBuild(places, scores, hospitals, data, { syntheticProviders: syntheticProviders(manifest.synthetic) });
    for (const check of validation.checks)
      log(`  validation ${check.pass ? 'ok  ' : 'FAIL'} ${check.name}: ${check.value} (target ${check.target})`);
    collectGarbage(); // what emitting scores, TVI and validation left behind, before SQLite sorts the indexes
    log('indexes and metadata:');
    db.exec('DETACH DATABASE stage');
    db.pragma(`cache_size = ${INDEX_CACHE_KIB}`);
    createIndexes(db);
    const sums = await checksums;
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
    const buildId = buildIdOf({ sourceChecksums: sources.map((s) => s.sha256), providers: policy, blogPosts });
    const rowCounts = Object.fromEntries(
      (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{ name: string }>).map(({ name }) => [
        name,
        (db.prepare(`SELECT COUNT(*) AS n FROM "${name}"`).get() as { n: number }).n,
      ]),
    );
    emitMeta(db, {
      build_id: buildId,
      built_at: (options.now ?? (() => new Date()))().toISOString(),
      dataset: { name: manifest.name, synthetic: manifest.synthetic, notice: manifest.notice },
      manifest: path.resolve(manifest.file),
      sources,
      reconciliation: [...reconciler.tallies.values()],
      row_counts: { ...rowCounts, census_values: censusRows },
      facility_merge: { ...roster.stats, located: located.stats },
      provider_coverage: { status: providers.status, note: providers.note, ...providers.coverage },
      validation,
      data_quality: {
        provider: {
          status: providers.status,
          note: providers.note,
          sample_fraction: providers.coverage.sampleFraction,
          synthetic: syntheticProviders(manifest.synthetic),
        },
        prevalence_measures: prevalenceUse(data.places),
        small_population_threshold: SMALL_POPULATION,
        road_times_zips: scores.filter((s) => s.access.roadTimes).length,
      },
      places: placeStats,
      scoring: SCORING_CONFIG,
    });
    // Sampled statistics are all the planner needs; a full ANALYZE reads every row of 4 million providers.
    db.exec('PRAGMA analysis_limit = 2000; ANALYZE');
    db.close();
    renameSync(rejectsTmp, rejectsFile);
    renameSync(tmp, options.out);
    emitWidgetScript(outDir);
    rmSync(stageFile, { force: true });
    log('reconciliation (read = landed + rejected):');
    for (const line of reconciler.report()) log(`  ${line}`);
    return {
      out: options.out,
      buildId,
      zips: places.length,
      providers: providerTotals.providers,
      facilities: roster.facilities.length,
      rejectsFile,
      seconds: (Date.now() - started) / 1000,
    };
  } catch (error) {
    if (db.open) db.close();
    for (const file of [tmp, stageFile, rejectsTmp]) rmSync(file, { force: true });
    throw error;
  }
}

/** Whether the manifest declares its providers synthetic (all of the data, or the "providers" part). */
function syntheticProviders(synthetic: boolean | string[]): boolean {
  return synthetic === true || (Array.isArray(synthetic) && synthetic.includes('providers'));
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
 * Says how many rows of each source a stage left out after they landed: the ingest table counted them as
 * landed, the reconciliation at the end counts them rejected, and this line is the difference.
 */
function logLeftOut(log: (line: string) => void, what: string, keys: readonly string[]): void {
  if (keys.length === 0) return;
  const counts = new Map<string, number>();
  for (const key of keys) counts.set(key, (counts.get(key) ?? 0) + 1);
  log(`  ${what}, so rejected in the reconciliation: ${[...counts].map(([key, n]) => `${key} ${n}`).join(', ')}`);
}

function checkRejectRatio(reconciler: Reconciler, maxRatio: number, rejectsFile: string): void {
  const over = [...reconciler.tallies.values()].filter((t) => t.read > 0 && t.invalid / t.read > maxRatio);
  if (over.length === 0) return;
  const detail = over
    .map(
      (t) =>
        `${t.key}: ${t.invalid} of ${t.read} rows invalid (${((100 * t.invalid) / t.read).toFixed(1)}%), e.g. ${Object.values(t.reasons).find((r) => r.kind === 'invalid')?.example ?? ''}`,
    )
    .join('; ');
  throw new BuildError(
    `too many invalid rows (limit ${(maxRatio * 100).toFixed(1)}% per file, max_reject_ratio in the manifest): ${detail}. The build was not written; see the reasons above and fix the input or its layout/columns in the manifest (rejects would go to ${rejectsFile}).`,
  );
}

/** The rejects file of an output: beside it, named after it (`dist-api/hcas.sqlite` -> `dist-api/hcas.rejects.csv`). */
export function rejectsFileOf(out: string): string {
  const file = path.resolve(out);
  return path.join(path.dirname(file), `${path.basename(file, path.extname(file))}.rejects.csv`);
}

/** The provider policy of a build: the manifest's, unless `--allow-partial-providers` asks to omit the component. */
function providerPolicy(manifest: Manifest, options: Pick<BuildOptions, 'allowPartialProviders'>): Manifest['providers'] {
  return options.allowPartialProviders ? { ...manifest.providers, onPartialCoverage: 'omit_component' as const } : manifest.providers;
}

/**
 * The id a build of these options would have now, and whether `out` already holds it: then its inputs,
 * provider policy, configuration and the pipeline's code are unchanged since it was built, and a new build
 * would write the same file. Costs a checksum of every input (about a second for the default build).
 */
export async function currentBuild(
  options: Pick<BuildOptions, 'manifest' | 'out' | 'root' | 'blogDir' | 'allowPartialProviders'>,
): Promise<{ buildId: string; upToDate: boolean }> {
  const manifest = loadManifest(options.manifest, new Set(LAYOUTS.keys()), options.root);
  const blogPosts = readBlogPosts(options.blogDir);
  const sums = await sourceChecksums(manifest);
  const buildId = buildIdOf({
    sourceChecksums: sums.map((sum) => sum?.sha256 ?? null),
    providers: providerPolicy(manifest, options),
    blogPosts,
  });
  return { buildId, upToDate: existsSync(options.out) && storedBuildId(options.out) === buildId && existsSync(rejectsFileOf(options.out)) };
}

/** The build id stored in an output file, or null when it is not a readable build. */
function storedBuildId(file: string): string | null {
  try {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      const row = db.prepare("SELECT value FROM meta WHERE key = 'build_id'").get() as { value: string } | undefined;
      return row ? (JSON.parse(row.value) as string) : null;
    } finally {
      db.close();
    }
  } catch {
    return null;
  }
}
