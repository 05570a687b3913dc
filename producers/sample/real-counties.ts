/**
 * The counties of the real crosswalks as the build sees them, for the synthetic clinicians that follow county
 * counts: how each ZCTA's residents divide between counties (pipeline/geo/places.ts `countyShares`), the county
 * holding most of them (`homeCounty`: a build's `zips.county_fips`, by which a researcher adds its ZIPs up to
 * counties), the residents of each county (pipeline/supply/county-zips.ts), and the counties of the crosswalks
 * a count file's code stands for (renamed, split and merged counties: pipeline/geo/counties.ts). Producers may
 * read only the build's reading side, so these small rules are written again here; test/real-counts.test.ts
 * holds each to the build's own.
 */
import type { Ingested } from '../../pipeline/ingest/ingested.ts';
import type { ZipCountyRow } from '../../pipeline/layouts/crosswalks.ts';
import type { Zcta } from './geography.ts';
import { STATES } from './states.ts';

/**
 * Counties renamed, split or merged since 2010, by their old codes and the codes that replaced them: the
 * table of pipeline/geo/counties.ts (`COUNTY_SUCCESSORS`), which test/real-counts.test.ts holds this one to.
 */
export const COUNTY_SUCCESSORS: Readonly<Record<string, readonly string[]>> = {
  '02261': ['02063', '02066'],
  '02270': ['02158'],
  '46113': ['46102'],
  '51515': ['51019'],
};

/** USPS codes by state FIPS: the build groups a ZCTA's counties by state and breaks ties by these codes. */
const STATE_BY_FIPS: ReadonlyMap<string, string> = new Map([...STATES.values()].map((s) => [s.fips, s.abbr]));
const HUD_SHARES = ['residentialRatio', 'totalRatio'] as const;

/** The crosswalk rows the county view is made from. */
export type CountyCrosswalks = Pick<Ingested, 'zipCounties' | 'zctaCounties' | 'zipToZcta'>;

/** Where each county's residents live, ZCTA by ZCTA, and each ZCTA's home county. */
export class RealCounties {
  /** Per ZCTA index: its counties and their shares of its residents (empty where no crosswalk names it). */
  readonly shares: ReadonlyArray<ReadonlyArray<readonly [string, number]>>;
  /** Per ZCTA index: the county holding most of its residents, or null. */
  readonly home: ReadonlyArray<string | null>;
  /** Per county: its ZCTAs (by index) and the residents of each that live in it. */
  private readonly byCounty = new Map<string, Array<{ zcta: number; residents: number }>>();
  private readonly byState = new Map<string, string[]>();
  private readonly residents = new Map<string, number>();

  constructor(zctas: readonly Zcta[], population: ArrayLike<number>, data: CountyCrosswalks) {
    const zipsByZcta = new Map<string, string[]>();
    const postalByZcta = new Map<string, { state: string }>();
    for (const row of data.zipToZcta.values()) {
      const zips = zipsByZcta.get(row.zcta);
      if (zips) zips.push(row.zip);
      else zipsByZcta.set(row.zcta, [row.zip]);
      if (!postalByZcta.has(row.zcta) || row.zip === row.zcta) postalByZcta.set(row.zcta, row);
    }
    const shares: Array<Array<[string, number]>> = [];
    const home: Array<string | null> = [];
    for (const z of zctas) {
      const groups = hudRows(z.code, zipsByZcta.get(z.code) ?? [], data);
      const hud = HUD_SHARES.map((share) => sharesByCounty(groups, share));
      shares.push(countyShares(z.code, hud, data));
      home.push(homeCounty(z.code, hud, data, (data.zipToZcta.get(z.code) ?? postalByZcta.get(z.code))?.state));
      for (const [county, share] of shares[z.index]) {
        let list = this.byCounty.get(county);
        if (!list) {
          this.byCounty.set(county, (list = []));
          const state = this.byState.get(county.slice(0, 2));
          if (state) state.push(county);
          else this.byState.set(county.slice(0, 2), [county]);
        }
        list.push({ zcta: z.index, residents: Math.max(0, population[z.index]) * share });
      }
    }
    this.shares = shares;
    this.home = home;
  }

  /** Every county some ZCTA's residents live in. */
  counties(): IterableIterator<string> {
    return this.byCounty.keys();
  }

  /** The ZCTAs holding a county's residents, with the residents of each that live in it. */
  zctasOf(county: string): ReadonlyArray<{ zcta: number; residents: number }> {
    return this.byCounty.get(county) ?? [];
  }

  /** A county's residents (those of the ZCTAs the crosswalks put in it, by their shares). */
  residentsOf(county: string): number {
    let n = this.residents.get(county);
    if (n === undefined) this.residents.set(county, (n = this.zctasOf(county).reduce((sum, z) => sum + z.residents, 0)));
    return n;
  }

