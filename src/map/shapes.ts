import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { FeatureCollection } from 'geojson';
import { feature, mergeArcs } from 'topojson-client';
import type { GeometryCollection, GeometryObject, Topology } from 'topojson-specification';
import { CompositeProjection, FRAME, type Box, type FramePoint } from './projection.ts';
import { simplifyLine } from './simplify.ts';
import { Slicer } from './slices.ts';

/** Grid steps per frame unit: outlines and points are stored as integers of 1/10 frame unit. */
export const GRID = 10;
/**
 * Douglas-Peucker tolerance in frame units. The national view draws a frame unit at about one pixel and a
 * state view zooms in up to about 16x: 0.08 units keeps each bend the us-atlas 1:10,000,000 outlines have at
 * that zoom, and halves their points (measured: bench/map.ts prints the shapes' size).
 */
const TOLERANCE = 0.08;

/** The counties the build's crosswalk names by an older code than us-atlas's 2017 outlines (Census, "Substantial changes to counties"). */
export const RENAMED_COUNTIES: Readonly<Record<string, string>> = {
  '02270': '02158', // Wade Hampton Census Area, Alaska, renamed Kusilvak Census Area in 2015
  '46113': '46102', // Shannon County, South Dakota, renamed Oglala Lakota County in 2015
};

/** What the outlines come from, for the map's source note. */
export const SHAPES_SOURCE = 'U.S. Census Bureau cartographic boundaries, 2017 (us-atlas 3, 1:10,000,000)';

export interface StateShape {
  fips: string;
  name: string;
  /** Its rings, as a county's: the land the page fills under the dots. */
  rings: number[][];
  /** [[left, top], [right, bottom]] in frame units. */
  bbox: Box;
}

export interface CountyShape {
  fips: string;
  name: string;
  /** Its rings (outer rings and holes alike: they are filled even-odd), each a list of arc indexes; ~i is arc i reversed. */
  rings: number[][];
  bbox: Box;
}

/**
 * The map's outlines in the frame, ready to draw: every county's rings as shared arcs (so two neighbours draw
 * one line), and which arcs are the nation's outline, a state border or a county border. Arcs are delta-coded
 * integers on the GRID: [x0, y0, dx1, dy1, ...].
 */
export interface MapShapes {
  format: 1;
  frame: { width: number; height: number };
  grid: number;
  source: string;
  insets: Array<{ id: string; name: string; box: Box }>;
  arcs: number[][];
  borders: { outline: number[]; state: number[]; county: number[] };
  /**
   * The land the page fills under the dots: the states merged (outer rings and holes, filled even-odd), so the
   * borders between states are not in it: half the points of the states' rings, each border once as an outline.
   */
  land: number[][];
  states: StateShape[];
  counties: CountyShape[];
}

type CountyTopology = Topology<{ counties: GeometryCollection<{ name: string }>; states: GeometryCollection<{ name: string }> }>;

/** The composite projection and the outlines in the frame. */
export interface Geography {
  projection: CompositeProjection;
  shapes: MapShapes;
}

let loaded: Promise<Geography> | undefined;

/**
 * The composite projection and the outlines, made once per process from us-atlas (about a second of work, in
 * slices that give the event loop back) and kept.
 */
export function mapGeography(): Promise<Geography> {
  loaded ??= makeGeography();
  return loaded;
}

async function makeGeography(): Promise<Geography> {
  const file = createRequire(import.meta.url).resolve('us-atlas/counties-10m.json');
  const topology = JSON.parse(readFileSync(file, 'utf8')) as CountyTopology;
  const projection = new CompositeProjection(feature(topology, topology.objects.states) as FeatureCollection);
  return { projection, shapes: await projectShapes(topology, projection) };
}

