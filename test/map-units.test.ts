import { describe, expect, it } from 'vitest';
import { BANDS } from '../pipeline/config/bands.ts';
import { bandsOf, gradeOf } from '../src/map/bands.ts';
import { COLUMNS_MAGIC, columnsFile } from '../src/map/columns.ts';
import type { BuildMap } from '../src/map/data.ts';
import { cityColumn, nationalFile, outlinesFile, zipsFile } from '../src/map/files.ts';
// @ts-expect-error: the page's plain JavaScript, run here against the writer.
import { readColumns } from '../src/map/page/columns.js';
// @ts-expect-error: as above.
import { decodeZips } from '../src/map/page/data.js';
// @ts-expect-error: as above.
import { Arcs } from '../src/map/page/geometry.js';
import { areaMeans } from '../src/map/means.ts';
import { FRAME, INSETS, STATE_FIPS, type FramePoint } from '../src/map/projection.ts';
import { decodeArc, mapGeography, RENAMED_COUNTIES } from '../src/map/shapes.ts';
import { simplifyLine } from '../src/map/simplify.ts';
import { DEFICIENCIES, type Deficiency, distance } from './helpers/colour-vision.ts';

const { projection, shapes } = await mapGeography();

/** True when a frame point is inside a state's projected outline (even-odd over all its rings). */
function insideState(point: FramePoint, fips: string): boolean {
  const state = shapes.states.find((each) => each.fips === fips)!;
  let inside = false;
  for (const ring of state.rings) {
    const line = ring.flatMap((arc) => {
      const points = decodeArc(shapes.arcs[arc < 0 ? ~arc : arc], shapes.grid);
      return arc < 0 ? points.reverse() : points;
    });
    for (let i = 0, j = line.length - 1; i < line.length; j = i++) {
      const [xi, yi] = line[i];
      const [xj, yj] = line[j];
      if (yi > point[1] !== yj > point[1] && point[0] < ((xj - xi) * (point[1] - yi)) / (yj - yi) + xi) inside = !inside;
    }
  }
  return inside;
}

/**
 * SVG path data of `M x y` and relative `l dx dy ...` (with `z` when `closed`) as each subpath's absolute
 * points, "x,y" each: what a browser's Path2D makes of nationalFile's paths.
 */
function subpaths(data: string, closed = false): string[][] {
  const out: string[][] = [];
  for (const part of data.split('M').slice(1)) {
    const match = /^(-?\d+) (-?\d+)(?:l([-\d ]*))?(z?)$/.exec(part);
    if (!match || (match[4] === 'z') !== closed) throw new Error(`unexpected path data: M${part.slice(0, 40)}`);
    let x = Number(match[1]);
    let y = Number(match[2]);
    const line = [`${x},${y}`];
    const deltas = (match[3] ?? '').match(/-?\d+/g)?.map(Number) ?? [];
    for (let i = 0; i < deltas.length; i += 2) {
      x += deltas[i];
      y += deltas[i + 1];
      line.push(`${x},${y}`);
    }
    out.push(line);
  }
  return out;
}