  /** The counties of a state (2-digit FIPS) the crosswalks name. */
  countiesOf(state: string): readonly string[] {
    return this.byState.get(state) ?? [];
  }

  /** The counties of the crosswalks a file's county code stands for: itself, else its successors, else its predecessors, else none. */
  current(county: string): readonly string[] {
    if (this.byCounty.has(county)) return [county];
    const successors = (COUNTY_SUCCESSORS[county] ?? []).filter((c) => this.byCounty.has(c));
    if (successors.length) return successors;
    return Object.entries(COUNTY_SUCCESSORS)
      .filter(([old, next]) => next.includes(county) && this.byCounty.has(old))
      .map(([old]) => old);
  }
}

/**
 * HUD's rows for a ZCTA: the same-numbered ZIP's when it has residential addresses, else those of every ZIP it
 * holds; a row in a state where the Census ZCTA-county file has no part of the ZCTA is left out (HUD's 2020 Q4
 * crosswalk files four of Guam's ZIPs under American Samoa).
 */
function hudRows(zcta: string, zips: readonly string[], data: CountyCrosswalks): ZipCountyRow[][] {
  const states = data.zctaCounties.get(zcta)?.map((row) => row.countyFips.slice(0, 2));
  const rows = (zip: string) => {
    const all = data.zipCounties.get(zip);
    return all && states?.length ? all.filter((row) => states.includes(row.countyFips.slice(0, 2))) : all;
  };
  const sameNumbered = rows(zcta);
  return sameNumbered?.some((r) => r.residentialRatio > 0)
    ? [sameNumbered]
    : zips.map(rows).filter((list): list is ZipCountyRow[] => list !== undefined && list.length > 0);
}

function sharesByCounty(groups: ZipCountyRow[][], share: (typeof HUD_SHARES)[number]): Map<string, number> {
  const byCounty = new Map<string, number>();
  for (const rows of groups) for (const row of rows) byCounty.set(row.countyFips, (byCounty.get(row.countyFips) ?? 0) + row[share]);
  return byCounty;
}

/** HUD's residential shares, else all addresses (`hud`, in that order), else the 2020 ZCTA-county file (its weights, or equal shares). */
function countyShares(zcta: string, hud: ReadonlyArray<ReadonlyMap<string, number>>, data: CountyCrosswalks): Array<[string, number]> {
  for (const byCounty of hud) {
    const total = [...byCounty.values()].reduce((a, b) => a + b, 0);
    if (total > 0) return [...byCounty].filter(([, v]) => v > 0).map(([county, v]) => [county, v / total]);
  }
  const listed = data.zctaCounties.get(zcta) ?? [];
  const weighed = listed.every((row) => (row.weight ?? 0) > 0);
  const total = weighed ? listed.reduce((sum, row) => sum + row.weight!, 0) : listed.length;
  const shares = new Map<string, number>();
  for (const row of listed) shares.set(row.countyFips, (shares.get(row.countyFips) ?? 0) + (weighed ? row.weight! : 1) / total);
  return [...shares];
}

/**
 * The state with most of a ZCTA's HUD addresses, then its county with most (ties to the lower code); without HUD
 * rows, the ZCTA-county file's first county, those in the postal state first, then by weight. (The build also
 * takes a postal state from a city file when the ZIP crosswalk has none: the sample does not read that file.)
 */
function homeCounty(
  zcta: string,
  hud: ReadonlyArray<ReadonlyMap<string, number>>,
  data: CountyCrosswalks,
  postalState: string | undefined,
): string | null {
  const stateOf = (county: string) => STATE_BY_FIPS.get(county.slice(0, 2));
  for (const byCounty of hud) {
    const byState = new Map<string, number>();
    for (const [county, value] of byCounty) {
      const state = stateOf(county);
      if (state) byState.set(state, (byState.get(state) ?? 0) + value);
    }
    const state = largest(byState);
    if (state) return largest(byCounty, (county) => stateOf(county) === state);
  }
  const listed = [...(data.zctaCounties.get(zcta) ?? [])].sort(
    (a, b) => Number(b.state === postalState) - Number(a.state === postalState) || (b.weight ?? 0) - (a.weight ?? 0),
  );
  return listed[0]?.countyFips ?? null;
}

/** The key with the largest positive value (the lowest key among ties) of those `keep` keeps, or null. */
function largest(values: ReadonlyMap<string, number>, keep: (key: string) => boolean = () => true): string | null {
  let best: string | null = null;
  let most = 0;
  for (const [key, value] of values)
    if (value > 0 && keep(key) && (best === null || value > most || (value === most && key < best))) [best, most] = [key, value];
  return best;
}
