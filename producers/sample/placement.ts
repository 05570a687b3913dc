/**
 * Where care is located. Providers and facilities sit in service hubs (towns and cities), not spread
 * evenly over the population: a small rural ZCTA's residents are served by the nearest town within 30
 * miles, and where there is none they are unserved. This is what produces realistic care deserts and the
 * concentration of specialists in the most urban ZCTAs.
 */
import type { Geography } from './geography.ts';
import type { Demographics } from './census-model.ts';
import { WeightedSampler } from './prng.ts';

/** Service-area view of the ZCTAs (arrays indexed like geography.zctas). */
export interface Placement {
  /** 1 when the ZCTA is a town or city that hosts services. */
  isHub: Uint8Array;
  /** Population a hub serves: its own plus nearby non-hub ZCTAs (0 for non-hubs). */
  catchment: Float64Array;
  /** Population of non-hub ZCTAs, which still see the occasional rural clinician. */
  residual: Float64Array;
}

/** Placement weights of the provider and facility kinds. */
export type PlacementKind = 'primary' | 'community' | 'specialist' | 'hospital';

const HUB_MILES = 12;
const SERVICE_MILES = 30;

/** Finds the hubs and their catchment populations. */
export function buildPlacement(geo: Geography, demo: readonly Demographics[]): Placement {
  const n = geo.zctas.length;
  const isHub = new Uint8Array(n);
  const catchment = new Float64Array(n);
  const residual = new Float64Array(n);
  for (const z of geo.zctas) {
    const pop = demo[z.index]!.population;
    if (pop === 0) continue;
    let localMax = 0;
    for (const other of geo.within(z.lon, z.lat, HUB_MILES)) localMax = Math.max(localMax, demo[other.index]!.population);
    // A hub is a sizeable place, part of a built-up area, or the biggest place around.
    if (pop >= 8000 || z.urbanity >= 0.5 || pop >= 0.5 * localMax) isHub[z.index] = 1;
  }
  for (const z of geo.zctas) {
    const pop = demo[z.index]!.population;
    if (isHub[z.index]) {
      catchment[z.index] += pop;
      continue;
    }
    residual[z.index] = pop;
    const [hub] = geo.nearest(z.lon, z.lat, 1, SERVICE_MILES, (h) => isHub[h.index] === 1);
    if (hub) catchment[hub.index] += pop;
  }
  return { isHub, catchment, residual };
}

/**
 * Weight of each ZCTA for a kind of provider. `beds` (hospital beds per ZCTA) anchors hospital-based
 * staff to where the hospitals are.
 */
export function placementWeights(geo: Geography, placement: Placement, kind: PlacementKind, beds?: Float64Array): Float64Array {
  const { catchment, residual } = placement;
  const w = new Float64Array(geo.zctas.length);
  let bedTotal = 0;
  let popTotal = 0;
  if (beds) for (const b of beds) bedTotal += b;
  for (const c of catchment) popTotal += c;
  for (const z of geo.zctas) {
    const i = z.index;
    const u = z.urbanity;
    const c = catchment[i]!;
    // Places serving fewer than ~800 people rarely keep a practice; the smallest remote hubs get none,
    // which keeps real deserts (tens of miles without care) even at national scale.
    const viable = Math.min(1, Math.max(0, (c - 800) / 2200));
    switch (kind) {
      case 'primary':
        w[i] = viable * c * (0.6 + 0.4 * u) + 0.004 * residual[i]!;
        break;
      case 'community':
        w[i] = viable * c * (0.5 + u) + 0.002 * residual[i]!;
        break;
      case 'specialist':
        // Specialists need a large catchment and cluster in the densest cores.
        w[i] = c * u ** 2.5 * (c >= 25_000 ? 1 : 0.1);
        break;
      case 'hospital':
        w[i] = (beds && bedTotal > 0 ? (0.75 * beds[i]!) / bedTotal : 0) + (0.25 * c * (0.5 + u)) / Math.max(1, popTotal);
        break;
    }
  }
  // Specialists practise where the hospitals are, large ones above all: half the weight follows beds
  // (squared, so a 1,000-bed academic centre draws far more than five 200-bed hospitals), half the catchment.
  if (kind === 'specialist' && beds && bedTotal > 0) {
    const cores = w.reduce((a, b) => a + b, 0);
    let squared = 0;
    for (const b of beds) squared += b * b;
    for (let i = 0; i < w.length; i++) w[i] = (0.5 * (beds[i]! * beds[i]!)) / squared + (cores > 0 ? (0.5 * w[i]!) / cores : 0);
  }
  return w;
}

/** A sampler over ZCTA indices for a placement kind. */
export function placementSampler(geo: Geography, placement: Placement, kind: PlacementKind, beds?: Float64Array): WeightedSampler {
  return new WeightedSampler(placementWeights(geo, placement, kind, beds));
}
