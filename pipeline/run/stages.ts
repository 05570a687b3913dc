import type Database from 'better-sqlite3';
import { collectGarbage } from '../base/memory.ts';
import { stopwatch } from '../base/stopwatch.ts';
import { FACILITY_MATCH_MILES } from '../config/scoring.ts';
import { emitFacilities, emitZipAliases } from '../emit/tables.ts';
import { facilityProviderCounts } from '../facilities/affiliations.ts';
import { placeFacilities, type FacilityPlacement } from '../facilities/locate.ts';
import { buildRoster, type Facility, type RosterStats } from '../facilities/roster.ts';
import { assemblePlaces, type PlaceStats, type ZipPlace } from '../geo/places.ts';
import type { PointIndex } from '../geo/point-index.ts';
import { STATE_NAMES } from '../geo/states.ts';
import { ingestAll } from '../ingest/index.ts';
import type { Ingested } from '../ingest/ingested.ts';
import { logLeftOut, type Reconciler } from '../ingest/reconcile.ts';
import type { IngestOptions } from '../ingest/source.ts';
import type { CarePoint } from '../score/reach.ts';
import { clinicianSupply, placeCounts, rosterSupply, type PlacedCounts, type ProviderInputs } from '../supply/index.ts';
import { widenCache } from '../store/open.ts';
import { ProviderStage } from '../store/provider-stage.ts';
import { clinicianFacilityNames, clinicianOnlyCounts, completeProviders, endStaging, type ProviderCounts } from '../store/providers.ts';
import { PLACED_LIKE } from '../config/clinician-counts.ts';
import { differs } from '../supply/counts.ts';
import type { BuildPlan } from './plan.ts';

/** The stages up to the providers: each reads what the stage before it made, and says in the log what it did. */

/** What ingest read, and the providers it staged in the working store, counted per (ZCTA, taxonomy). */
export interface Read {
  data: Ingested;
  providerCounts: ProviderCounts;
}

/** Reads every source of the manifest; the provider files go to the working store's staging as they are read. */
export async function readSources(
  plan: BuildPlan,
  db: Database.Database,
  reconciler: Reconciler,
  options: IngestOptions,
  log: (line: string) => void,
): Promise<Read> {
  const stage = new ProviderStage(db);
  const data = await ingestAll(plan.manifest, stage, reconciler, log, options);
  const providerCounts = endStaging(stage, reconciler, log);
  widenCache(db);
  collectGarbage();
  return { data, providerCounts };
}

/** The scored ZIP codes (ZCTAs): each placed where its residents live, with the index of their points. */
export interface Geography {
  places: ZipPlace[];
  index: PointIndex;
  /** A ZCTA's position in `places`. */
  zipIndex: Map<string, number>;
  /** The ZCTA a postal ZIP lies in (itself when it is one), or null. */
  zctaOfZip(zip: string): string | null;
  stats: PlaceStats;
}

/** Places every ZCTA and writes the postal ZIPs that have no area of their own (answered by the one they lie in). */
export function placeZips(data: Ingested, db: Database.Database, reconciler: Reconciler, log: (line: string) => void): Geography {
  const { places, index, stats, withdrawn } = assemblePlaces(data);
  for (const { key, line, reason, kind } of withdrawn) reconciler.withdraw(key, line, reason, kind);
  const zipIndex = new Map(places.map((p, i) => [p.zip, i]));
  const zctaOfZip = (zip: string) => data.zipToZcta.get(zip)?.zcta ?? (zipIndex.has(zip) ? zip : null);
  log(
    `  ${places.length} ZIP codes (ZCTAs); state from ${JSON.stringify(stats.stateFrom)}; residents placed at ${JSON.stringify(stats.pointFrom)}`,
  );
  logLeftOut(
    log,
    'left out of the ZIP points after landing',
    withdrawn.map(({ key }) => key),
  );
  const aliases = emitZipAliases(db, data.zipToZcta, (zip) => zipIndex.has(zip));
  log(`  ${aliases} ZIP codes without an area of their own (PO boxes, single addresses) answered by the ZIP code they lie in`);
  return { places, index, zipIndex, zctaOfZip, stats };
}

/** The facility roster (one record per hospital or site, sources merged) and where each facility lies. */
export interface Located {
  facilities: Facility[];
  stats: RosterStats;
  placement: FacilityPlacement;
}

/** Merges the facility files into one roster and places each facility in a scored ZIP. */
export function locateFacilities(data: Ingested, geography: Geography, reconciler: Reconciler, log: (line: string) => void): Located {
  const { places, index, zipIndex, zctaOfZip } = geography;
  const zipPoint = (zip: string) => places[zipIndex.get(zctaOfZip(zip) ?? '') ?? -1] ?? null;
  const roster = buildRoster(data.facilities, { zipPoint, matchMiles: FACILITY_MATCH_MILES });
  for (const { origin, reason, kind } of roster.withdrawn) reconciler.withdraw(origin.key, origin.line, reason, kind);
  const placement = placeFacilities(roster.facilities, zctaOfZip, zipIndex, places, index);
  log(
    `  ${roster.stats.input_records} source records -> ${roster.stats.hospitals} hospitals ${JSON.stringify(roster.stats.roster)}, ${roster.stats.health_center_sites} health centre sites; joined ${JSON.stringify(roster.stats.joined)}; left out ${JSON.stringify(roster.stats.excluded)}`,
  );
  logLeftOut(
    log,
    'left out of the roster after landing',
    roster.withdrawn.map(({ origin }) => origin.key),
  );
  return { facilities: roster.facilities, stats: roster.stats, placement };
}

