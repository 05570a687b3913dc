import type { Queries } from '../query/index.ts';
import type { MapScoreRow } from '../query/map.ts';
import { bandsOf, type MapBand } from './bands.ts';
import { areaMeans, type AreaMean } from './means.ts';
import { STATE_FIPS, type Box } from './projection.ts';
import { Slicer } from './slices.ts';
import { GRID, mapGeography, RENAMED_COUNTIES, type MapShapes } from './shapes.ts';

/** One ZIP code on the map: its frame point, state and county (indexes of the map's lists), residents and city. */
export interface MapZip {
  zip: string;
  x: number;
  y: number;
  state: number;
  /** Index into the shapes' counties; -1 when the build names a county the outlines lack. */
  county: number;
  residents: number;
  city: string;
}

/** A state as the map lists it: for the selector, the zoom and the table. */
export interface MapState {
  code: string;
  fips: string;
  name: string;
  zips: number;
  residents: number;
  bbox: Box;
}

/** One score type's scores and components, in the order of the build's ZIP codes (null: no score of this type). */
export interface TypeScores {
  score: Array<number | null>;
  people: Array<number | null>;
  provider: Array<number | null>;
  hospital: Array<number | null>;
  travel: Array<number | null>;
  /** Residents-weighted means of the counties (in the shapes' order) and of the states (in the map's order). */
  counties: AreaMean[];
  states: AreaMean[];
}

/** The map of one build: made once per build (per process or thread) and kept while the build is served. */
export interface BuildMap {
  buildId: string;
  builtAt: string;
  dataset: string;
  sources: Array<{ key: string; vintage: string }>;
  shapes: MapShapes;
  bands: MapBand[];
  scoreTypes: Array<{ id: number; name: string; slug: string; description: string }>;
  states: MapState[];
  zips: MapZip[];
  /** ZIP codes whose county has no outline (a county code newer than the outlines, or none): drawn, but in no county. */
  withoutCounty: number;
  /** ZIP codes drawn in another inset than their state's, where their coordinates are (the build's state is wrong), and those not drawn at all. */
  drawnElsewhere: string[];
  notDrawn: string[];
  /** One score type's scores and means, made on first use and kept. */
  scores(scoreTypeId: number): Promise<TypeScores>;
}

const built = new WeakMap<Queries, Promise<BuildMap>>();

/**
 * The map of the build `queries` reads, made on first use (about a second with the outlines, a third without,
 * in slices that give the event loop back) and kept with it.
 */
export function buildMap(queries: Queries): Promise<BuildMap> {
  let map = built.get(queries);
  if (map === undefined) {
    map = makeMap(queries);
    built.set(queries, map);
  }
  return map;
}

async function makeMap(queries: Queries): Promise<BuildMap> {
  const { projection, shapes } = await mapGeography();
  const slicer = new Slicer(2000);
  const countyIndex = new Map(shapes.counties.map((county, i) => [county.fips, i]));
  const stateShapes = new Map(shapes.states.map((state) => [state.fips, state]));
  const states: MapState[] = [];
  const stateIndex = new Map<string, number>();
  const zips: MapZip[] = [];
  let withoutCounty = 0;
  const notDrawn: string[] = [];
  const elsewhere: string[] = [];
  for (const row of queries.map.zips()) {
    const fips = STATE_FIPS[row.state];
    if (fips === undefined || !projection.has(fips)) {
      throw new Error(`ZIP code ${row.zip_code} is in state ${row.state}, which the map has no place for: add it to src/map/projection.ts`);
    }
    let index = stateIndex.get(row.state);
    if (index === undefined) {
      index = states.length;
      stateIndex.set(row.state, index);
      const bbox = stateShapes.get(fips)?.bbox ?? [
        [0, 0],
        [0, 0],
      ];
      states.push({ code: row.state, fips, name: row.state_name, zips: 0, residents: 0, bbox });
    }
    const state = states[index];
    state.zips++;
    state.residents += row.residents;
    const county = row.county_fips === null ? -1 : (countyIndex.get(RENAMED_COUNTIES[row.county_fips] ?? row.county_fips) ?? -1);
    if (county < 0) withoutCounty++;
    const placed = projection.place(row.longitude, row.latitude, fips);
    if (placed === undefined) {
      notDrawn.push(row.zip_code);
      continue;
    }
    if (placed.inset !== projection.insetOf(fips)) elsewhere.push(row.zip_code);
    const [x, y] = placed.point;
    zips.push({ zip: row.zip_code, x, y, state: index, county, residents: row.residents, city: row.city });
    await slicer.step();
  }
  const byType = new Map<number, Promise<TypeScores>>();
  const dataset = queries.meta.dataset as { name?: string } | null;
  return {
    buildId: queries.meta.build_id,
    builtAt: queries.meta.built_at,
    dataset: dataset?.name ?? '',
    sources: queries.meta.sources.map((source) => ({ key: String(source.key ?? ''), vintage: String(source.vintage ?? '') })),
    shapes,
    bands: bandsOf(queries.map.bands()),
    scoreTypes: queries.scoreTypes.all.map(({ id, name, slug, description }) => ({ id, name, slug, description })),
    states,
    zips,
    withoutCounty,
    drawnElsewhere: elsewhere,
    notDrawn,
    scores(scoreTypeId) {
      let scores = byType.get(scoreTypeId);
      if (scores === undefined) {
        scores = typeScores(zips, queries.map.scores(scoreTypeId), shapes.counties.length, states.length, slicer);
        byType.set(scoreTypeId, scores);
      }
      return scores;
    },
  };
}

/** The rows of one score type laid out in ZIP order (both lists are sorted by ZIP code), with the area means. */
async function typeScores(
  zips: readonly MapZip[],
  rows: readonly MapScoreRow[],
  countyCount: number,
  stateCount: number,
  slicer: Slicer,
): Promise<TypeScores> {
  const none = () => new Array<number | null>(zips.length).fill(null);
  const scores: Omit<TypeScores, 'counties' | 'states'> = {
    score: none(),
    people: none(),
    provider: none(),
    hospital: none(),
    travel: none(),
  };
  let at = 0;
  for (const row of rows) {
    while (at < zips.length && zips[at].zip < row.zip_code) at++;
    if (at === zips.length || zips[at].zip !== row.zip_code) continue; // a score row without a ZIP row: the build forbids it
    scores.score[at] = row.healthscore;
    scores.people[at] = row.people_score;
    scores.provider[at] = row.provider_score;
    scores.hospital[at] = row.hospital_score;
    scores.travel[at] = row.travel_score;
    await slicer.step();
  }
  return {
    ...scores,
    counties: areaMeans(zips, scores.score, (zip) => zip.county, countyCount),
    states: areaMeans(zips, scores.score, (zip) => zip.state, stateCount),
  };
}

/** The grid integer of a frame coordinate (the page's data files carry coordinates as integers of 1/GRID unit). */
export function onGrid(value: number): number {
  return Math.round(value * GRID);
}
