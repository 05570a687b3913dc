import { fcaIndexed } from '../accessibility.ts';
import type { ScoredHospital } from '../facilities/hospitals.ts';
import type { SourcedValue } from '../ingest/ingested.ts';
import type { ZipPlace } from '../geo/places.ts';
import { PointIndex } from '../geo/point-index.ts';
import { collectGarbage } from '../base/memory.ts';
import { composite, type Components } from './composite.ts';
import {
  HOSPITAL_STEPS,
  NETWORK_MAX_MILES,
  SAME_TRIP_MILES,
  PROVIDER_BENCHMARKS,
  PROVIDER_STEPS,
  LOCAL_CARE_CATEGORIES,
  PLACE_OF_CARE_MIN_CLINICIANS,
  PROVIDER_MIN_SOURCED_WEIGHT,
  SCORE_TYPES,
  SMALL_POPULATION,
} from '../config/scoring.ts';
import { hospitalParts, hospitalScore, type HospitalParts } from './hospital.ts';
import { mobilityGapPct } from './mobility.ts';
import { buildNetwork, nearestSupplyMiles, stepWeights, type ZipNetwork } from './network.ts';
import { peopleScore, socialNeed } from './people.ts';
import { nearer, nearestCare, nearestMiles, toMinutes, type CarePoint, type DriveTimes, type Minutes } from './reach.ts';
import { minutesPerStraightMile, residentsRoadMinutes } from './road-times.ts';
import { logScore } from './scale.ts';
import { CATEGORY_NAMES, type Category } from '../config/specialties.ts';
import { travelScore } from './travel.ts';

export interface ScoreInput {
  places: ZipPlace[];
  index: PointIndex;
  census: Map<string, Map<string, SourcedValue>>;
  prevalence: Map<string, Record<string, number | null>>;
  /**
   * Clinicians per category practising in each ZIP (by ZIP index), already scaled up for a declared sample;
   * null when the provider files cannot support a provider component (partial coverage, accepted by opt-in).
   */
  providerSupply: Record<Category, Float64Array> | null;
  /**
   * Per category and ZIP, 1 where a source counts the category's clinicians there (supply/), 0 where none does:
   * such a ZIP neither draws on nor is scored for the category, which leaves its score types' weighted means.
   */
  providerSourced: Record<Category, Uint8Array> | null;
  /** Categories whose supply is a multiple of another array (estimates; supply/ ProviderInputs.proportional). */
  providerProportional?: Partial<Record<Category, { base: Float64Array; factor: number }>>;
  hospitals: ScoredHospital[];
  /** Health centre (HRSA) sites: places of primary care whatever the provider files hold. */
  healthCenters: CarePoint[];
  driveTimes: DriveTimes;
}

/** Per-ZIP travel facts the API reports beside the scores (widget, TVI) and the validation report reads. */
export interface ZipAccess {
  nearestHospitalMiles: number | null;
  nearestHospitalId: number | null;
  /** Miles to the nearest primary care: a clinician's ZIP (measured provider files) or a health centre site. */
  nearestPrimaryCareMiles: number | null;
  hospitalsWithin10Miles: number;
  /** Primary care clinicians practising within 10 miles; null when the provider files are not measured. */
  primaryCareWithin10Miles: number | null;
  emergencyMinutes: number;
  careMinutes: number;
  majorHospitalMinutes: number;
  /** Whether a road-network table gave the emergency or care minutes (else straight-line miles). */
  roadTimes: boolean;
  /** Staffed beds per 1,000 residents within reach (E2SFCA). */
  bedsPer1000: number;
  /** Mean CMS star rating of rated hospitals within reach, null when none is rated. */
  meanRatingNearby: number | null;
}

/** One score type's components and composite for one ZIP, and whether its PLACES measure entered. */
export interface TypeScore extends Components {
  healthscore: number;
  prevalenceUsed: boolean;
}

export interface ZipScores {
  /** In SCORE_TYPES order. */
  byType: TypeScore[];
  hospital: HospitalParts;
  access: ZipAccess;
  /** Households with neither a vehicle nor transit, percent (see mobility.ts). */
  mobilityGapPct: number;
  /** Census need measures this ZIP had no value for (they took the national median). */
  imputed: string[];
  smallPopulation: boolean;
}

const round1 = (x: number) => Math.round(x * 10) / 10;

