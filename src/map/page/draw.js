/**
 * Paints the map on its canvas: land, county fills (county view), borders, the inset boxes, and every ZIP
 * code as a dot of its grade's colour (ZIP view). Dots are batched one fill per colour, and the worst grades
 * are drawn last: a desert dot among its neighbours' is the reason to look, and must not be covered.
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
 * Paints `scene` (built by main.js): `view` (View), `shapes` ({ land, counties, states, outline } Path2Ds),
 * `insets`, and either `dots` ({ x, y, order: [{ color, indexes }], none: indexes }) or `fills`
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
    stroke(ctx, shapes.counties, STYLE.countyLineOnFill, 0.5 * px);
  } else {
    ctx.fillStyle = STYLE.land;
    ctx.fill(shapes.land, 'evenodd');
    if (view.zoom >= 1.5 || s > 1.4) stroke(ctx, shapes.counties, STYLE.countyLine, 0.5 * px);
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

/** The dots in CSS pixels: squares up close to a pixel, circles once the map is zoomed in; off-canvas ones skipped. */
function dots(ctx, { x, y, order, none }, view) {
  const r = dotRadius(view.zoom);
  const s = view.scale;
  const dx = view.width / 2 - view.cx * s;
  const dy = view.height / 2 - view.cy * s;
  const round = r >= 2;
  const { width, height } = view;
  const add = (i) => {
    const sx = x[i] * s + dx;
    const sy = y[i] * s + dy;
    if (sx < -r || sy < -r || sx > width + r || sy > height + r) return false;
    if (round) {
      ctx.moveTo(sx + r, sy);
      ctx.arc(sx, sy, r, 0, 2 * Math.PI);
    } else ctx.rect(sx - r, sy - r, 2 * r, 2 * r);
    return true;
  };
  for (const { color, indexes } of order) {
    ctx.beginPath();
    for (const i of indexes) add(i);
    ctx.fillStyle = color;
    ctx.fill();
    if (round) {
      ctx.strokeStyle = 'rgba(0,0,0,0.35)';
      ctx.lineWidth = 0.5;
      ctx.stroke();
    }
  }
  if (none.length > 0) {
    // No score: a hollow grey ring, never a filled colour.
    ctx.beginPath();
    for (const i of none) add(i);
    ctx.strokeStyle = '#767676';
    ctx.lineWidth = 1;
    ctx.stroke();
  }
}

/** Rings the ZIP code or county the pointer is on, on the overlay canvas above the map. */
export function highlight(canvas, view, target) {
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
  const r = dotRadius(view.zoom) + 3;
  ctx.beginPath();
  ctx.arc(sx, sy, r, 0, 2 * Math.PI);
  ctx.lineWidth = 3;
  ctx.strokeStyle = '#ffffff';
  ctx.stroke();
  ctx.lineWidth = 1.5;
  ctx.strokeStyle = '#000000';
  ctx.stroke();
}
