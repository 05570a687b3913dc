import type { Ingested } from '../ingest/index.ts';
import { PointIndex } from './point-index.ts';
import { STATE_NAMES } from './states.ts';

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
  latitude: number;
  longitude: number;
  landSqMi: number;
  population: number | null;
}

/** Where each ZIP's state and city came from, counted for the build log and `meta`. */
export interface PlaceStats {
  cityFrom: Record<string, number>;
  stateFrom: Record<string, number>;
}

/**
 * Assembles the ZIPs to score from the Gazetteer, naming each with the best source available:
 * the postal name of the same-numbered ZIP, then any ZIP that maps to the ZCTA, then the nearest named ZCTA.
 */
export function assemblePlaces(data: Ingested): { places: ZipPlace[]; index: PointIndex; stats: PlaceStats } {
  const zctas = [...data.zctas.values()].sort((a, b) => (a.zcta < b.zcta ? -1 : 1));
  const postalByZcta = new Map<string, { city: string; state: string }>();
  for (const row of data.zipToZcta.values()) {
    if (!postalByZcta.has(row.zcta) || row.zip === row.zcta) postalByZcta.set(row.zcta, row);
  }
  const stats: PlaceStats = { cityFrom: {}, stateFrom: {} };
  const count = (record: Record<string, number>, key: string) => (record[key] = (record[key] ?? 0) + 1);
  const places: ZipPlace[] = zctas.map((z) => {
    const counties = data.zctaCounties.get(z.zcta) ?? [];
    const county = [...counties].sort((a, b) => (b.weight ?? 0) - (a.weight ?? 0))[0];
    const postal = data.zipToZcta.get(z.zcta) ?? postalByZcta.get(z.zcta) ?? data.zipCity.get(z.zcta);
    const state = county?.state ?? postal?.state ?? '';
    count(stats.stateFrom, county ? 'zcta_county' : postal ? 'postal' : 'nearest');
    count(stats.cityFrom, postal ? 'postal' : 'nearest');
    const population = data.census.get(z.zcta)?.get('population')?.value ?? null;
    return {
      zip: z.zcta, state, stateName: STATE_NAMES[state] ?? state, city: postal?.city ?? '',
      countyFips: county?.countyFips ?? null,
      cbsaCode: county ? data.countyCbsa.get(county.countyFips)?.cbsaCode ?? null : null,
      urbanRuralCode: county ? data.countyUrbanRural.get(county.countyFips) ?? null : null,
      latitude: z.latitude, longitude: z.longitude, landSqMi: z.landSqMi,
      population: population === null ? null : Math.round(population),
    };
  });
  const index = new PointIndex(Float64Array.from(places, (p) => p.longitude), Float64Array.from(places, (p) => p.latitude));
  fillFromNearest(places, index);
  return { places, index, stats };
}

/** A ZCTA no crosswalk names takes the state and city of its nearest named neighbour. */
function fillFromNearest(places: ZipPlace[], index: PointIndex): void {
  for (const place of places) {
    if (place.state && place.city) continue;
    const neighbour = index.within(place.longitude, place.latitude, 100, 20).map((hit) => places[hit.id]).find((p) => p.state && p.city);
    place.state ||= neighbour?.state ?? 'XX';
    place.stateName ||= STATE_NAMES[place.state] ?? place.state;
    place.city ||= neighbour?.city ?? place.zip;
  }
}
