/**
 * Paints the map on its canvas: land, county fills (county view), borders, the inset boxes, and every ZIP
 * code as a dot of its grade's colour (ZIP view).
 */

const STYLE = {
  background: '#f8fafc',
  land: '#e6e8eb',
  countyLine: '#c3c8cf',
  countyLineOnFill: 'rgba(255,255,255,0.55)',
  stateLine: '#6b7280',
  outline: '#4b5563',
  insetBox: '#8a919c',
  insetText: '#4b5563',
};

/** The dot radius in CSS pixels at a zoom: about a pixel for the nation, growing as the map zooms in. */
export function dotRadius(zoom) {
  return Math.min(7, 1.15 * zoom ** 0.55);
}

/** True when the ZIP view shows the county borders: zoomed in, or a canvas larger than the frame. */
export function countyLinesShown(view) {
  return view.zoom >= 1.5 || view.scale > 1.4;
}

/** A hatch for counties without a score: no band's colour, and visibly not a colour at all. */
function hatch(ctx) {
  const tile = document.createElement('canvas');
  tile.width = 6;
  tile.height = 6;
  const t = tile.getContext('2d');
  t.fillStyle = '#ffffff';
  t.fillRect(0, 0, 6, 6);
  t.strokeStyle = '#767676';
  t.lineWidth = 1;
  t.beginPath();
  t.moveTo(0, 6);
  t.lineTo(6, 0);
  t.stroke();
  return ctx.createPattern(tile, 'repeat');
}

/**
 * Paints `scene` (built by main.js): `view` (View), `shapes` ({ land, counties, states, outline } Path2Ds;
 * `counties` null until the outlines' arcs are in),
 * `insets`, and either `dots` ({ x, y, order: indexes, grades: palette index by ZIP index, colors: by palette
 * index, none: indexes }) or `fills`
 * ([{ color, path }] and `noScore`, a path).
 */
export function paint(canvas, scene) {
  const ctx = canvas.getContext('2d');
  const { view, shapes } = scene;
  const ratio = window.devicePixelRatio || 1;
  const s = view.scale;
  ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  ctx.fillStyle = STYLE.background;
  ctx.fillRect(0, 0, view.width, view.height);
  // Frame units from here on.
  ctx.setTransform(ratio * s, 0, 0, ratio * s, ratio * (view.width / 2 - view.cx * s), ratio * (view.height / 2 - view.cy * s));
  const px = 1 / s;
  if (scene.fills) {
    ctx.fillStyle = STYLE.land;
    ctx.fill(shapes.land, 'evenodd');
    for (const { color, path } of scene.fills) {
      ctx.fillStyle = color;
      ctx.fill(path, 'evenodd');
    }
    if (scene.noScore) {
      const pattern = hatch(ctx);
      // The same 6-pixel hatch at every zoom.
      pattern.setTransform(new DOMMatrix().scale(px));
      ctx.fillStyle = pattern;
      ctx.fill(scene.noScore, 'evenodd');
    }
    if (shapes.counties) stroke(ctx, shapes.counties, STYLE.countyLineOnFill, 0.5 * px);
  } else {
    ctx.fillStyle = STYLE.land;
    ctx.fill(shapes.land, 'evenodd');
    if (shapes.counties && countyLinesShown(view)) stroke(ctx, shapes.counties, STYLE.countyLine, 0.5 * px);
  }
  stroke(ctx, shapes.states, STYLE.stateLine, 0.8 * px);
  stroke(ctx, shapes.outline, STYLE.outline, 0.9 * px);
  insets(ctx, scene.insets, px);
  ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  if (scene.dots) dots(ctx, scene.dots, view);
}

function stroke(ctx, path, color, width) {
  ctx.strokeStyle = color;
  ctx.lineWidth = width;
  ctx.stroke(path);
}

function insets(ctx, boxes, px) {
  ctx.strokeStyle = STYLE.insetBox;
  ctx.lineWidth = px;
  ctx.fillStyle = STYLE.insetText;
  ctx.font = `${11 * px}px system-ui, sans-serif`;
  ctx.textBaseline = 'top';
  for (const { name, box } of boxes) {
    const [[left, top], [right, bottom]] = box;
    ctx.strokeRect(left, top, right - left, bottom - top);
    ctx.fillText(name, left + 3 * px, top + 2.5 * px, right - left - 6 * px);
  }
}

/**
 * The dots, in `order` (fewest residents first, so the dots of more people are on top where they overlap).
 * Near a pixel each, they are written as squares straight into an image (an order of 33,000 fills would cost
 * more than the painting); zoomed in, each visible dot is a circle, consecutive dots of one colour one path.
 */