/** The providers table completed, and the clinician supply the scores use (or why they go without it). */
export interface Providers {
  providers: number;
  inputs: ProviderInputs;
  /** Health centre (HRSA) sites: places of primary care whatever the provider files hold. */
  healthCenters: CarePoint[];
  /** The clinician count files placed in ZIPs (also what the validation report holds the supply to). */
  counted: PlacedCounts;
}

/**
 * Completes the providers table from the staged clinicians, counts each facility's clinicians and writes
 * the facilities, and measures the clinician supply of every ZIP against the manifest's provider policy.
 */
export function supplyProviders(
  read: Read,
  geography: Geography,
  located: Located,
  counted: PlacedCounts,
  plan: BuildPlan,
  db: Database.Database,
  log: (line: string) => void,
): Providers {
  const { places, zipIndex } = geography;
  const { facilities, placement } = located;
  const totals = completeProviders(db, read.data.taxonomy);
  const watch = stopwatch();
  const counts = facilityProviderCounts(clinicianFacilityNames(db), facilities);
  const countSeconds = watch();
  const healthCenters = facilities
    .filter((f) => !f.isHospital && placement.zipIndexOf.has(f.id))
    .map((f) => ({ zipIndex: placement.zipIndexOf.get(f.id)!, longitude: f.longitude!, latitude: f.latitude! }));
  const inputs = clinicianSupply({
    places,
    placed: counted,
    roster: rosterSupply(read.providerCounts, clinicianOnlyCounts(db), zipIndex),
    policy: plan.policy,
    healthCenterZips: healthCenters.map((site) => site.zipIndex),
    manifestFile: plan.manifest.file,
  });
  const { clinicians, completed, clinicianOnly } = totals.seconds;
  log(
    `  ${totals.providers} providers (${totals.clinicianOnly} known only from Doctors and Clinicians); provider component ${inputs.status}: ${inputs.note}`,
  );
  log(
    `  steps: clinicians grouped ${clinicians.toFixed(1)} s, NPPES rows completed ${completed.toFixed(1)} s, clinician-only rows ${clinicianOnly.toFixed(1)} s, facility counts ${countSeconds.toFixed(1)} s, supply ${watch().toFixed(1)} s`,
  );
  emitFacilities(
    db,
    facilities,
    (f) => places[placement.zipIndexOf.get(f.id) ?? -1]?.zip ?? null,
    (f) => placement.precision.get(f.id) ?? 'none',
    counts,
    (code) => STATE_NAMES[code] ?? code,
  );
  return { providers: totals.providers, inputs, healthCenters, counted };
}

/**
 * Places the clinician count files in the ZIPs (each county's count from the file that wins it, spread within
 * the county by tracts or residents), and reports the files' own totals against their summary rows. Before
 * the reconciliation closes: a count row that lands in no county of the build is reported there.
 */
export function placeClinicianCounts(
  data: Ingested,
  geography: Geography,
  reconciler: Reconciler,
  log: (line: string) => void,
): PlacedCounts {
  const { places, zipIndex, zctaOfZip } = geography;
  const counted = placeCounts({ places, zipIndex, zctaOfZip, data });
  for (const { key, line, reason } of counted.withdrawn) reconciler.withdraw(key, line, reason, 'excluded');
  logLeftOut(
    log,
    'clinician count rows left out after landing',
    counted.withdrawn.map(({ key }) => key),
  );
  logCountChecks(counted, log);
  return counted;
}

/** The count files' own totals against their summary rows, and where their clinicians went, in the build log. */
function logCountChecks(counted: PlacedCounts, log: (line: string) => void): void {
  const n = (x: number) => Math.round(x).toLocaleString('en-US');
  for (const check of counted.checks) {
    const nation =
      check.nation === null
        ? 'no national row'
        : differs(check.nation, check.areas)
          ? `DIFFERS from its national row ${n(check.nation)} by ${n(check.areas - check.nation)}`
          : `agrees with its national row ${n(check.nation)}`;
    log(`  counts ${check.source} ${check.kind} (${check.year}): ${n(check.areas)} in its areas, ${nation}`);
    if (check.statesDiffering.length)
      log(
        `    ${check.statesDiffering.length} state rows differ from their areas: ${check.statesDiffering
          .slice(0, 5)
          .map((s) => `${s.state} ${n(s.row)} vs ${n(s.areas)}`)
          .join(', ')}${check.statesDiffering.length > 5 ? ', ...' : ''}`,
      );
    for (const pool of check.pooled)
      log(
        `    ${n(pool.amount)} under ${pool.codes.length} codes no crosswalk names (state ${pool.state}: ${pool.codes.slice(0, 4).join(', ')}${pool.codes.length > 4 ? ', ...' : ''}) spread over the state's counties by residents`,
      );
  }
  for (const [kind, { placedBy: by }] of counted.kinds)
    log(
      `  counts ${kind} placed by: own tracts or ZIPs ${n(by.own_pattern)}, another file's tracts ${n(by.older_pattern)}, ${PLACED_LIKE[kind] ?? 'another kind'}'s tracts ${n(by.like_pattern)}, residents ${n(by.residents)}`,
    );
}
