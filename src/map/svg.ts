import { gradeOf, NO_SCORE, type MapBand } from './bands.ts';
import type { BuildMap, TypeScores } from './data.ts';
import type { Box } from './projection.ts';
import { decodeArc } from './shapes.ts';

/** What `hcas map` draws: the nation or a state, a score type, by ZIP code or county, at a width in pixels. */
export interface MapPictureOptions {
  /** A state's postal code, or undefined for the nation. */
  state?: string;
  scoreTypeId: number;
  by: 'zip' | 'county';
  widthPx: number;
  /** What the source note says made the picture (`hcas map --state NY`). */
  madeBy: string;
}

/** The font of every text of the picture: bundled for the PNG (src/map/png.ts), so text never falls back to none. */
export const PICTURE_FONT = 'DejaVu Sans';

const STYLE = {
  land: '#e6e8eb',
  countyLine: '#c3c8cf',
  countyLineOnFill: '#ffffff',
  stateLine: '#6b7280',
  outline: '#4b5563',
  ink: '#1f2328',
  muted: '#4b5563',
};

/**
 * The map as an SVG document: title, the map (dots or county fills over the outlines, insets boxed for the
 * nation), the legend of the five bands and "no score", and a note of the build, its data and the outlines.
 * Deterministic: the same build and options give the same bytes (fixed decimals, the build's order).
 */
export function mapSvg(map: BuildMap, scores: TypeScores, options: MapPictureOptions): string {
  const type = map.scoreTypes.find((each) => each.id === options.scoreTypeId);
  if (type === undefined) throw new Error(`no score type ${options.scoreTypeId} in this build`);
  const state = options.state === undefined ? undefined : map.states.find((each) => each.code === options.state);
  if (options.state !== undefined && state === undefined) throw new Error(`no ZIP code of state ${options.state} in this build`);
  const area = state
    ? pad(state.bbox, 0.04)
    : pad(
        [
          [0, 0],
          [map.shapes.frame.width, map.shapes.frame.height],
        ],
        0,
      );
  const [[left, top], [right, bottom]] = area;
  const width = options.widthPx;
  const scale = width / (right - left);
  const mapHeight = (bottom - top) * scale;
  const header = 44;
  const legendHeight = 64;
  const height = Math.ceil(header + mapHeight + legendHeight);
  const where = state ? state.name : 'United States';
  const what = options.by === 'county' ? 'by county (residents-weighted mean of its ZIP codes)' : 'by ZIP code';
  const inArea = (box: Box) => box[1][0] >= left && box[0][0] <= right && box[1][1] >= top && box[0][1] <= bottom;
  const counties = map.shapes.counties.map((county, i) => ({ county, i })).filter(({ county }) => inArea(county.bbox));
  const frame = `translate(${n(-left * scale)} ${n(header - top * scale)}) scale(${n(scale, 4)})`;
  const px = 1 / scale;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="${PICTURE_FONT}">`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    `<text x="12" y="28" font-size="18" font-weight="bold" fill="${STYLE.ink}">${escape(`${type.name} ${what}, ${where}`)}</text>`,
    `<svg x="0" y="${header}" width="${width}" height="${n(mapHeight)}" overflow="hidden"><g transform="translate(0 ${-header})">`,
    `<g transform="${frame}">`,
    `<path d="${ringsPath(
      map,
      map.shapes.states.flatMap((each) => each.rings),
    )}" fill="${STYLE.land}" fill-rule="evenodd"/>`,
  ];
  if (options.by === 'county') {
    const groups = new Map<string, number[][]>();
    for (const { county, i } of counties) {
      const color = gradeOf(map.bands, scores.counties[i].score)?.grade.color ?? 'none';
      const list = groups.get(color) ?? groups.set(color, []).get(color)!;
      list.push(...county.rings);
    }
    for (const [color, rings] of [...groups].sort(([a], [b]) => (a < b ? -1 : 1))) {
      const fill = color === 'none' ? `url(#no-score)` : color;
      parts.push(`<path d="${ringsPath(map, rings)}" fill="${fill}" fill-rule="evenodd"/>`);
    }
  }
  const arcsIn = (indexes: readonly number[]) => indexes.filter((arc) => inArea(arcBox(map, arc)));
  const countyLine = options.by === 'county' ? STYLE.countyLineOnFill : STYLE.countyLine;
  parts.push(
    `<path d="${linesPath(map, arcsIn(map.shapes.borders.county))}" fill="none" stroke="${countyLine}" stroke-width="${n(0.5 * px, 4)}"/>`,
    `<path d="${linesPath(map, arcsIn(map.shapes.borders.state))}" fill="none" stroke="${STYLE.stateLine}" stroke-width="${n(0.9 * px, 4)}"/>`,
    `<path d="${linesPath(map, arcsIn(map.shapes.borders.outline))}" fill="none" stroke="${STYLE.outline}" stroke-width="${n(1 * px, 4)}"/>`,
  );
  if (!state) {
    for (const inset of map.shapes.insets) {
      const [[x0, y0], [x1, y1]] = inset.box;
      parts.push(
        `<rect x="${x0}" y="${y0}" width="${n(x1 - x0)}" height="${n(y1 - y0)}" fill="none" stroke="#8a919c" stroke-width="${n(px, 4)}"/>`,
        `<text x="${n(x0 + 3)}" y="${n(y0 + 11)}" font-size="${n(10 * px, 3)}" fill="${STYLE.muted}">${escape(inset.name)}</text>`,
      );
    }
  }
  parts.push('</g>');
  if (options.by === 'zip') parts.push(...dots(map, scores.score, area, scale, header));
  parts.push('</g></svg>');
  parts.push(...legend(map.bands, width, header + mapHeight, options.by));
  parts.push(
    `<text x="12" y="${n(height - 10)}" font-size="11" fill="${STYLE.muted}">${escape(sourceNote(map, options.madeBy))}</text>`,
    `<defs><pattern id="no-score" width="6" height="6" patternUnits="userSpaceOnUse"><rect width="6" height="6" fill="#ffffff"/><path d="M0 6L6 0" stroke="${NO_SCORE.color}"/></pattern></defs>`,
    '</svg>',
  );
  return `${parts.join('\n')}\n`;
}

