/**
 * Where in a county the synthetic clinicians of its count practise: the sample's service-hub model
 * (placement.ts) restricted to the county's own ZCTAs, those whose residents mostly live in it (its home ZCTAs,
 * by which a build's `zips.county_fips` adds ZIPs up to counties). The hub model, not the build's own pattern
 * (the Dartmouth Atlas's 2010 tracts), because it places every kind the way the sample always has (primary care
 * in the towns that serve an area, specialists at hospitals and in large catchments, hospital staff at the
 * hospitals), needs no second copy of the build's tract placement, and leaves the build's placement of real
 * counts something to be compared with. A county whose hub weights are all 0 places by residents.
 */
import type { PlacementKind } from './placement.ts';
import type { RealCounties } from './real-counties.ts';

/** A county's ZCTAs (indices) and the share of the county's clinicians of one placement kind each receives. */
export interface CountyPlaces {
  zctas: readonly number[];
  shares: readonly number[];
}

/**
 * The ZCTAs each county's clinicians go to, and the county they add up to in a build (their attribution).
 * A county that is no reachable ZCTA's home (six Virginia independent cities in the 2020 crosswalks) places
 * its clinicians by residents in the reachable ZCTAs holding its residents whose home is the county with most
 * of them, and adds up to that county.
 */
export class CountyPlacement {
  private readonly homes = new Map<string, number[]>();
  private readonly cache = new Map<string, CountyPlaces | null>();
  private readonly attribution = new Map<string, string | null>();

  private readonly counties: RealCounties;
  private readonly population: ArrayLike<number>;
  private readonly reachable: ArrayLike<number>;
  private readonly weights: (kind: PlacementKind) => Float64Array;

  constructor(
    counties: RealCounties,
    population: ArrayLike<number>,
    reachable: ArrayLike<number>,
    weights: (kind: PlacementKind) => Float64Array,
  ) {
    this.counties = counties;
    this.population = population;
    this.reachable = reachable;
    this.weights = weights;
    counties.home.forEach((county, zcta) => {
      if (county !== null && reachable[zcta]) this.homes.set(county, [...(this.homes.get(county) ?? []), zcta]);
    });
  }

  /** The county a county's clinicians add up to in a build: itself, or for a county that is no ZCTA's home, a neighbour; null where it has no reachable ZCTA. */
  attributedTo(county: string): string | null {
    let hit = this.attribution.get(county);
    if (hit === undefined) {
      const inside = this.counties.zctasOf(county).filter((z) => this.reachable[z.zcta]);
      const most = inside.reduce<(typeof inside)[number] | undefined>(
        (best, z) => (!best || z.residents > best.residents ? z : best),
        undefined,
      );
      hit = this.homes.has(county) ? county : most ? this.counties.home[most.zcta] : null;
      this.attribution.set(county, hit);
    }
    return hit;
  }

  /** Where a county's clinicians of a placement kind go (null where the county has no reachable ZCTA). */
  placesOf(county: string, kind: PlacementKind): CountyPlaces | null {
    const key = `${county}:${kind}`;
    let hit = this.cache.get(key);
    if (hit === undefined) this.cache.set(key, (hit = this.compute(county, kind)));
    return hit;
  }

  private compute(county: string, kind: PlacementKind): CountyPlaces | null {
    const home = this.homes.get(county);
    if (home) {
      const w = this.weights(kind);
      const hub = home.map((z) => w[z]);
      return (
        normalised(home, hub) ??
        normalised(
          home,
          home.map((z) => Math.max(0, this.population[z])),
        ) ??
        normalised(
          home,
          home.map(() => 1),
        )
      );
    }
    const to = this.attributedTo(county);
    const inside = this.counties.zctasOf(county).filter((z) => this.reachable[z.zcta] && this.counties.home[z.zcta] === to);
    const zctas = inside.map((z) => z.zcta);
    return (
      normalised(
        zctas,
        inside.map((z) => z.residents),
      ) ??
      normalised(
        zctas,
        zctas.map(() => 1),
      )
    );
  }
}

function normalised(zctas: readonly number[], weights: readonly number[]): CountyPlaces | null {
  const total = weights.reduce((a, b) => a + b, 0);
  return total > 0 ? { zctas, shares: weights.map((w) => w / total) } : null;
}