describe('the composite projection', () => {
  /** Residents' points of known ZIP codes (HUD's, as the default build has them) and the state each must land in. */
  const KNOWN: Array<[string, number, number, string]> = [
    ['New York 10001', -73.995561854, 40.749206183, 'NY'],
    ['Denver 80202', -104.9942, 39.7527, 'CO'],
    ['Miami 33130', -80.2004, 25.7672, 'FL'],
    ['Anchorage 99501', -149.87769674, 61.212584438, 'AK'],
    ['Honolulu 96813', -157.85337088, 21.308558607, 'HI'],
    ['San Juan 00901', -66.107039411, 18.464787217, 'PR'],
    ['Christiansted 00820', -64.713550072, 17.743487943, 'VI'],
    ['Saipan 96950', 145.754396, 15.186894, 'MP'],
    ['Pago Pago 96799', -170.751146, -14.324258, 'AS'],
  ];

  it.each(KNOWN)('places %s inside its state outline, in its inset', (_, longitude, latitude, code) => {
    const fips = STATE_FIPS[code];
    const placed = projection.place(longitude, latitude, fips)!;
    expect(placed.inset).toBe(projection.insetOf(fips));
    // Small islands are drawn at a few frame units: a point on the coast may fall a little outside the simplified outline.
    const [x, y] = placed.point;
    const near = [0, 0.6, -0.6].some((dx) => [0, 0.6, -0.6].some((dy) => insideState([x + dx, y + dy], fips)));
    expect(near, `${code} at ${x}, ${y}`).toBe(true);
  });

  it('keeps the lower 48 in their order on the map: New York east of Denver, Miami south of both', () => {
    const at = (lon: number, lat: number, code: string) => projection.place(lon, lat, STATE_FIPS[code])!.point;
    const [ny, denver, miami] = [at(-73.9956, 40.7492, 'NY'), at(-104.9942, 39.7527, 'CO'), at(-80.2004, 25.7672, 'FL')];
    expect(ny[0]).toBeGreaterThan(denver[0]);
    expect(miami[1]).toBeGreaterThan(ny[1]);
    expect(miami[1]).toBeGreaterThan(denver[1]);
  });

  it('fits every state inside its inset box, and every box inside the frame', () => {
    for (const inset of INSETS) {
      const [[left, top], [right, bottom]] = inset.box;
      expect(left >= 0 && top >= 0 && right <= FRAME.width && bottom <= FRAME.height, inset.id).toBe(true);
      for (const fips of inset.states) {
        const state = shapes.states.find((each) => each.fips === fips);
        expect(state, `outline of ${fips}`).toBeDefined();
        const [[x0, y0], [x1, y1]] = state!.bbox;
        expect(x0 >= left - 0.5 && y0 >= top - 0.5 && x1 <= right + 0.5 && y1 <= bottom + 0.5, `${fips} in ${inset.id}`).toBe(true);
      }
    }
  });

  it('draws a ZIP code whose state the build got wrong where its point is (a Guam ZIP code labelled American Samoa)', () => {
    expect(projection.place(144.750706, 13.450511, STATE_FIPS.AS)?.inset).toBe('guam');
  });

  it('gives every state and territory with ZIP codes an inset, and renames only counties us-atlas lacks', () => {
    for (const [code, fips] of Object.entries(STATE_FIPS)) expect(projection.has(fips), code).toBe(true);
    const codes = new Set(shapes.counties.map((county) => county.fips));
    for (const [old, renamed] of Object.entries(RENAMED_COUNTIES)) {
      expect(codes.has(old), old).toBe(false);
      expect(codes.has(renamed), renamed).toBe(true);
    }
  });

  it('tells the borders apart: every arc once, the nation outline, state and county borders', () => {
    const { outline, state, county } = shapes.borders;
    const all = [...outline, ...state, ...county];
    expect(new Set(all).size).toBe(all.length);
    expect(all.length).toBe(shapes.arcs.filter((arc) => arc.length > 0).length);
    expect(state.length).toBeGreaterThan(500);
    expect(county.length).toBeGreaterThan(state.length);
  });
});

describe('county and state means', () => {
  it('weights each ZIP code by its residents, leaves out ZIP codes without a score and areas of none', () => {
    const zips = [
      { area: 0, residents: 100 },
      { area: 0, residents: 300 },
      { area: 0, residents: 50 },
      { area: 1, residents: 0 },
      { area: 2, residents: 10 },
      { area: -1, residents: 999 },
    ];
    const scores = [40, 80, null, 90, 55, 10];
    const means = areaMeans(zips, scores, (zip) => zip.area, 4);
    // (40 * 100 + 80 * 300) / 400 = 70; the ZIP code without a score counts in zips and residents only.
    expect(means[0]).toEqual({ score: 70, zips: 3, scored: 2, residents: 450, scoredResidents: 400 });
    expect(means[1]).toEqual({ score: null, zips: 1, scored: 1, residents: 0, scoredResidents: 0 });
    expect(means[2].score).toBe(55);
    expect(means[3]).toEqual({ score: null, zips: 0, scored: 0, residents: 0, scoredResidents: 0 });
  });

  it('matches a brute-force mean over seeded random areas', () => {
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const zips = Array.from({ length: 500 }, () => ({ area: Math.floor(random() * 20), residents: Math.floor(random() * 5000) }));
    const scores = zips.map(() => (random() < 0.1 ? null : Math.floor(random() * 101)));
    const means = areaMeans(zips, scores, (zip) => zip.area, 20);
    for (let area = 0; area < 20; area++) {
      const members = zips.map((zip, i) => ({ ...zip, score: scores[i] })).filter((zip) => zip.area === area && zip.score !== null);
      const weight = members.reduce((sum, zip) => sum + zip.residents, 0);
      const expected = weight === 0 ? null : Math.round(members.reduce((sum, zip) => sum + zip.score! * zip.residents, 0) / weight);
      expect(means[area].score, `area ${area}`).toBe(expected);
    }
  });
});

