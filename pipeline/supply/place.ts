import type { CountyCount } from './counts.ts';
import type { CountyZips } from './county-zips.ts';
import type { TractZips } from './tracts.ts';

/** How a county's clinicians of one kind were placed in its ZIPs. */
export type PlacedBy = 'own_pattern' | 'older_pattern' | 'like_pattern' | 'residents';

/** One count kind placed in ZIPs: clinicians per ZIP, and per county the count used and how it was placed. */
export interface PlacedKind {
  perZip: Float64Array;
  /** The count each county's clinicians come from: the best of the files that count it (counts.ts). */
  used: Map<string, CountyCount>;
  /** Clinicians placed by each method, summed over counties. */
  placedBy: Record<PlacedBy, number>;
}

/**
 * Places one kind's county counts in ZIPs. A county's clinicians follow, in this order: the winning file's own
 * tracts or ZIPs; the tracts or ZIPs of the most recent other file that has them for the county (its pattern,
 * the winner's total: the 2022 count in the 2010 Dartmouth tracts); those of the kind it is placed like
 * (`like`, config PLACED_LIKE); the county's residents. A tract that cannot be placed (not among the 2020 tract
 * centres) hands its share to the residents. Never uniformly over land.
 */
export function placeKind(
  counties: ReadonlyMap<string, readonly CountyCount[]>,
  countyZips: CountyZips,
  tractZips: TractZips,
  zipCount: number,
  like?: ReadonlyMap<string, readonly CountyCount[]>,
): PlacedKind {
  const perZip = new Float64Array(zipCount);
  const used = new Map<string, CountyCount>();
  const placedBy: Record<PlacedBy, number> = { own_pattern: 0, older_pattern: 0, like_pattern: 0, residents: 0 };
  const byResidents = (county: string, amount: number) => {
    const zips = countyZips.zipsOf(county);
    const residents = zips.reduce((sum, z) => sum + z.residents, 0);
    for (const z of zips) perZip[z.zipIndex] += amount * (residents > 0 ? z.residents / residents : 1 / zips.length);
    placedBy.residents += amount;
  };
  for (const [county, counts] of counties) {
    const winner = counts[0];
    used.set(county, winner);
    if (winner.amount === 0) continue;
    const own = counts.find((c) => c.within && patternTotal(c.within) > 0);
    const pattern = own ?? like?.get(county)?.find((c) => c.within && patternTotal(c.within) > 0);
    if (!pattern) {
      byResidents(county, winner.amount);
      continue;
    }
    const total = patternTotal(pattern.within!);
    let unplaced = 0;
    for (const [place, amount] of pattern.within!) {
      const share = (winner.amount * amount) / total;
      const zipIndex = place.startsWith('z:') ? Number(place.slice(2)) : tractZips.zipOf(place);
      if (zipIndex === null) unplaced += share;
      else perZip[zipIndex] += share;
    }
    placedBy[pattern === winner ? 'own_pattern' : own ? 'older_pattern' : 'like_pattern'] += winner.amount - unplaced;
    if (unplaced > 0) byResidents(county, unplaced);
  }
  return { perZip, used, placedBy };
}

function patternTotal(within: ReadonlyMap<string, number>): number {
  let total = 0;
  for (const amount of within.values()) total += amount;
  return total;
}
