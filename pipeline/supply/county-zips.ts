import { COUNTY_SUCCESSORS, predecessorsOf } from '../geo/counties.ts';
import { countyShares, type ZipPlace } from '../geo/places.ts';
import type { Ingested } from '../ingest/ingested.ts';

/** A ZIP's share of a county's residents. */
export interface ZipResidents {
  zipIndex: number;
  residents: number;
}

/**
 * Where each county's residents live, ZIP by ZIP: a ZCTA's ACS population divided between its counties by the
 * HUD residential shares (geo/places.ts `countyShares`). Clinician counts per county are spread over these.
 */
export class CountyZips {
  private readonly byCounty = new Map<string, ZipResidents[]>();
  /** Counties per state (2-digit FIPS), for counts a file gives under a code no crosswalk names. */
  private readonly byState = new Map<string, string[]>();
  /** Each ZIP's counties and their shares of its residents. */
  private readonly sharesByZip: Array<Array<[string, number]>>;
  private readonly residentsByCounty = new Map<string, number>();

  constructor(places: readonly ZipPlace[], data: Pick<Ingested, 'zipCounties' | 'zctaCounties' | 'zipToZcta'>) {
    const zipsByZcta = new Map<string, string[]>();
    for (const row of data.zipToZcta.values()) {
      const zips = zipsByZcta.get(row.zcta) ?? [];
      zips.push(row.zip);
      zipsByZcta.set(row.zcta, zips);
    }
    this.sharesByZip = places.map((place) => [...(countyShares(place.zip, zipsByZcta.get(place.zip) ?? [], data) ?? [])]);
    places.forEach((place, zipIndex) => {
      const shares = this.sharesByZip[zipIndex];
      const population = Math.max(0, place.population ?? 0);
      for (const [county, share] of shares) {
        let list = this.byCounty.get(county);
        if (!list) {
          this.byCounty.set(county, (list = []));
          const state = county.slice(0, 2);
          this.byState.set(state, [...(this.byState.get(state) ?? []), county]);
        }
        list.push({ zipIndex, residents: population * share });
        this.residentsByCounty.set(county, (this.residentsByCounty.get(county) ?? 0) + population * share);
      }
    });
  }

  /** The ZIPs holding the county's residents (empty for a county no crosswalk names). */
  zipsOf(county: string): readonly ZipResidents[] {
    return this.byCounty.get(county) ?? [];
  }

  /** A ZIP's counties and their shares of its residents (empty where no crosswalk names the ZIP). */
  sharesOf(zipIndex: number): ReadonlyArray<[string, number]> {
    return this.sharesByZip[zipIndex];
  }

  /** Whether the crosswalks name the county. */
  has(county: string): boolean {
    return this.byCounty.has(county);
  }

  /** The counties of a state (2-digit FIPS) the crosswalks name. */
  countiesOf(state: string): readonly string[] {
    return this.byState.get(state) ?? [];
  }

  /** The residents of a county the build counts. */
  residentsOf(county: string): number {
    return this.residentsByCounty.get(county) ?? 0;
  }

  /**
   * The counties of the crosswalks a file's county code stands for: itself where they name it, else its
   * successors or its predecessors where it was renamed, split or merged (geo/counties.ts: the crosswalks mix
   * the codes of 2010 and 2020), else none (a code of another geography, such as Connecticut's planning regions).
   */
  currentCounties(county: string): readonly string[] {
    if (this.has(county)) return [county];
    const successors = (COUNTY_SUCCESSORS[county] ?? []).filter((c) => this.has(c));
    return successors.length ? successors : predecessorsOf(county).filter((c) => this.has(c));
  }
}
