/**
 * Shapes in the frame (975 x 610 units, src/map/projection.ts): the outlines' arcs as paths, the county
 * polygons, and a grid index that finds the ZIP code nearest the pointer without walking all of them.
 */

/**
 * The outlines' arcs, each a flat Float32Array [x0, y0, x1, y1, ...] in frame units, decoded when first
 * drawn: `arcs` is every arc's points in turn, each arc delta-coded on the grid, `counts` how many points each
 * has. The national view draws the land, state and coast arcs, under a third of the points; the county
 * borders' are decoded when the map zooms in (the page's first paint runs this code cold, where a loop over
 * every point cost tens of milliseconds: bench/map.ts).
 */
export class Arcs {
  constructor(arcs, counts, grid) {
    this.arcs = arcs;
    this.grid = grid;
    this.count = counts.length;
    this.starts = new Uint32Array(counts.length + 1);
    for (let a = 0; a < counts.length; a++) this.starts[a + 1] = this.starts[a] + 2 * counts[a];
    this.points = new Float32Array(arcs.length);
    this.lines = new Array(counts.length);
  }

  /** Arc `a`'s points in frame units (a view into one array of them all). */
  line(a) {
    let line = this.lines[a];
    if (line === undefined) {
      const { arcs, points, grid } = this;
      const end = this.starts[a + 1];
      let x = 0;
      let y = 0;
      for (let i = this.starts[a]; i < end; i += 2) {
        x += arcs[i];
        y += arcs[i + 1];
        points[i] = x / grid;
        points[i + 1] = y / grid;
      }
      line = points.subarray(this.starts[a], end);
      this.lines[a] = line;
    }
    return line;
  }
}

/** A Path2D of the arcs `indexes` (of an Arcs), each an open line. */
export function linesPath(arcs, indexes) {
  const path = new Path2D();
  for (const index of indexes) {
    const line = arcs.line(index);
    if (line.length < 4) continue;
    path.moveTo(line[0], line[1]);
    for (let i = 2; i < line.length; i += 2) path.lineTo(line[i], line[i + 1]);
  }
  return path;
}

/** Adds rings of arc indexes (~i: arc i reversed, as TopoJSON writes them) to `path`. */
export function addRings(path, arcs, rings) {
  for (const ring of rings) {
    let first = true;
    for (const arc of ring) {
      const line = arcs.line(arc < 0 ? ~arc : arc);
      const last = line.length - 2;
      for (let n = 0; n <= last; n += 2) {
        const at = arc < 0 ? last - n : n;
        if (first) path.moveTo(line[at], line[at + 1]);
        else path.lineTo(line[at], line[at + 1]);
        first = false;
      }
    }
    path.closePath();
  }
}

/** The bounding box [left, top, right, bottom] of rings of arc indexes, in frame units. */
export function ringsBox(arcs, rings) {
  const box = [Infinity, Infinity, -Infinity, -Infinity];
  for (const ring of rings) {
    for (const arc of ring) {
      const line = arcs.line(arc < 0 ? ~arc : arc);
      for (let i = 0; i < line.length; i += 2) {
        if (line[i] < box[0]) box[0] = line[i];
        if (line[i + 1] < box[1]) box[1] = line[i + 1];
        if (line[i] > box[2]) box[2] = line[i];
        if (line[i + 1] > box[3]) box[3] = line[i + 1];
      }
    }
  }
  return box;
}

/** Cell size of the point index, in frame units: about 3 ZIP codes a cell in the densest cities' national view. */
const CELL = 2;

/** A uniform grid over the frame's points: `nearest` looks in the cells around the pointer only. */
export class PointIndex {
  constructor(x, y, width, height) {
    this.x = x;
    this.y = y;
    this.columns = Math.ceil(width / CELL) + 1;
    this.rows = Math.ceil(height / CELL) + 1;
    const cells = new Map();
    for (let i = 0; i < x.length; i++) {
      const key = this.cellOf(x[i], y[i]);
      const list = cells.get(key);
      if (list) list.push(i);
      else cells.set(key, [i]);
    }
    this.cells = cells;
  }