/** Scores every ZIP for every score type. Pure: all inputs in memory, no disk. */
export function scoreZips(input: ScoreInput, log: (line: string) => void = () => {}): ZipScores[] {
  const { places } = input;
  const { categoryScore, reach, bedAccess } = measureOverNetwork(input, log);
  // The network is garbage now: collected here, its 260 MB of typed arrays (national scale) are not resident
  // while the per-ZIP results below are assembled, the stage's largest heap (measured: the build's peak).
  collectGarbage();
  const hospital = hospitalParts(places, input.hospitals, bedAccess, reach.emergency, reach.major);
  const need = socialNeed(places, input.census, input.prevalence);
  const gaps = mobilityGaps(input);
  const facts = accessFacts(input, reach).map((fact, i) => ({
    ...fact,
    bedsPer1000: Number.isFinite(bedAccess[i]) ? Math.round(bedAccess[i] * 1000 * 100) / 100 : 0,
    meanRatingNearby: hospital[i].quality === null ? null : Math.round((1 + (hospital[i].quality! * 4) / 100) * 100) / 100,
  }));

  return places.map((place, i) => ({
    byType: SCORE_TYPES.map((type, t) => {
      const people = peopleScore(type, place.zip, i, need, input.prevalence);
      const specialist = reach.specialist ? reach.specialist[t][i] : reach.major.minutes[i];
      const components: Components = {
        people: Math.round(people.score),
        provider:
          categoryScore && input.providerSourced!.primary_care[i]
            ? roundOrNull(weighted(type.providers, (category) => categoryScore[category][i]))
            : null,
        hospital: Math.round(hospitalScore(hospital[i])),
        travel: Math.round(travelScore(reach.care.minutes[i], specialist, gaps[i])),
      };
      return { ...components, healthscore: composite(components), prevalenceUsed: people.prevalenceUsed };
    }),
    hospital: hospital[i],
    access: facts[i],
    mobilityGapPct: gaps[i],
    imputed: need.imputed[i],
    smallPopulation: (place.population ?? 0) < SMALL_POPULATION,
  }));
}

/** What is measured over the ZIP-to-ZIP travel network, which is built here and dropped on return. */
function measureOverNetwork(
  input: ScoreInput,
  log: (line: string) => void,
): { categoryScore: Record<Category, Float64Array> | null; reach: Reach; bedAccess: Float64Array } {
  const { places } = input;
  const network = buildNetwork(places, input.index, NETWORK_MAX_MILES);
  log(`  network: ${places.length} ZIPs, ${network.from.length} edges within ${NETWORK_MAX_MILES} miles`);
  const demand = Float64Array.from(places, (p) => Math.max(0, p.population ?? 0));
  // Every provider category shares one set of steps: weigh the national network's edges once per set.
  const weightsBySteps = new Map<Array<[number, number]>, Float64Array>();
  const weightsOf = (steps: Array<[number, number]>) =>
    weightsBySteps.get(steps) ?? weightsBySteps.set(steps, stepWeights(network, steps)).get(steps)!;
  const fca = (supply: Float64Array, steps: Array<[number, number]>, demandOf: Float64Array = demand) =>
    fcaIndexed({ demand: demandOf, supply, edgeDemand: network.from, edgeSupply: network.to, edgeWeight: weightsOf(steps) });

  const categoryScore = input.providerSupply
    ? providerScores(input.providerSupply, input.providerSourced!, input.providerProportional ?? {}, demand, fca)
    : null;
  const reach = careReach(input, network);
  const beds = new Float64Array(places.length);
  for (const h of input.hospitals) beds[h.zipIndex] += h.beds;
  return { categoryScore, reach, bedAccess: fca(beds, HOSPITAL_STEPS) };
}

/**
 * Clinician accessibility per 100,000 residents for every category (E2SFCA), scored against its benchmark;
 * NaN where no source counts the category. The residents of such ZIPs do not compete for the supply nearby
 * either: a county whose clinicians no file counts is unknown, not empty, and its residents would otherwise
 * dilute its neighbours' supply.
 */
function providerScores(
  supply: Record<Category, Float64Array>,
  sourced: Record<Category, Uint8Array>,
  proportional: Partial<Record<Category, { base: Float64Array; factor: number }>>,
  demand: Float64Array,
  fca: (supply: Float64Array, steps: Array<[number, number]>, demand: Float64Array) => Float64Array,
): Record<Category, Float64Array> {
  // E2SFCA is linear in supply: categories estimated as multiples of one placed total (with the same ZIPs
  // counted) share its accessibility, measured once.
  const byBase = new Map<Float64Array, Float64Array>();
  const scores = {} as Record<Category, Float64Array>;
  for (const category of CATEGORY_NAMES) {
    const known = sourced[category];
    if (!known.includes(1)) {
      scores[category] = new Float64Array(known.length).fill(Number.NaN);
      continue;
    }
    const counted = known.every((k) => k === 1) ? demand : demand.map((d, i) => (known[i] ? d : 0));
    const scaled = proportional[category];
    let access: Float64Array;
    if (scaled) {
      let base = byBase.get(scaled.base);
      if (!base) byBase.set(scaled.base, (base = fca(scaled.base, PROVIDER_STEPS, counted)));
      access = base.map((a) => a * scaled.factor);
    } else access = fca(supply[category], PROVIDER_STEPS, counted);
    scores[category] = access.map((a, i) => (known[i] ? logScore(a * 100_000, PROVIDER_BENCHMARKS[category]) : Number.NaN));
  }
  return scores;
}

