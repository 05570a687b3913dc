import { geoAlbers, geoConicEqualArea, geoEquirectangular, type GeoProjection } from 'd3-geo';
import type { FeatureCollection } from 'geojson';

/** The map's frame, in frame units: us-atlas's 975 x 610 viewport, which every view (page, SVG, PNG) scales. */
export const FRAME = { width: 975, height: 610 } as const;

/** A rectangle of the frame: [[left, top], [right, bottom]]. */
export type Box = [[number, number], [number, number]];

/** Postal code to FIPS state code, for the 50 states, DC, Puerto Rico and the four territories with ZIP codes. */
export const STATE_FIPS: Readonly<Record<string, string>> = {
  AL: '01',
  AK: '02',
  AZ: '04',
  AR: '05',
  CA: '06',
  CO: '08',
  CT: '09',
  DE: '10',
  DC: '11',
  FL: '12',
  GA: '13',
  HI: '15',
  ID: '16',
  IL: '17',
  IN: '18',
  IA: '19',
  KS: '20',
  KY: '21',
  LA: '22',
  ME: '23',
  MD: '24',
  MA: '25',
  MI: '26',
  MN: '27',
  MS: '28',
  MO: '29',
  MT: '30',
  NE: '31',
  NV: '32',
  NH: '33',
  NJ: '34',
  NM: '35',
  NY: '36',
  NC: '37',
  ND: '38',
  OH: '39',
  OK: '40',
  OR: '41',
  PA: '42',
  RI: '44',
  SC: '45',
  SD: '46',
  TN: '47',
  TX: '48',
  UT: '49',
  VT: '50',
  VA: '51',
  WA: '53',
  WV: '54',
  WI: '55',
  WY: '56',
  AS: '60',
  GU: '66',
  MP: '69',
  PR: '72',
  VI: '78',
};

/**
 * One part of the composite map: the states (two-digit FIPS codes) drawn in it, the projection they are
 * drawn with, and the box of the frame they are fitted into. Alaska, Hawaii, Puerto Rico and the Pacific
 * territories are insets, each at its own scale (the page's legend says so).
 */
export interface Inset {
  id: string;
  /** What the inset box is labelled (the lower 48 are not boxed). */
  name: string;
  states: readonly string[];
  box: Box;
  projection: () => GeoProjection;
}

/**
 * The layout. Projections: USGS Albers for the lower 48 (d3's geoAlbersUsa), conic equal-area for Alaska
 * and Hawaii (the parallels geoAlbersUsa uses) and for Puerto Rico, plate carrée for the small Pacific
 * islands. The insets sit where the lower 48 leave the frame empty: under California, the Gulf and off Florida.
 */
export const INSETS: readonly Inset[] = [
  {
    id: 'lower48',
    name: '',
    states: lower48States(),
    box: [
      [12, 8],
      [963, 548],
    ],
    projection: () => geoAlbers(),
  },
  {
    id: 'alaska',
    name: 'Alaska',
    states: ['02'],
    box: [
      [8, 440],
      [208, 602],
    ],
    projection: () => geoConicEqualArea().rotate([154, 0]).center([-2, 58.5]).parallels([55, 65]),
  },
  {
    id: 'hawaii',
    name: 'Hawaii',
    states: ['15'],
    box: [
      [214, 500],
      [364, 602],
    ],
    projection: () => geoConicEqualArea().rotate([157, 0]).center([-3, 19.9]).parallels([8, 18]),
  },
  {
    id: 'guam',
    name: 'Guam, N. Marianas',
    states: ['66', '69'],
    box: [
      [498, 536],
      [598, 602],
    ],
    projection: () => geoEquirectangular().rotate([-145, -16.8]),
  },
  {
    id: 'samoa',
    name: 'American Samoa',
    states: ['60'],
    box: [
      [602, 536],
      [682, 602],
    ],
    projection: () => geoEquirectangular().rotate([170, 14.3]),
  },
  {
    id: 'caribbean',
    name: 'Puerto Rico, U.S. Virgin Islands',
    states: ['72', '78'],
    box: [
      [810, 540],
      [967, 602],
    ],
    projection: () => geoConicEqualArea().rotate([66, 0]).center([0, 18]).parallels([8, 18]),
  },
];

