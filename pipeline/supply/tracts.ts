import { haversineMiles } from '../../core/distance.ts';
import type { ZipPlace } from '../geo/places.ts';
import type { TractCentreRow } from '../layouts/residents.ts';
import type { CountyZips } from './county-zips.ts';

/**
 * Census tracts placed in ZIPs: a tract's clinicians go to the ZIP of its county whose residents' point lies
 * nearest the tract's 2020 centre of population (no tract-to-ZCTA file is needed; a tract is small beside a
 * ZIP in the places where the answer matters, and in the same county by construction). A tract code the 2020
 * centres do not list (split or merged since 2010) has no ZIP: its clinicians follow the county's residents.
 */
export class TractZips {
  private readonly centres: Map<string, TractCentreRow>;
  private readonly cache = new Map<string, number | null>();
  private readonly places: readonly ZipPlace[];
  private readonly countyZips: CountyZips;

  constructor(tractCentres: readonly TractCentreRow[], places: readonly ZipPlace[], countyZips: CountyZips) {
    this.centres = new Map(tractCentres.map((t) => [t.tract, t]));
    this.places = places;
    this.countyZips = countyZips;
  }

  /** The ZIP (by index) a tract's clinicians are placed in, or null where the tract or its county is unknown. */
  zipOf(tract: string): number | null {
    let hit = this.cache.get(tract);
    if (hit === undefined) this.cache.set(tract, (hit = this.nearest(tract)));
    return hit;
  }

  private nearest(tract: string): number | null {
    const centre = this.centres.get(tract);
    if (!centre) return null;
    let best: number | null = null;
    let bestMiles = Infinity;
    const zips = this.countyZips.currentCounties(tract.slice(0, 5)).flatMap((county) => this.countyZips.zipsOf(county));
    for (const { zipIndex, residents } of zips) {
      if (residents <= 0) continue;
      const place = this.places[zipIndex];
      const miles = haversineMiles(centre.longitude, centre.latitude, place.longitude, place.latitude);
      if (miles < bestMiles || (miles === bestMiles && best !== null && zipIndex < best)) [best, bestMiles] = [zipIndex, miles];
    }
    return best;
  }
}
