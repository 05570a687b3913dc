import { NO_SCORE } from './bands.ts';
import { columnsFile } from './columns.ts';
import { DATA_PATHS } from './data-paths.ts';
import { MAP_PATH } from './page.ts';
import { type BuildMap, onGrid, type TypeScores } from './data.ts';

/** The version of the data files' layout; the page refuses files of another. */
export const DATA_FORMAT = 3;

/**
 * `/map/data/`: what the page reads first: the build, its sources, the band table, the score types, the
 * states with their boxes, the insets, and where the other files are. Every file names its build, so the page
 * can tell when the server switched builds between two of its requests.
 */
export function metaFile(map: BuildMap, version: string): object {
  const { shapes } = map;
  return {
    format: DATA_FORMAT,
    build_id: map.buildId,
    built_at: map.builtAt,
    dataset: map.dataset,
    hcas_version: version,
    sources: map.sources,
    outlines_source: shapes.source,
    frame: shapes.frame,
    grid: shapes.grid,
    insets: shapes.insets,
    bands: map.bands,
    no_score: NO_SCORE,
    score_types: map.scoreTypes,
    states: map.states,
    zips: map.zips.length,
    zips_without_county: map.withoutCounty,
    zips_drawn_elsewhere: map.drawnElsewhere,
    zips_not_drawn: map.notDrawn,
    // Relative to the page, so an export served under another folder works as well.
    files: Object.fromEntries(Object.entries(DATA_PATHS).map(([name, path]) => [name, path.slice(MAP_PATH.length)])),
  };
}

/**
 * `/map/data/outlines.bin`: the arcs of every border, for the county borders (`county`, arc indexes) and the
 * counties' shapes (countiesFile's rings). `arcs` is every arc's points one after the other, each arc
 * delta-coded on the grid ([x0, y0, dx1, dy1, ...]), `arc_points` how many points each has. The first paint
 * draws nationalFile's paths instead; the page fetches this after it.
 */
export function outlinesFile(map: BuildMap): Buffer {
  const { grid, arcs, borders } = map.shapes;
  return columnsFile(
    { format: DATA_FORMAT, build_id: map.buildId, grid },
    { arc_points: arcs.map((arc) => arc.length / 2), arcs: arcs.flat(), county: borders.county },
  );
}

/**
 * `/map/data/national/`: what the first paint draws under the dots, the land and the state and coast lines, as
 * SVG path data on the grid (relative moves, the arcs' own deltas: `M x0 y0 l dx1 dy1 dx2 dy2 ...`). The page
 * makes each a Path2D in one call, where building them from the arcs point by point cost it 30-50 ms of the
 * first paint (bench/map.ts); the outlines' arcs follow for the county borders and shapes.
 */
export function nationalFile(map: BuildMap): object {
  const { grid, arcs, borders, land } = map.shapes;
  return {
    format: DATA_FORMAT,
    build_id: map.buildId,
    grid,
    land: ringsPathData(arcs, land),
    state: linesPathData(arcs, borders.state),
    outline: linesPathData(arcs, borders.outline),
  };
}

/** Open lines, one per arc (an arc of one point draws nothing and is left out, as the page's linesPath does). */
function linesPathData(arcs: readonly number[][], indexes: readonly number[]): string {
  let data = '';
  for (const index of indexes) {
    const arc = arcs[index];
    if (arc.length < 4) continue;
    data += `M${arc[0]} ${arc[1]}l${joined(arc, 2)}`;
  }
  return data;
}

/**
 * Closed rings of arc indexes (~i: arc i reversed). An arc starts where the one before it ended, so after a
 * ring's first point each arc adds its deltas (reversed and negated for a reversed arc).
 */
function ringsPathData(arcs: readonly number[][], rings: readonly number[][]): string {
  let data = '';
  for (const ring of rings) {
    const deltas: number[] = [];
    ring.forEach((index, k) => {
      const arc = arcs[index < 0 ? ~index : index];
      if (index >= 0) {
        if (k === 0) data += `M${arc[0]} ${arc[1]}`;
        for (let i = 2; i < arc.length; i++) deltas.push(arc[i]);
        return;
      }
      const last = endOf(arc);
      if (k === 0) data += `M${last[0]} ${last[1]}`;
      for (let i = arc.length - 2; i >= 2; i -= 2) deltas.push(-arc[i], -arc[i + 1]);
    });
    data += `${deltas.length > 0 ? `l${joined(deltas, 0)}` : ''}z`;
  }
  return data;
}