/** The lower 48 states and DC: every state FIPS code but those of the insets. */
function lower48States(): string[] {
  const inset = new Set(['02', '15', '60', '66', '69', '72', '78']);
  return Object.values(STATE_FIPS).filter((fips) => !inset.has(fips));
}

/** Height of the strip at the top of an inset's box that holds its name, in frame units. */
const LABEL_STRIP = 14;

/** How far outside its box (frame units) a point may fall and still count as in it: points on a coast the outlines cut. */
const BOX_MARGIN = 3;

function inside([x, y]: FramePoint, [[left, top], [right, bottom]]: Box, margin: number): boolean {
  return x >= left - margin && x <= right + margin && y >= top - margin && y <= bottom + margin;
}

/** A point of the frame, [x, y] in frame units. */
export type FramePoint = [number, number];

/**
 * The composite projection of the frame: each inset's projection fitted to its box by the outlines of its
 * states, so every inset's shapes and points land inside its box. A point is projected by its state (not by
 * where its longitude falls), so a ZIP code is drawn in its own inset whatever its coordinates.
 */
export class CompositeProjection {
  private readonly byState = new Map<string, Inset & { fitted: GeoProjection }>();
  readonly insets: ReadonlyArray<Inset & { fitted: GeoProjection }>;

  /** `states`: the state outlines in longitude and latitude, each feature's `id` its FIPS code. */
  constructor(states: FeatureCollection) {
    this.insets = INSETS.map((inset) => {
      const wanted = new Set(inset.states);
      const features = states.features.filter((feature) => wanted.has(String(feature.id)));
      if (features.length === 0) throw new Error(`no outline for the states of the ${inset.id} inset (${inset.states.join(', ')})`);
      // A named inset keeps a strip at its top for its name, and a margin inside its frame.
      const [[left, top], [right, bottom]] = inset.box;
      const inner: Box =
        inset.name === ''
          ? inset.box
          : [
              [left + 4, top + LABEL_STRIP],
              [right - 4, bottom - 4],
            ];
      const fitted = { ...inset, fitted: inset.projection().fitExtent(inner, { type: 'FeatureCollection', features }) };
      for (const fips of inset.states) this.byState.set(fips, fitted);
      return fitted;
    });
  }

  /**
   * The frame point of a longitude and latitude in the state of FIPS code `stateFips`, and the inset it is
   * drawn in: the state's own when the point falls in its box, else the inset whose box it falls in (a ZIP
   * code whose state the build got wrong is drawn where it is), else undefined.
   */
  place(longitude: number, latitude: number, stateFips: string): { point: FramePoint; inset: string } | undefined {
    const own = this.byState.get(stateFips);
    if (own === undefined) throw new Error(`the map has no inset for state FIPS ${stateFips}: add it to INSETS in src/map/projection.ts`);
    // The lower 48's projection puts far-away places inside its large box, so it is tried last.
    for (const inset of [own, ...this.insets.filter((each) => each !== own && each.id !== 'lower48'), this.insets[0]]) {
      const point = inset.fitted([longitude, latitude]);
      if (point !== null && inside(point, inset.box, BOX_MARGIN)) return { point, inset: inset.id };
    }
    return undefined;
  }

  /** The frame point of a place known to be in the state's inset (the outlines' own points); throws for a state without one. */
  project(longitude: number, latitude: number, stateFips: string): FramePoint {
    const inset = this.byState.get(stateFips);
    if (inset === undefined) throw new Error(`the map has no inset for state FIPS ${stateFips}: add it to INSETS in src/map/projection.ts`);
    const point = inset.fitted([longitude, latitude]);
    if (point === null) throw new Error(`${longitude}, ${latitude} does not project in the inset of state FIPS ${stateFips}`);
    return point;
  }

  /** The id of the inset a state is drawn in. */
  insetOf(stateFips: string): string | undefined {
    return this.byState.get(stateFips)?.id;
  }

  /** True for a state FIPS code the map draws. */
  has(stateFips: string): boolean {
    return this.byState.has(stateFips);
  }
}
