import { haversineMiles } from '../../core/distance.ts';
import type { Ingested } from '../ingest/ingested.ts';
import type { ZipCountyRow } from '../layouts/crosswalks.ts';
import { PointIndex } from './point-index.ts';
import { countyFor2023Tables } from './connecticut.ts';
import { COUNTY_SUCCESSORS } from './counties.ts';
import { chooseResidentsPoints, type MilesFromResidents, type PointSource, type PointWithdrawal } from './residents.ts';
import { STATE_BY_FIPS, STATE_NAMES } from './states.ts';

/** A scored ZIP code (a ZCTA) with everything geographic the scores and the API need. */
export interface ZipPlace {
  zip: string;
  state: string;
  stateName: string;
  city: string;
  countyFips: string | null;
  cbsaCode: string | null;
  /** NCHS urban-rural code of the county (1 large central metro ... 6 noncore), null when unknown. */
  urbanRuralCode: number | null;
  /** Where the ZIP's residents are placed, and every distance and drive time is measured from (see `pointSource`). */
  latitude: number;
  longitude: number;
  /** HUD's population-weighted point of the ZIP's residential addresses, or the Gazetteer's internal point where HUD has none. */
  pointSource: PointSource;
  /** The Census Gazetteer's internal point of the ZCTA: the middle of its area, which road tables average over. */
  gazetteerLatitude: number;
  gazetteerLongitude: number;
  landSqMi: number;
  population: number | null;
}

/** Where each ZIP's state, city and point came from, counted for the build log and `meta`. */
export interface PlaceStats {
  cityFrom: Record<string, number>;
  stateFrom: Record<string, number>;
  pointFrom: Record<string, number>;
}

/**
 * Assembles the ZIPs to score from the Gazetteer. Each is placed where its residents live (see
 * `chooseResidentsPoints`); state and county are where most of them live (see `homeCounty`); the city is the
 * postal name of the same-numbered ZIP, then of any ZIP that maps to the ZCTA, then of the nearest named ZCTA.
 * `withdrawn` lists the residents' point rows left out, for the reconciliation.
 */
export function assemblePlaces(data: Ingested): { places: ZipPlace[]; index: PointIndex; stats: PlaceStats; withdrawn: PointWithdrawal[] } {
  const zctas = [...data.zctas.values()].sort((a, b) => (a.zcta < b.zcta ? -1 : 1));
  const postalByZcta = new Map<string, { city: string; state: string }>();
  const zipsByZcta = new Map<string, string[]>();
  for (const row of data.zipToZcta.values()) {
    if (!postalByZcta.has(row.zcta) || row.zip === row.zcta) postalByZcta.set(row.zcta, row);
    const zips = zipsByZcta.get(row.zcta) ?? [];
    zips.push(row.zip);
    zipsByZcta.set(row.zcta, zips);
  }
  const postalOf = (zcta: string) => data.zipToZcta.get(zcta) ?? postalByZcta.get(zcta) ?? data.zipCity.get(zcta);
  const homes = new Map(zctas.map((z) => [z.zcta, homeCounty(z.zcta, zipsByZcta.get(z.zcta) ?? [], data, postalOf(z.zcta)?.state)]));
  const { chosen, withdrawn } = chooseResidentsPoints(data.zctas, data.residentsPoints, milesFromCountyResidents(homes, data.tractCentres));
  const stats: PlaceStats = { cityFrom: {}, stateFrom: {}, pointFrom: {} };
  const count = (record: Record<string, number>, key: string) => (record[key] = (record[key] ?? 0) + 1);
  const places: ZipPlace[] = zctas.map((z) => {
    const postal = postalOf(z.zcta);
    const home = homes.get(z.zcta) ?? null;
    const state = home?.state ?? postal?.state ?? '';
    count(stats.stateFrom, home ? home.rule : postal ? 'postal' : 'nearest');
    count(stats.cityFrom, postal ? 'postal' : 'nearest');
    const population = data.census.get(z.zcta)?.get('population')?.value ?? null;
    const joinCounty = home ? countyFor2023Tables(home.countyFips) : null;
    const point = chosen.get(z.zcta)!;
    count(stats.pointFrom, point.source);
    return {
      zip: z.zcta,
      state,
      stateName: STATE_NAMES[state] ?? state,
      city: postal?.city ?? '',
      countyFips: home?.countyFips ?? null,
      cbsaCode: joinCounty ? (data.countyCbsa.get(joinCounty)?.cbsaCode ?? null) : null,
      urbanRuralCode: joinCounty ? (data.countyUrbanRural.get(joinCounty) ?? null) : null,
      latitude: point.latitude,
      longitude: point.longitude,
      pointSource: point.source,
      gazetteerLatitude: z.latitude,
      gazetteerLongitude: z.longitude,
      landSqMi: z.landSqMi,
      population: population === null ? null : Math.round(population),
    };
  });
  const index = new PointIndex(
    Float64Array.from(places, (p) => p.longitude),
    Float64Array.from(places, (p) => p.latitude),
  );
  fillFromNearest(places, index);
  return { places, index, stats, withdrawn };
}