describe('the bands of the legend', () => {
  const bands = bandsOf(BANDS);

  it('groups the grades into the five bands with their ranges, lowest first', () => {
    expect(bands.map((band) => [band.label, band.min, band.max, band.grades.map((grade) => grade.grade)])).toEqual([
      ['Healthcare Desert', 0, 24, ['F']],
      ['Limited Access', 25, 49, ['D', 'D+']],
      ['Moderate Access', 50, 69, ['C', 'C+']],
      ['Excellent Access', 70, 89, ['B', 'B+']],
      ['Healthcare Paradise', 90, 100, ['A', 'A+']],
    ]);
    expect(gradeOf(bands, 36)?.grade.grade).toBe('D');
    expect(gradeOf(bands, 37)?.grade.grade).toBe('D+');
    expect(gradeOf(bands, null)).toBeUndefined();
  });

  it('keeps the grades of different bands distinguishable under the common colour-vision deficiencies', () => {
    // Least CIE76 distance between two grades of different bands: 22.0 with full colour vision, 20.4 with
    // protanopia, 13.5 with deuteranopia (D+ against C), 18.4 with tritanopia; 12 is several times noticeable.
    for (const deficiency of ['none', ...Object.keys(DEFICIENCIES)] as Deficiency[]) {
      for (const a of BANDS) {
        for (const b of BANDS) {
          if (a.label === b.label) continue;
          expect(distance(a.color, b.color, deficiency), `${a.grade} and ${b.grade}, ${deficiency}`).toBeGreaterThan(12);
        }
      }
    }
  });
});

