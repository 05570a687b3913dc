import { MOBILITY } from '../config/scoring.ts';

/** What mobility is computed from, per ZIP: percent of households without a vehicle, percent of commuters by transit. */
export interface MobilityInput {
  noVehiclePct: number | null;
  transitPct: number | null;
}

/**
 * Households left without a way to travel: those without a vehicle, less the part transit serves (transit
 * use by `MOBILITY.transitFullAt` percent of commuters or more serves them all). `worstNoVehiclePct` stands
 * in for a missing vehicle share, so a ZIP without data never looks better than the worst measured one;
 * missing transit counts as none.
 */
export function mobilityGapPct(input: MobilityInput, worstNoVehiclePct: number): number {
  const noVehicle = input.noVehiclePct ?? worstNoVehiclePct;
  const transitServes = Math.min(1, Math.max(0, input.transitPct ?? 0) / MOBILITY.transitFullAt);
  return noVehicle * (1 - transitServes);
}

/** The mobility part of the travel component, 0-100: 100 with no gap, 0 at `MOBILITY.gapZeroAt` percent or more. */
export function mobilityScore(gapPct: number): number {
  return 100 * Math.min(1, Math.max(0, 1 - gapPct / MOBILITY.gapZeroAt));
}