/**
 * Miles from a point to the nearest 2020 tract centre of population of a ZCTA's home county (its tracts under
 * the county's current codes, where it was renamed or split since HUD's crosswalk; tracts of no residents left
 * out), null without either.
 */
function milesFromCountyResidents(
  homes: Map<string, { countyFips: string } | null>,
  tractCentres: Ingested['tractCentres'],
): MilesFromResidents {
  const byCounty = new Map<string, Ingested['tractCentres']>();
  for (const row of tractCentres) {
    if (row.population === 0) continue;
    const county = row.tract.slice(0, 5);
    const tracts = byCounty.get(county);
    if (tracts) tracts.push(row);
    else byCounty.set(county, [row]);
  }
  return (zcta, longitude, latitude) => {
    const county = homes.get(zcta)?.countyFips;
    const tracts = county ? [county, ...(COUNTY_SUCCESSORS[county] ?? [])].flatMap((code) => byCounty.get(code) ?? []) : [];
    if (tracts.length === 0) return null;
    return Math.min(...tracts.map((t) => haversineMiles(longitude, latitude, t.longitude, t.latitude)));
  };
}

/**
 * The state holding most of a ZCTA's residents, and its county holding most of them. The HUD ZIP-county crosswalk gives each
 * postal ZIP's share of residential addresses per county: the same-numbered ZIP's shares when HUD lists it
 * (a ZCTA is named after the ZIP that dominates its addresses), else the mean over every ZIP the ZCTA holds;
 * all addresses when no residential address is listed (business-only ZIPs). Without HUD rows, the 2020
 * ZCTA-county file, preferring counties in the postal state: it is unweighted, so its first county is only a
 * last resort. `rule` names which source decided, for `meta.places`.
 */
export function homeCounty(
  zcta: string,
  zips: string[],
  data: Pick<Ingested, 'zipCounties' | 'zctaCounties'>,
  postalState?: string,
): { countyFips: string; state: string; rule: string } | null {
  const groups = hudRows(zcta, zips, data);
  for (const [share, rule] of HUD_SHARES) {
    const byCounty = sharesByCounty(groups, share);
    // The state first (a ZIP split 40/35/25 over counties in two states belongs to the state with 60%), then
    // its county with the largest share. Ties go to the lower code, so file order never decides.
    const byState = new Map<string, number>();
    for (const [county, value] of byCounty) {
      const state = STATE_BY_FIPS[county.slice(0, 2)];
      if (state) byState.set(state, (byState.get(state) ?? 0) + value);
    }
    const state = largest(byState);
    if (!state) continue;
    const county = largest(new Map([...byCounty].filter(([fips]) => STATE_BY_FIPS[fips.slice(0, 2)] === state)))!;
    return { countyFips: county, state, rule };
  }
  const listed = [...(data.zctaCounties.get(zcta) ?? [])].sort(
    (a, b) => Number(b.state === postalState) - Number(a.state === postalState) || (b.weight ?? 0) - (a.weight ?? 0),
  );
  const county = listed[0];
  return county ? { countyFips: county.countyFips, state: county.state, rule: 'zcta_county' } : null;
}

/**
 * How a ZCTA's residents divide between counties, as shares summing to 1 (null when no crosswalk names the
 * ZCTA): the HUD residential shares `homeCounty` reads, else all addresses, else the 2020 ZCTA-county file
 * (its weights, or equal shares where it has none). Clinician counts per county are spread over ZIPs by it.
 */