describe('the data files', () => {
  it('writes each city once and every other ZIP code of it as a back-reference', () => {
    const names = ['Agawam', 'Amherst', 'Agawam', 'Boston', 'Boston', 'Amherst'];
    const { cities, city } = cityColumn(names);
    expect(cities).toEqual(['Agawam', 'Amherst', 'Boston']);
    expect(city).toEqual([0, 0, 2, 0, 1, 4]);
    const decoded: string[] = [];
    let next = 0;
    city.forEach((back, i) => decoded.push(back === 0 ? cities[next++] : decoded[i - back]));
    expect(decoded).toEqual(names);
  });

  /** A file's bytes as the page gets them from fetch: an ArrayBuffer of their own. */
  const fetched = (file: Buffer): ArrayBuffer => file.buffer.slice(file.byteOffset, file.byteOffset + file.length) as ArrayBuffer;

  it('reads back every column of a binary file as written, each in the narrowest type, in place and aligned', () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 16807) % 2147483647;
      return seed / 2147483647;
    };
    const ranges: Record<string, [number, number, string]> = {
      bytes: [0, 255, 'u8'],
      signed: [-128, 127, 'i8'],
      wide: [0, 65535, 'u16'],
      deltas: [-30000, 30000, 'i16'],
      residents: [0, 4e9, 'u32'],
      indexes: [-1, 100000, 'i32'],
    };
    const columns = Object.fromEntries(
      Object.entries(ranges).map(([name, [min, max]]) => [
        name,
        [min, max, ...Array.from({ length: 1 + Math.floor(random() * 50) }, () => min + Math.floor(random() * (max - min + 1)))],
      ]),
    );
    const file = columnsFile({ format: 2, build_id: 'b1', cities: ['Ä', 'B'] }, columns);
    expect(file.subarray(0, 4).toString('ascii')).toBe(COLUMNS_MAGIC);
    const read = readColumns(fetched(file), 'test.bin');
    expect(read.format).toBe(2);
    expect(read.build_id).toBe('b1');
    expect(read.cities).toEqual(['Ä', 'B']);
    for (const [name, [, , type]] of Object.entries(ranges)) {
      const column = read.columns[name];
      expect(Array.from(column), name).toEqual(columns[name]);
      expect(column.constructor.name.toLowerCase(), name).toBe(`${type.startsWith('u') ? 'uint' : 'int'}${type.slice(1)}array`);
      expect(column.byteOffset % 8, name).toBe(0);
    }
  });

  it('refuses a value a column cannot hold, and a file that is not one, each saying so', () => {
    expect(() => columnsFile({}, { score: [1, 2.5] })).toThrow('column score of a map data file holds 2.5 at 1: only integers fit');
    expect(() => columnsFile({}, { big: [0, 2 ** 32] })).toThrow(
      'column big of a map data file holds values from 0 to 4294967296: beyond 32 bits',
    );
    expect(() => readColumns(fetched(Buffer.from('{"format":2}')), 'zips.bin')).toThrow('zips.bin is not a map data file');
    const cut = columnsFile({}, { x: [1, 2, 3, 70000] });
    expect(() => readColumns(fetched(cut.subarray(0, cut.length - 4)), 'x.bin')).toThrow('x.bin: column x (u32, 4 values at');
  });

  it('gives the page the ZIP codes and the outlines the map was made of', async () => {
    const zips = [
      { zip: '00601', x: 900.5, y: 590.1, state: 0, county: -1, residents: 17242, city: 'Adjuntas' },
      { zip: '01001', x: 880.3, y: 120.7, state: 1, county: 4, residents: 16769, city: 'Agawam' },
      { zip: '01002', x: 881.0, y: 119.9, state: 1, county: 5, residents: 29049, city: 'Amherst' },
      { zip: '99950', x: 120.4, y: 500.0, state: 2, county: 3000, residents: 0, city: 'Ketchikan' },
    ];
    const map = { buildId: 'b2', zips, shapes } as unknown as BuildMap;
    const page = decodeZips(readColumns(fetched(zipsFile(map)), 'zips.bin'), shapes.grid);
    expect(page.zip).toEqual(zips.map((zip) => zip.zip));
    expect(page.city).toEqual(zips.map((zip) => zip.city));
    expect(Array.from(page.x)).toEqual(zips.map((zip) => Math.fround(Math.round(zip.x * shapes.grid) / shapes.grid)));
    expect(Array.from(page.y)).toEqual(zips.map((zip) => Math.fround(Math.round(zip.y * shapes.grid) / shapes.grid)));
    for (const field of ['state', 'county', 'residents'] as const) expect(Array.from(page[field])).toEqual(zips.map((zip) => zip[field]));

    const outlines = readColumns(fetched(outlinesFile(map)), 'outlines.bin');
    const arcs = new Arcs(outlines.columns.arcs, outlines.columns.arc_points, outlines.grid);
    expect(arcs.count).toBe(shapes.arcs.length);
    // Decoded in an order of their own (the page decodes an arc when it first draws it).
    const lines = Array.from({ length: arcs.count }, (_, i) => arcs.line(arcs.count - 1 - i)).reverse();
    // One comparison for the 9,869 arcs (an expect each took seconds on a loaded machine): the arcs that differ.
    const differ = shapes.arcs.flatMap((arc, i) => {
      const want = decodeArc(arc, shapes.grid).flat();
      return lines[i].length === want.length && want.every((value, n) => lines[i][n] === Math.fround(value)) ? [] : [i];
    });
    expect(differ).toEqual([]);
    expect(Array.from(outlines.columns.county)).toEqual(shapes.borders.county);
  });

  it("gives the first paint the land, state and coast lines as path data with the arcs' points", () => {
    const file = nationalFile({ buildId: 'b3', shapes } as unknown as BuildMap) as Record<string, string | number>;
    expect(file.grid).toBe(shapes.grid);
    const points = (arc: number) => decodeArc(shapes.arcs[arc < 0 ? ~arc : arc], 1).map(([x, y]) => `${x},${y}`);
    // Each subpath of the data as its points on the grid, against the same from the arcs.
    const lines = (arcs: readonly number[]) => arcs.map((arc) => points(arc)).filter((line) => line.length > 1);
    expect(subpaths(file.state as string)).toEqual(lines(shapes.borders.state));
    expect(subpaths(file.outline as string)).toEqual(lines(shapes.borders.outline));
    const rings = shapes.land.map((ring) =>
      ring.flatMap((arc, k) => {
        const line = arc < 0 ? points(arc).reverse() : points(arc);
        return k === 0 ? line : line.slice(1);
      }),
    );
    expect(subpaths(file.land as string, true)).toEqual(rings);
  });

  it("fills the land with the states merged: each of the nation's outline arcs once, no border between two areas", () => {
    const used = new Map<number, number>();
    for (const arc of shapes.land.flat()) used.set(arc < 0 ? ~arc : arc, (used.get(arc < 0 ? ~arc : arc) ?? 0) + 1);
    // A zero-length arc (a point where three counties meet, as 5500 in Kentucky and Illinois) may stay in a ring.
    const zeroLength = (arc: number) => shapes.arcs[arc].slice(2).every((delta) => delta === 0);
    const lines = [...used.keys()].filter((arc) => !zeroLength(arc));
    expect(lines.sort((a, b) => a - b)).toEqual([...shapes.borders.outline].sort((a, b) => a - b));
    expect([...used.values()].every((count) => count === 1)).toBe(true);
    // Half the states' rings' arcs or fewer: the page draws the land in the first paint.
    expect(shapes.land.flat().length).toBeLessThan(shapes.states.flatMap((state) => state.rings).flat().length / 2);
  });

  it('simplifies a line within its tolerance and keeps its ends', () => {
    const line: FramePoint[] = Array.from({ length: 50 }, (_, i) => [i, Math.sin(i / 3) * 0.05 + (i === 25 ? 2 : 0)]);
    const simple = simplifyLine(line, 0.1);
    expect(simple[0]).toEqual(line[0]);
    expect(simple.at(-1)).toEqual(line.at(-1));
    expect(simple).toContainEqual(line[25]);
    expect(simple.length).toBeLessThan(10);
  });
});
