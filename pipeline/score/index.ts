import { fcaIndexed } from '../accessibility.ts';
import type { ScoredHospital } from '../facilities/hospitals.ts';
import type { SourcedValue } from '../ingest/index.ts';
import type { ZipPlace } from '../geo/places.ts';
import { PointIndex } from '../geo/point-index.ts';
import { composite, type Components } from './composite.ts';
import {
  BEDS_BENCHMARK, DISTANCE_MILES_BENCHMARK, HOSPITAL_STEPS, NEED_MEASURES, NETWORK_MAX_MILES, PREVALENCE_WEIGHT,
  PROVIDER_BENCHMARKS, PROVIDER_STEPS, SCORE_TYPES, type ScoreTypeSpec,
} from './config.ts';
import { buildNetwork, nearestSupplyMiles, stepWeights, type ZipNetwork } from './network.ts';
import { linearScore, logScore, median } from './scale.ts';
import { CATEGORY_NAMES, type Category } from './specialties.ts';

export interface ScoreInput {
  places: ZipPlace[];
  index: PointIndex;
  census: Map<string, Map<string, SourcedValue>>;
  prevalence: Map<string, Record<string, number | null>>;
  /** Clinicians per category practising in each ZIP (by ZIP index). */
  providerSupply: Record<Category, Float64Array>;
  hospitals: ScoredHospital[];
}

/** Per-ZIP travel facts the API reports beside the scores (widget, TVI). */
export interface ZipAccess {
  nearestHospitalMiles: number | null;
  nearestHospitalId: number | null;
  nearestPrimaryCareMiles: number | null;
  hospitalsWithin10Miles: number;
  primaryCareWithin10Miles: number;
}

export interface ZipScores {
  /** Components and composite per score type, in SCORE_TYPES order. */
  byType: Array<Components & { healthscore: number }>;
  access: ZipAccess;
}

const round1 = (x: number) => Math.round(x * 10) / 10;

/** Scores every ZIP for every score type. Pure: all inputs in memory, no disk. */
export function scoreZips(input: ScoreInput, log: (line: string) => void = () => {}): ZipScores[] {
  const { places } = input;
  const n = places.length;
  const network = buildNetwork(places, input.index, NETWORK_MAX_MILES);
  log(`  network: ${n} ZIPs, ${network.from.length} edges within ${NETWORK_MAX_MILES} miles`);
  const demand = Float64Array.from(places, (p) => Math.max(0, p.population ?? 0));
  const providerWeights = stepWeights(network, PROVIDER_STEPS);
  const fca = (supply: Float64Array, weights: Float64Array) =>
    fcaIndexed({ demand, supply, edgeDemand: network.from, edgeSupply: network.to, edgeWeight: weights });

  // Clinician accessibility per 100,000 residents for every category, then its benchmark score.
  const categoryScore = {} as Record<Category, Float64Array>;
  for (const category of CATEGORY_NAMES) {
    const access = fca(input.providerSupply[category], providerWeights);
    categoryScore[category] = access.map((a) => logScore(a * 100_000, PROVIDER_BENCHMARKS[category]));
  }

  const hospital = hospitalComponent(input, network, fca);
  const access = accessFacts(input, network);
  const need = needScores(input);

  return places.map((place, i) => ({
    byType: SCORE_TYPES.map((type) => {
      const components: Components = {
        people: Math.round(peopleScore(type, place, i, input, need)),
        provider: Math.round(weighted(type.providers, (category) => categoryScore[category][i])),
        hospital: Math.round(hospital[i]),
        travel: Math.round(travelScore(type, i, input, access.relevantMiles, need.noVehicleMedian)),
      };
      return { ...components, healthscore: composite(components) };
    }),
    access: access.facts[i],
  }));
}

function weighted(weights: Partial<Record<Category, number>>, value: (category: Category) => number): number {
  let sum = 0;
  let total = 0;
  for (const [category, weight] of Object.entries(weights) as Array<[Category, number]>) {
    sum += weight * value(category);
    total += weight;
  }
  return total > 0 ? sum / total : 0;
}

/**
 * Hospital component: staffed beds per 1,000 within reach (E2SFCA, 50%), distance to the nearest emergency
 * department (30%) and the mean CMS star rating of rated hospitals within 30 miles (20%).
 */
function hospitalComponent(input: ScoreInput, network: ZipNetwork, fca: (s: Float64Array, w: Float64Array) => Float64Array): Float64Array {
  const n = input.places.length;
  const beds = new Float64Array(n);
  for (const h of input.hospitals) beds[h.zipIndex] += h.beds;
  const bedAccess = fca(beds, stepWeights(network, HOSPITAL_STEPS));
  const emergency = input.hospitals.filter((h) => h.emergency);
  const emergencyIndex = new PointIndex(Float64Array.from(emergency, (h) => h.longitude), Float64Array.from(emergency, (h) => h.latitude));
  const rated = input.hospitals.filter((h) => h.rating !== null);
  const ratedIndex = new PointIndex(Float64Array.from(rated, (h) => h.longitude), Float64Array.from(rated, (h) => h.latitude));
  return Float64Array.from(input.places, (place, i) => {
    const bedScore = logScore(bedAccess[i] * 1000, BEDS_BENCHMARK);
    const nearestEd = emergencyIndex.nearest(place.longitude, place.latitude);
    const edScore = nearestEd ? logScore(Math.max(nearestEd.miles, 0.01), DISTANCE_MILES_BENCHMARK) : 0;
    const ratings = ratedIndex.within(place.longitude, place.latitude, 30).map((hit) => rated[hit.id].rating!);
    const qualityScore = ratings.length ? ((ratings.reduce((a, b) => a + b, 0) / ratings.length - 1) / 4) * 100 : 0;
    return 0.5 * bedScore + 0.3 * edScore + 0.2 * qualityScore;
  });
}