/** The picture's note: the build, its data and the outlines, so a pasted copy says where it came from. */
function sourceNote(map: BuildMap, madeBy: string): string {
  return `${map.dataset}; build ${map.buildId} of ${map.builtAt.slice(0, 10)}. Outlines: ${map.shapes.source}. Made by ${madeBy}.`;
}

/**
 * ZIP codes as dots in pixels, from the fewest residents to the most (so where dots overlap, in the cores of
 * cities, the dots more people live in are on top), as the page paints them; consecutive dots of one colour
 * are one path.
 */
function dots(map: BuildMap, scores: ReadonlyArray<number | null>, area: Box, scale: number, header: number): string[] {
  const [[left, top], [right, bottom]] = area;
  const r = Math.min(3.5, Math.max(1, 0.9 * Math.sqrt(scale)));
  const order = map.zips.map((_, i) => i).sort((a, b) => map.zips[a].residents - map.zips[b].residents || a - b);
  const paths: string[] = [];
  const none: string[] = [];
  let run: string[] = [];
  let color: string | undefined;
  const flush = () => {
    if (run.length > 0) paths.push(`<path d="${run.join('')}" fill="${color}"/>`);
    run = [];
  };
  for (const i of order) {
    const zip = map.zips[i];
    if (zip.x < left || zip.x > right || zip.y < top || zip.y > bottom) continue;
    const x = (zip.x - left) * scale;
    const y = header + (zip.y - top) * scale;
    const dot = `M${n(x - r)} ${n(y)}a${n(r)} ${n(r)} 0 1 0 ${n(2 * r)} 0a${n(r)} ${n(r)} 0 1 0 ${n(-2 * r)} 0`;
    const grade = gradeOf(map.bands, scores[i])?.grade;
    if (grade === undefined) {
      none.push(dot);
      continue;
    }
    if (grade.color !== color) {
      flush();
      color = grade.color;
    }
    run.push(dot);
  }
  flush();
  if (none.length > 0) paths.push(`<path d="${none.join('')}" fill="none" stroke="${NO_SCORE.color}" stroke-width="1"/>`);
  return paths;
}