  cellOf(x, y) {
    const column = Math.min(this.columns - 1, Math.max(0, Math.floor(x / CELL)));
    const row = Math.min(this.rows - 1, Math.max(0, Math.floor(y / CELL)));
    return row * this.columns + column;
  }

  /** The index of the point nearest (x, y) within `radius` frame units for which `shown(i)` holds, or -1. */
  nearest(x, y, radius, shown) {
    let best = -1;
    let bestDistance = radius * radius;
    const reach = Math.ceil(radius / CELL);
    const column = Math.floor(x / CELL);
    const row = Math.floor(y / CELL);
    for (let r = row - reach; r <= row + reach; r++) {
      if (r < 0 || r >= this.rows) continue;
      for (let c = column - reach; c <= column + reach; c++) {
        if (c < 0 || c >= this.columns) continue;
        const list = this.cells.get(r * this.columns + c);
        if (!list) continue;
        for (const i of list) {
          const dx = this.x[i] - x;
          const dy = this.y[i] - y;
          const distance = dx * dx + dy * dy;
          if (distance <= bestDistance && shown(i)) {
            bestDistance = distance;
            best = i;
          }
        }
      }
    }
    return best;
  }
}

/** The view: which frame point is at the canvas's centre and the zoom (1: the whole frame fits the canvas). */
export class View {
  constructor(frame) {
    this.frame = frame;
    this.reset();
    this.width = 1;
    this.height = 1;
  }

  reset() {
    this.cx = this.frame.width / 2;
    this.cy = this.frame.height / 2;
    this.zoom = 1;
  }

  /** CSS pixels per frame unit. */
  get scale() {
    return Math.min(this.width / this.frame.width, this.height / this.frame.height) * this.zoom;
  }

  /** The canvas point (CSS pixels) of a frame point. */
  toScreen(x, y) {
    const s = this.scale;
    return [(x - this.cx) * s + this.width / 2, (y - this.cy) * s + this.height / 2];
  }

  /** The frame point of a canvas point. */
  toFrame(px, py) {
    const s = this.scale;
    return [(px - this.width / 2) / s + this.cx, (py - this.height / 2) / s + this.cy];
  }

  /** Zooms by `factor` keeping the frame point under canvas point (px, py) where it is. */
  zoomAt(factor, px, py) {
    const [fx, fy] = this.toFrame(px, py);
    this.zoom = Math.min(MAX_ZOOM, Math.max(1, this.zoom * factor));
    const [nx, ny] = this.toFrame(px, py);
    this.cx += fx - nx;
    this.cy += fy - ny;
    this.clamp();
  }

  /** Moves by a distance in CSS pixels. */
  pan(dx, dy) {
    const s = this.scale;
    this.cx -= dx / s;
    this.cy -= dy / s;
    this.clamp();
  }

  /** Shows a box of the frame [[left, top], [right, bottom]] with a margin. */
  fit([[left, top], [right, bottom]], largest = MAX_ZOOM) {
    const base = Math.min(this.width / this.frame.width, this.height / this.frame.height);
    const zoom = Math.min(this.width / ((right - left) * 1.15 * base), this.height / ((bottom - top) * 1.15 * base));
    this.zoom = Math.min(largest, Math.max(1, zoom));
    this.cx = (left + right) / 2;
    this.cy = (top + bottom) / 2;
    this.clamp();
  }

  /** Keeps the frame's centre on the canvas. */
  clamp() {
    this.cx = Math.min(this.frame.width, Math.max(0, this.cx));
    this.cy = Math.min(this.frame.height, Math.max(0, this.cy));
  }
}

/** How far in the map zooms: a city's ZIP codes apart. */
export const MAX_ZOOM = 64;