function dots(ctx, { x, y, order, grades, colors, none }, view) {
  const r = dotRadius(view.zoom);
  const s = view.scale;
  const dx = view.width / 2 - view.cx * s;
  const dy = view.height / 2 - view.cy * s;
  const { width, height } = view;
  const visible = (i) => {
    const sx = x[i] * s + dx;
    const sy = y[i] * s + dy;
    return sx >= -r && sy >= -r && sx <= width + r && sy <= height + r;
  };
  if (r < 2) squares(ctx, { x, y, order, grades, colors }, view, r);
  else {
    let color = null;
    ctx.lineWidth = 0.5;
    ctx.strokeStyle = 'rgba(0,0,0,0.35)';
    const flush = () => {
      if (color === null) return;
      ctx.fillStyle = color;
      ctx.fill();
      ctx.stroke();
    };
    ctx.beginPath();
    for (const i of order) {
      if (!visible(i)) continue;
      if (colors[grades[i]] !== color) {
        flush();
        ctx.beginPath();
        color = colors[grades[i]];
      }
      const sx = x[i] * s + dx;
      const sy = y[i] * s + dy;
      ctx.moveTo(sx + r, sy);
      ctx.arc(sx, sy, r, 0, 2 * Math.PI);
    }
    flush();
  }
  if (none.length > 0) {
    // No score: a hollow grey ring, never a filled colour.
    ctx.beginPath();
    const ring = Math.max(r, 2);
    for (const i of none) {
      if (!visible(i)) continue;
      const sx = x[i] * s + dx;
      const sy = y[i] * s + dy;
      ctx.moveTo(sx + ring, sy);
      ctx.arc(sx, sy, ring, 0, 2 * Math.PI);
    }
    ctx.strokeStyle = '#767676';
    ctx.lineWidth = 1;
    ctx.stroke();
  }
}

const layer = document.createElement('canvas');
/** The squares' image, kept between paints of one size (cleared, not made again: 4.6 MB at 1280 x 900). */
let kept = null;

/** A #rrggbb colour as the 32-bit pixel of an ImageData (little-endian: alpha, blue, green, red from the top byte). */
function pixelOf(color) {
  const n = Number.parseInt(color.slice(1), 16);
  return ((255 << 24) | ((n & 0xff) << 16) | (n & 0xff00) | ((n >> 16) & 0xff)) >>> 0;
}

function squares(ctx, { x, y, order, grades, colors }, view, r) {
  const ratio = window.devicePixelRatio || 1;
  const w = Math.round(view.width * ratio);
  const h = Math.round(view.height * ratio);
  if (layer.width !== w || layer.height !== h) {
    layer.width = w;
    layer.height = h;
  }
  if (kept?.image.width !== w || kept?.image.height !== h) {
    const image = new ImageData(w, h);
    kept = { image, data: new Uint32Array(image.data.buffer) };
  } else kept.data.fill(0);
  const { image, data } = kept;
  const pixels = Uint32Array.from(colors, pixelOf);
  const s = view.scale * ratio;
  const dx = (view.width / 2 - view.cx * view.scale) * ratio;
  const dy = (view.height / 2 - view.cy * view.scale) * ratio;
  const side = Math.max(1, Math.round(2 * r * ratio));
  const half = side / 2;
  for (let k = 0; k < order.length; k++) {
    const i = order[k];
    const left = Math.round(x[i] * s + dx - half);
    const top = Math.round(y[i] * s + dy - half);
    if (left + side <= 0 || top + side <= 0 || left >= w || top >= h) continue;
    const value = pixels[grades[i]];
    const from = Math.max(0, left);
    const to = Math.min(w, left + side);
    // Pixel by pixel: a dot is 1-4 pixels wide, where a fill() call per row costs more than its pixels.
    for (let row = Math.max(0, top); row < Math.min(h, top + side); row++)
      for (let at = row * w + from, end = row * w + to; at < end; at++) data[at] = value;
  }
  layer.getContext('2d').putImageData(image, 0, 0);
  ctx.save();
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.drawImage(layer, 0, 0);
  ctx.restore();
}

/** Canvases the highlight has drawn on: until then they are clear, and need no 2D context of their own yet. */
const highlighted = new WeakSet();

/** Rings the ZIP code or county the pointer is on, on the overlay canvas above the map. */
export function highlight(canvas, view, target) {
  // The first paint has nothing to ring, and making the overlay's context then delays it (bench/map.ts).
  if (!target && !highlighted.has(canvas)) return;
  highlighted.add(canvas);
  const ctx = canvas.getContext('2d');
  const ratio = window.devicePixelRatio || 1;
  ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  ctx.clearRect(0, 0, view.width, view.height);
  if (!target) return;
  if (target.path) {
    const s = view.scale;
    ctx.setTransform(ratio * s, 0, 0, ratio * s, ratio * (view.width / 2 - view.cx * s), ratio * (view.height / 2 - view.cy * s));
    ctx.lineWidth = 2.5 / s;
    ctx.strokeStyle = '#000000';
    ctx.stroke(target.path);
    ctx.lineWidth = 1 / s;
    ctx.strokeStyle = '#ffffff';
    ctx.stroke(target.path);
    return;
  }
  const [sx, sy] = view.toScreen(target.x, target.y);
  const dot = dotRadius(view.zoom);
  // The dot itself again, above its neighbours', then a ring around it.
  ctx.beginPath();
  ctx.arc(sx, sy, Math.max(dot, 2), 0, 2 * Math.PI);
  if (target.color) {
    ctx.fillStyle = target.color;
    ctx.fill();
  } else {
    ctx.strokeStyle = '#767676';
    ctx.lineWidth = 1;
    ctx.stroke();
  }
  const r = dot + 3;
  ctx.beginPath();
  ctx.arc(sx, sy, r, 0, 2 * Math.PI);
  ctx.lineWidth = 3;
  ctx.strokeStyle = '#ffffff';
  ctx.stroke();
  ctx.lineWidth = 1.5;
  ctx.strokeStyle = '#000000';
  ctx.stroke();
}