/**
 * The weighted mean over the categories with a score (NaN: no source), or NaN when those carry less than
 * PROVIDER_MIN_SOURCED_WEIGHT of the weights.
 */
function weighted(weights: Partial<Record<Category, number>>, value: (category: Category) => number): number {
  let sum = 0;
  let sourced = 0;
  let total = 0;
  for (const [category, weight] of Object.entries(weights) as Array<[Category, number]>) {
    total += weight;
    const v = value(category);
    if (Number.isNaN(v)) continue;
    sum += weight * v;
    sourced += weight;
  }
  return sourced > 0 && sourced >= PROVIDER_MIN_SOURCED_WEIGHT * total ? sum / sourced : Number.NaN;
}

function roundOrNull(value: number): number | null {
  return Number.isNaN(value) ? null : Math.round(value);
}

interface Reach {
  emergency: Minutes;
  major: Minutes;
  /** The nearest place of care: a health centre site, a general hospital, or (measured providers) a primary care clinician. */
  care: Minutes;
  /** Minutes to the nearest clinician of each score type's specialties (SCORE_TYPES order), when providers are measured; else the major hospital stands in. */
  specialist: Float64Array[] | null;
  /** Straight-line miles to the nearest primary care (clinician or health centre), for the API. */
  primaryCareMiles: Float64Array;
}

/**
 * Minutes from every ZIP to each kind of care: a road-network table's where it describes the ZIP's residents
 * (road-times.ts) and times a trip to that kind of care, straight-line miles from the residents' point otherwise.
 */
function careReach(input: ScoreInput, network: ZipNetwork): Reach {
  const { places, hospitals, driveTimes } = input;
  const atZip = (zipIndex: number): CarePoint => ({ zipIndex, longitude: places[zipIndex].longitude, latitude: places[zipIndex].latitude });
  const hospitalMiles = nearestMiles(places, hospitals);
  const emergencyMiles = nearestMiles(
    places,
    hospitals.filter((h) => h.emergency),
  );
  // The hospital table times the drive to the nearest hospital: it stands for the emergency department only
  // where the nearest one is that hospital (or one as near), not where the nearest hospital has none.
  const hospitalRoad = residentsRoadMinutes(places, driveTimes.hospital, hospitalMiles);
  const emergencyRoad =
    hospitalRoad?.map((minutes, i) => (emergencyMiles[i] <= hospitalMiles[i] + SAME_TRIP_MILES ? minutes : NaN)) ?? null;
  const emergency = toMinutes(places, emergencyMiles, emergencyRoad);
  const major = toMinutes(
    places,
    nearestMiles(
      places,
      hospitals.filter((h) => h.major),
    ),
    null,
  );
  const clinicians = input.providerSupply
    ? [...input.providerSupply.primary_care.keys()]
        .filter((i) => input.providerSupply!.primary_care[i] >= PLACE_OF_CARE_MIN_CLINICIANS)
        .map(atZip)
    : [];
  const primaryCareMiles = nearestMiles(places, [...input.healthCenters, ...clinicians]);
  // The nearest place of care of any kind, each kind timed by its own road table where one describes the residents.
  const healthCenterMiles = nearestMiles(places, input.healthCenters);
  const care = nearer(
    nearer(
      toMinutes(places, hospitalMiles, hospitalRoad),
      toMinutes(places, healthCenterMiles, residentsRoadMinutes(places, driveTimes.healthCenter, healthCenterMiles)),
    ),
    toMinutes(places, nearestMiles(places, clinicians), null),
  );
  const specialist = input.providerSupply
    ? SCORE_TYPES.map((type) => {
        const supply = new Float64Array(places.length);
        let any = false;
        // Specialist care: the type's physician specialties; care near home (LOCAL_CARE_CATEGORIES) is not it.
        const categories = (Object.keys(type.providers) as Category[]).filter((c) => !LOCAL_CARE_CATEGORIES.includes(c));
        // A fraction of a clinician, left in a ZIP by a count spread over its county's residents, is no practice.
        for (const category of categories)
          input.providerSupply![category].forEach((count, i) => {
            if (count < PLACE_OF_CARE_MIN_CLINICIANS) return;
            supply[i] += count;
            any = true;
          });
        // No source places any of the type's specialists: the major hospital stands in, as without providers;
        // nor in a ZIP where no source counts them (Puerto Rico's nearest counted cardiologist is in Florida).
        if (!any) return major.minutes;
        const counted = categories.map((c) => input.providerSourced![c]);
        return milesToSupply(input, network, supply).map((miles, i) =>
          counted.some((known) => known[i]) ? miles * minutesPerStraightMile(places[i]) : major.minutes[i],
        );
      })
    : null;
  return { emergency, major, care, specialist, primaryCareMiles };
}