/** The last point of a delta-coded arc. */
function endOf(arc: readonly number[]): [number, number] {
  let x = 0;
  let y = 0;
  for (let i = 0; i < arc.length; i += 2) {
    x += arc[i];
    y += arc[i + 1];
  }
  return [x, y];
}

/** Numbers from `from` on as SVG path data: a space before each, none before a minus sign. */
function joined(values: readonly number[], from: number): string {
  let text = '';
  for (let i = from; i < values.length; i++) text += values[i] < 0 || i === from ? String(values[i]) : ` ${values[i]}`;
  return text;
}

/** `/map/data/counties/`: each county's code, name and rings (arc indexes), for the county view and its tooltips. */
export function countiesFile(map: BuildMap): object {
  const { counties } = map.shapes;
  return {
    format: DATA_FORMAT,
    build_id: map.buildId,
    fips: counties.map((county) => county.fips),
    names: counties.map((county) => county.name),
    rings: counties.map((county) => county.rings),
  };
}

/**
 * `/map/data/zips.bin`: every ZIP code in ZIP order, as columns. ZIP codes and grid coordinates are delta-coded
 * (each value less the one before): neighbours in ZIP order are neighbours on the map, so the deltas are small
 * and compress well. Cities are back-references (cityColumn), the names in the header's `cities`.
 */
export function zipsFile(map: BuildMap): Buffer {
  const column = (value: (zip: BuildMap['zips'][number]) => number) => map.zips.map(value);
  const { cities, city } = cityColumn(map.zips.map((zip) => zip.city));
  return columnsFile(
    { format: DATA_FORMAT, build_id: map.buildId, cities },
    {
      zip: deltas(column((zip) => Number(zip.zip))),
      x: deltas(column((zip) => onGrid(zip.x))),
      y: deltas(column((zip) => onGrid(zip.y))),
      state: column((zip) => zip.state),
      county: column((zip) => zip.county),
      residents: column((zip) => zip.residents),
      city,
    },
  );
}

/**
 * Each ZIP code's city as a back-reference: 0 for a city not seen before (the next name of `cities`), else how
 * many ZIP codes back the same city was last named. Neighbouring ZIP codes share cities, so the numbers are
 * small: 114 KB gzipped against 149 KB for an index into the list of names (measured on the default build).
 */
export function cityColumn(names: readonly string[]): { cities: string[]; city: number[] } {
  const cities: string[] = [];
  const last = new Map<string, number>();
  const city = names.map((name, i) => {
    const before = last.get(name);
    last.set(name, i);
    if (before !== undefined) return i - before;
    cities.push(name);
    return 0;
  });
  return { cities, city };
}

/**
 * `/map/data/scores/{slug}/scores.bin`: one score type's scores and components in ZIP order, and the county and
 * state means; NO_SCORE_VALUE for none, so each column is one byte a value and the page uses it as it comes.
 */
export function scoresFile(map: BuildMap, scoreTypeId: number, scores: TypeScores): Buffer {
  const column = (values: ReadonlyArray<number | null>) => values.map((value) => value ?? NO_SCORE_VALUE);
  return columnsFile(
    { format: DATA_FORMAT, build_id: map.buildId, score_type: scoreTypeId },
    {
      score: column(scores.score),
      people: column(scores.people),
      provider: column(scores.provider),
      hospital: column(scores.hospital),
      travel: column(scores.travel),
      counties: column(scores.counties.map((mean) => mean.score)),
      states: column(scores.states.map((mean) => mean.score)),
    },
  );
}

/** A score column's value for no score (scores run from 0 to 100). */
export const NO_SCORE_VALUE = -1;

function deltas(values: readonly number[]): number[] {
  return values.map((value, i) => (i === 0 ? value : value - values[i - 1]));
}