/** Nearest hospital, nearest primary care, counts within 10 miles; and per score type the miles to relevant clinicians. */
function accessFacts(input: ScoreInput, network: ZipNetwork): { facts: ZipAccess[]; relevantMiles: Float64Array[] } {
  const { places, hospitals } = input;
  const hospitalIndex = new PointIndex(Float64Array.from(hospitals, (h) => h.longitude), Float64Array.from(hospitals, (h) => h.latitude));
  const relevantMiles = SCORE_TYPES.map((type) => {
    const supply = new Float64Array(places.length);
    for (const category of Object.keys(type.providers) as Category[]) input.providerSupply[category].forEach((count, i) => (supply[i] += count));
    return milesToSupply(input, network, supply);
  });
  const primaryCare = input.providerSupply.primary_care;
  const facts = places.map((place, i): ZipAccess => {
    const nearest = hospitalIndex.nearest(place.longitude, place.latitude);
    let primaryCareWithin10Miles = 0;
    for (const hit of input.index.within(place.longitude, place.latitude, 10)) primaryCareWithin10Miles += primaryCare[hit.id];
    const nearestPrimaryCare = relevantMiles[0][i];
    return {
      nearestHospitalMiles: nearest ? round1(nearest.miles) : null,
      nearestHospitalId: nearest ? hospitals[nearest.id].id : null,
      nearestPrimaryCareMiles: Number.isFinite(nearestPrimaryCare) ? round1(nearestPrimaryCare) : null,
      hospitalsWithin10Miles: hospitalIndex.within(place.longitude, place.latitude, 10).length,
      primaryCareWithin10Miles: Math.round(primaryCareWithin10Miles),
    };
  });
  return { facts, relevantMiles };
}

/** Miles from each ZIP to the nearest ZIP with supply: the network first, the KD-tree beyond its reach. */
function milesToSupply(input: ScoreInput, network: ZipNetwork, supply: Float64Array): Float64Array {
  const miles = nearestSupplyMiles(network, supply, input.places.length);
  const holders = [...supply.keys()].filter((i) => supply[i] > 0);
  const holderIndex = new PointIndex(Float64Array.from(holders, (i) => input.places[i].longitude), Float64Array.from(holders, (i) => input.places[i].latitude));
  miles.forEach((value, i) => {
    if (Number.isNaN(value)) miles[i] = holderIndex.nearest(input.places[i].longitude, input.places[i].latitude)?.miles ?? Infinity;
  });
  return miles;
}

/**
 * Travel component: miles to the nearest relevant clinician (60%), households with a vehicle (25%) and
 * public transit use (15%; 10% of commuters or more scores full marks).
 */
function travelScore(type: ScoreTypeSpec, i: number, input: ScoreInput, relevantMiles: Float64Array[], noVehicleMedian: number): number {
  const miles = relevantMiles[type.id - 1][i];
  const distanceScore = logScore(Math.max(miles, 0.01), DISTANCE_MILES_BENCHMARK);
  const census = input.census.get(input.places[i].zip);
  const noVehicle = census?.get('no_vehicle_pct')?.value ?? noVehicleMedian;
  const transit = census?.get('transit_commute_pct')?.value ?? 0;
  return 0.6 * distanceScore + 0.25 * linearScore(noVehicle, 0, 30) + 0.15 * linearScore(transit, 10, 0);
}

/** Social need per ZIP from census measures, 0 (no need) to 1 (full need), before condition prevalence. */
interface Need {
  base: Float64Array;
  prevalenceMedian: Record<string, number>;
  noVehicleMedian: number;
}

function needScores(input: ScoreInput): Need {
  const medians = Object.fromEntries(NEED_MEASURES.map(({ measure }) => [measure, median([...input.census.values()].map((m) => m.get(measure)?.value), 0)]));
  const base = Float64Array.from(input.places, (place) => {
    const census = input.census.get(place.zip);
    let need = 0;
    for (const { measure, noNeedAt, fullNeedAt, weight } of NEED_MEASURES) {
      const value = census?.get(measure)?.value ?? medians[measure];
      need += weight * Math.min(1, Math.max(0, (value - noNeedAt) / (fullNeedAt - noNeedAt)));
    }
    return need;
  });
  const prevalenceMedian: Record<string, number> = {};
  for (const type of SCORE_TYPES) {
    if (type.prevalence) prevalenceMedian[type.prevalence] = median([...input.prevalence.values()].map((p) => p[type.prevalence!]), 10);
  }
  const noVehicleMedian = median([...input.census.values()].map((m) => m.get('no_vehicle_pct')?.value), 5.5);
  return { base, prevalenceMedian, noVehicleMedian };
}

/** People component: 100 minus need; condition scores blend in prevalence relative to the national median. */
function peopleScore(type: ScoreTypeSpec, place: ZipPlace, i: number, input: ScoreInput, need: Need): number {
  let value = need.base[i];
  if (type.prevalence) {
    const typical = need.prevalenceMedian[type.prevalence];
    const prevalence = input.prevalence.get(place.zip)?.[type.prevalence] ?? typical;
    // Twice the national median prevalence is full need; at or below half of it, none.
    const prevalenceNeed = Math.min(1, Math.max(0, (prevalence / typical - 0.5) / 1.5));
    value = (1 - PREVALENCE_WEIGHT) * value + PREVALENCE_WEIGHT * prevalenceNeed;
  }
  return 100 * (1 - value);
}