/** Miles from each ZIP to the nearest ZIP with supply: the network first, the KD-tree beyond its reach. */
function milesToSupply(input: ScoreInput, network: ZipNetwork, supply: Float64Array): Float64Array {
  const miles = nearestSupplyMiles(network, supply, input.places.length);
  const holders = [...supply.keys()].filter((i) => supply[i] > 0);
  const holderIndex = new PointIndex(
    Float64Array.from(holders, (i) => input.places[i].longitude),
    Float64Array.from(holders, (i) => input.places[i].latitude),
  );
  miles.forEach((value, i) => {
    if (Number.isNaN(value)) miles[i] = holderIndex.nearest(input.places[i].longitude, input.places[i].latitude)?.miles ?? Infinity;
  });
  return miles;
}

/**
 * Households with neither a vehicle nor transit per ZIP. A ZIP without a measured vehicle share takes the
 * worst share measured in a ZIP of at least `SMALL_POPULATION` residents.
 */
function mobilityGaps(input: ScoreInput): Float64Array {
  const measure = (zip: string, name: string) => input.census.get(zip)?.get(name)?.value ?? null;
  let worst = 0;
  for (const place of input.places) {
    const value = measure(place.zip, 'no_vehicle_pct');
    if (value !== null && (place.population ?? 0) >= SMALL_POPULATION) worst = Math.max(worst, value);
  }
  return Float64Array.from(input.places, (place) =>
    mobilityGapPct({ noVehiclePct: measure(place.zip, 'no_vehicle_pct'), transitPct: measure(place.zip, 'transit_commute_pct') }, worst),
  );
}

/** Nearest hospital (the same own-ZIP rule as the scores), hospitals and primary care within 10 miles. */
function accessFacts(input: ScoreInput, reach: Reach): Array<Omit<ZipAccess, 'bedsPer1000' | 'meanRatingNearby'>> {
  const { places, hospitals } = input;
  const hospitalIndex = new PointIndex(
    Float64Array.from(hospitals, (h) => h.longitude),
    Float64Array.from(hospitals, (h) => h.latitude),
  );
  const byZip = new Map<number, ScoredHospital[]>();
  for (const h of hospitals) byZip.set(h.zipIndex, [...(byZip.get(h.zipIndex) ?? []), h]);
  const primaryCare = input.providerSupply?.primary_care ?? null;
  const primaryCareKnown = input.providerSourced?.primary_care ?? null;
  const nearestHospital = nearestCare(places, hospitals);
  return places.map((place, i) => {
    const own = byZip.get(i) ?? [];
    const nearestId = nearestHospital.point[i] >= 0 ? hospitals[nearestHospital.point[i]].id : null;
    const within = new Set([
      ...own.map((h) => h.id),
      ...hospitalIndex.within(place.longitude, place.latitude, 10).map((hit) => hospitals[hit.id].id),
    ]);
    let primaryCareWithin10Miles = 0;
    if (primaryCare)
      for (const hit of input.index.within(place.longitude, place.latitude, 10)) primaryCareWithin10Miles += primaryCare[hit.id];
    const finite = (miles: number) => (Number.isFinite(miles) ? round1(miles) : null);
    return {
      nearestHospitalMiles: finite(nearestHospital.miles[i]),
      nearestHospitalId: nearestId,
      nearestPrimaryCareMiles: finite(reach.primaryCareMiles[i]),
      hospitalsWithin10Miles: within.size,
      primaryCareWithin10Miles: primaryCare && primaryCareKnown![i] ? Math.round(primaryCareWithin10Miles) : null,
      emergencyMinutes: round1(reach.emergency.minutes[i]),
      careMinutes: round1(reach.care.minutes[i]),
      majorHospitalMinutes: round1(reach.major.minutes[i]),
      roadTimes: reach.emergency.road[i] === 1 || reach.care.road[i] === 1,
    };
  });
}