export function countyShares(
  zcta: string,
  zips: string[],
  data: Pick<Ingested, 'zipCounties' | 'zctaCounties'>,
): Map<string, number> | null {
  const groups = hudRows(zcta, zips, data);
  for (const [share] of HUD_SHARES) {
    const byCounty = sharesByCounty(groups, share);
    const total = [...byCounty.values()].reduce((a, b) => a + b, 0);
    if (total > 0) return new Map([...byCounty].filter(([, v]) => v > 0).map(([county, v]) => [county, v / total]));
  }
  const listed = data.zctaCounties.get(zcta) ?? [];
  if (listed.length === 0) return null;
  const weighed = listed.every((row) => (row.weight ?? 0) > 0);
  const total = weighed ? listed.reduce((sum, row) => sum + row.weight!, 0) : listed.length;
  const shares = new Map<string, number>();
  for (const row of listed) shares.set(row.countyFips, (shares.get(row.countyFips) ?? 0) + (weighed ? row.weight! : 1) / total);
  return shares;
}

const HUD_SHARES = [
  ['residentialRatio', 'hud_residential'],
  ['totalRatio', 'hud_all_addresses'],
] as const;

/**
 * The HUD ZIP-county rows that speak for a ZCTA: the same-numbered ZIP's when HUD lists it with residential
 * addresses (a ZCTA is named after the ZIP that dominates its addresses), else those of every ZIP it holds.
 * A row in a state where the Census ZCTA-county file has no part of the ZCTA is left out (`plausibleHudRows`).
 */
function hudRows(zcta: string, zips: string[], data: Pick<Ingested, 'zipCounties' | 'zctaCounties'>): ZipCountyRow[][] {
  const rows = (zip: string) => plausibleHudRows(zcta, data.zipCounties.get(zip), data);
  const sameNumbered = rows(zcta);
  return sameNumbered?.some((r) => r.residentialRatio > 0)
    ? [sameNumbered]
    : (zips.map(rows).filter((list) => list !== undefined && list.length > 0) as ZipCountyRow[][]);
}

/**
 * HUD's rows of a ZIP without those in a state the Census 2020 ZCTA-county file does not put the ZCTA in: HUD's
 * 2020 Q4 crosswalk files Guam's ZIPs 96910, 96913, 96915 and 96929 under American Samoa's Eastern District
 * (60010), where the Census file, the postal state and the ZIPs' own names say Guam.
 */
export function plausibleHudRows(
  zcta: string,
  rows: ZipCountyRow[] | undefined,
  data: Pick<Ingested, 'zctaCounties'>,
): ZipCountyRow[] | undefined {
  const states = data.zctaCounties.get(zcta)?.map((row) => row.countyFips.slice(0, 2));
  if (!rows || !states?.length) return rows;
  return rows.filter((row) => states.includes(row.countyFips.slice(0, 2)));
}

function sharesByCounty(groups: ZipCountyRow[][], share: 'residentialRatio' | 'totalRatio'): Map<string, number> {
  const byCounty = new Map<string, number>();
  for (const rows of groups) for (const row of rows) byCounty.set(row.countyFips, (byCounty.get(row.countyFips) ?? 0) + row[share]);
  return byCounty;
}

/** The key with the largest positive value (the lowest key among ties), or null. */
function largest(values: Map<string, number>): string | null {
  let best: [string, number] | null = null;
  for (const entry of values)
    if (entry[1] > 0 && (!best || entry[1] > best[1] || (entry[1] === best[1] && entry[0] < best[0]))) best = entry;
  return best ? best[0] : null;
}

/** A ZCTA no crosswalk names takes the state and city of its nearest named neighbour. */
function fillFromNearest(places: ZipPlace[], index: PointIndex): void {
  for (const place of places) {
    if (place.state && place.city) continue;
    const neighbour = index
      .within(place.longitude, place.latitude, 100, 20)
      .map((hit) => places[hit.id])
      .find((p) => p.state && p.city);
    place.state ||= neighbour?.state ?? 'XX';
    place.stateName ||= STATE_NAMES[place.state] ?? place.state;
    place.city ||= neighbour?.city ?? place.zip;
  }
}