async function projectShapes(topology: CountyTopology, projection: CompositeProjection): Promise<MapShapes> {
  const slicer = new Slicer(400);
  const counties = topology.objects.counties.geometries.filter((county) => projection.has(String(county.id).slice(0, 2)));
  const users = arcUsers(counties, topology.arcs.length);
  const arcs: number[][] = [];
  const points: FramePoint[][] = [];
  for (let i = 0; i < topology.arcs.length; i++) {
    const first = users[i][0];
    // An arc no drawn county uses (none in us-atlas 3) stays empty.
    const line = first === undefined ? [] : projectArc(topology, i, projection, String(counties[first].id).slice(0, 2));
    points.push(line);
    arcs.push(deltaCode(line));
    await slicer.step();
  }
  const borders = { outline: [] as number[], state: [] as number[], county: [] as number[] };
  users.forEach((used, i) => {
    if (used.length === 0) return;
    if (used.length === 1) borders.outline.push(i);
    else if (String(counties[used[0]].id).slice(0, 2) !== String(counties[used[1]].id).slice(0, 2)) borders.state.push(i);
    else borders.county.push(i);
  });
  const countyShapes = counties.map((county) => {
    const rings = ringsOf(county);
    return { fips: String(county.id), name: nameOf(county), rings, bbox: boundsOf(rings.flat(), points) };
  });
  const drawnStates = topology.objects.states.geometries.filter((state) => projection.has(String(state.id)));
  const land = mergeArcs(topology, drawnStates as Array<GeometryObject & { type: 'Polygon' | 'MultiPolygon' }>).arcs.flat();
  const states = drawnStates.map((state) => {
    const rings = ringsOf(state);
    return { fips: String(state.id), name: nameOf(state), rings, bbox: boundsOf(rings.flat(), points) };
  });
  return {
    format: 1,
    frame: { ...FRAME },
    grid: GRID,
    source: SHAPES_SOURCE,
    insets: projection.insets.filter((inset) => inset.name !== '').map(({ id, name, box }) => ({ id, name, box })),
    arcs,
    borders,
    land,
    states,
    counties: countyShapes,
  };
}

/** For each arc, the indexes of the counties whose rings use it (one for a coast or the border, two inside). */
function arcUsers(counties: ReadonlyArray<GeometryObject>, arcCount: number): number[][] {
  const users: number[][] = Array.from({ length: arcCount }, () => []);
  counties.forEach((county, index) => {
    for (const arc of ringsOf(county).flat()) {
      const list = users[arc < 0 ? ~arc : arc];
      if (!list.includes(index)) list.push(index);
    }
  });
  return users;
}

function ringsOf(geometry: GeometryObject): number[][] {
  if (geometry.type === 'Polygon') return geometry.arcs;
  if (geometry.type === 'MultiPolygon') return geometry.arcs.flat();
  return [];
}

/** Arc `index` decoded (us-atlas arcs are quantized and delta-coded), projected in its state's inset and simplified. */
function projectArc(topology: CountyTopology, index: number, projection: CompositeProjection, stateFips: string): FramePoint[] {
  const { scale, translate } = topology.transform!;
  let x = 0;
  let y = 0;
  const line: FramePoint[] = [];
  for (const [dx, dy] of topology.arcs[index]) {
    x += dx;
    y += dy;
    line.push(projection.project(x * scale[0] + translate[0], y * scale[1] + translate[1], stateFips));
  }
  return simplifyLine(line, TOLERANCE);
}

/** Points on the grid, delta-coded; a point that rounds onto the one before it is dropped (never an endpoint). */
function deltaCode(line: readonly FramePoint[]): number[] {
  const coded: number[] = [];
  let px = 0;
  let py = 0;
  line.forEach(([fx, fy], i) => {
    const x = Math.round(fx * GRID);
    const y = Math.round(fy * GRID);
    if (i > 0 && i < line.length - 1 && x === px && y === py) return;
    coded.push(x - px, y - py);
    px = x;
    py = y;
  });
  return coded;
}

function boundsOf(arcIndexes: readonly number[], points: ReadonlyArray<readonly FramePoint[]>): Box {
  let [left, top, right, bottom] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const arc of arcIndexes) {
    for (const [x, y] of points[arc < 0 ? ~arc : arc]) {
      left = Math.min(left, x);
      top = Math.min(top, y);
      right = Math.max(right, x);
      bottom = Math.max(bottom, y);
    }
  }
  const snap = (value: number) => Math.round(value * GRID) / GRID;
  return [
    [snap(left), snap(top)],
    [snap(right), snap(bottom)],
  ];
}

/** Decodes one delta-coded arc into frame points (the page's map.js does the same in the browser). */
export function decodeArc(arc: readonly number[], grid: number): FramePoint[] {
  const line: FramePoint[] = [];
  let x = 0;
  let y = 0;
  for (let i = 0; i < arc.length; i += 2) {
    x += arc[i];
    y += arc[i + 1];
    line.push([x / grid, y / grid]);
  }
  return line;
}

function nameOf(geometry: GeometryObject): string {
  return (geometry.properties as { name?: string } | undefined)?.name ?? '';
}
