/** TVI tiers of decisions.md, highest first: a ZIP's tier is the first whose minimum its score reaches. */
export const TVI_TIERS = [
  { tier: 'CRITICAL', min: 80 },
  { tier: 'HIGH', min: 60 },
  { tier: 'MODERATE', min: 40 },
  { tier: 'LOW', min: 20 },
  { tier: 'MINIMAL', min: 0 },
] as const;

export type TviTier = (typeof TVI_TIERS)[number]['tier'];

/** The five tier names, most vulnerable first. */
export const TVI_TIER_NAMES: readonly TviTier[] = TVI_TIERS.map((t) => t.tier);

/** The tier of a TVI score (0-100). */
export function tviTier(score: number): TviTier {
  return TVI_TIERS.find((t) => score >= t.min)!.tier;
}