/** The legend row: each band's grade swatches, label and range, then "no score". */
function legend(bands: readonly MapBand[], width: number, y: number, by: 'zip' | 'county'): string[] {
  const parts: string[] = [];
  const slots = bands.length + 1;
  const slot = (width - 24) / slots;
  bands.forEach((band, i) => {
    const x = 12 + i * slot;
    band.grades.forEach((grade, g) => {
      parts.push(`<rect x="${n(x + g * 15)}" y="${n(y + 12)}" width="13" height="13" fill="${grade.color}" stroke="#00000059"/>`);
    });
    const textX = n(x + band.grades.length * 15 + 4);
    parts.push(
      `<text x="${textX}" y="${n(y + 22)}" font-size="11" fill="${STYLE.ink}">${escape(band.label)}</text>`,
      `<text x="${textX}" y="${n(y + 36)}" font-size="10" fill="${STYLE.muted}">${band.min}-${band.max} (${band.grades.map((grade) => grade.grade).join(', ')})</text>`,
    );
  });
  const x = 12 + bands.length * slot;
  const mark =
    by === 'county'
      ? `<rect x="${n(x)}" y="${n(y + 12)}" width="13" height="13" fill="url(#no-score)" stroke="${NO_SCORE.color}"/>`
      : `<circle cx="${n(x + 6.5)}" cy="${n(y + 18.5)}" r="5" fill="none" stroke="${NO_SCORE.color}" stroke-width="1.5"/>`;
  parts.push(mark, `<text x="${n(x + 19)}" y="${n(y + 22)}" font-size="11" fill="${STYLE.ink}">${NO_SCORE.label}</text>`);
  return parts;
}

function ringsPath(map: BuildMap, rings: readonly number[][]): string {
  const out: string[] = [];
  for (const ring of rings) {
    const points = ring.flatMap((arc, k) => {
      const line = decodeArc(map.shapes.arcs[arc < 0 ? ~arc : arc], map.shapes.grid);
      if (arc < 0) line.reverse();
      return k === 0 ? line : line.slice(1);
    });
    if (points.length > 1) out.push(`M${points.map(([x, y]) => `${n(x)} ${n(y)}`).join('L')}Z`);
  }
  return out.join('');
}

function linesPath(map: BuildMap, arcs: readonly number[]): string {
  return arcs
    .map((arc) => decodeArc(map.shapes.arcs[arc], map.shapes.grid))
    .filter((line) => line.length > 1)
    .map((line) => `M${line.map(([x, y]) => `${n(x)} ${n(y)}`).join('L')}`)
    .join('');
}

function arcBox(map: BuildMap, arc: number): Box {
  const line = decodeArc(map.shapes.arcs[arc], map.shapes.grid);
  const xs = line.map(([x]) => x);
  const ys = line.map(([, y]) => y);
  return [
    [Math.min(...xs), Math.min(...ys)],
    [Math.max(...xs), Math.max(...ys)],
  ];
}

function pad([[left, top], [right, bottom]]: Box, share: number): Box {
  const dx = (right - left) * share;
  const dy = (bottom - top) * share;
  return [
    [left - dx, top - dy],
    [right + dx, bottom + dy],
  ];
}

/** A number with fixed decimals and no trailing zeros: the same text for the same value on every machine. */
function n(value: number, decimals = 2): string {
  return String(Number(value.toFixed(decimals)));
}

function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
