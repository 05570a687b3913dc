/**
 * The map page (`/map/`): loads the build's data files beside it, paints them on a canvas, and keeps what it
 * shows in the URL's fragment (`#score=asthma&by=county&state=NY&zip=10001&band=0&at=x,y,zoom`), so a link
 * shows what its sender saw. No request leaves the page's own origin.
 */
import { BuildChanged, decodeCounties, decodeScores, decodeZips, fetchData, waiting } from './data.js';
import { countyLinesShown, dotRadius, highlight, paint } from './draw.js';
import { addRings, Arcs, linesPath, MAX_ZOOM, PointIndex, ringsBox, View } from './geometry.js';
import { countyTip, renderBuild, renderLegend, renderTable, zipTip } from './panels.js';
import { lowerBound, Places, searchBox } from './search.js';

const $ = (id) => document.getElementById(id);
const canvas = $('map');
const overlay = document.createElement('canvas');
overlay.className = 'overlay';
overlay.setAttribute('aria-hidden', 'true');
canvas.after(overlay);
const tip = $('tip');
const narrow = window.matchMedia('(max-width: 760px)');
const status = $('status');

/** Zoom of a ZIP code the search flies to: its neighbours' dots apart even in Manhattan. */
const ZIP_ZOOM = 48;
const COMPONENTS = [
  ['People', 'people'],
  ['Provider', 'provider'],
  ['Hospital', 'hospital'],
  ['Travel', 'travel'],
];

const app = {
  scores: new Map(),
  type: 'overall',
  by: 'zip',
  /** The band shown alone (an index into the legend's list, the last one "no score"), or -1 for every band. */
  band: -1,
  state: '',
  /** The ZIP code or county whose tooltip stays open ({ kind, index }), or null. */
  pinned: null,
  hover: null,
  view: null,
};

waiting.say = (seconds) => {
  status.textContent = `The server is busy making the map's data; trying again in ${seconds} s\u2026`;
};

start().catch((error) => {
  status.textContent = `The map could not load: ${error.message}`;
  document.documentElement.dataset.map = 'failed';
});

async function start(retried = false) {
  // While the data is on its way: the canvas sized and its context made, work the first paint waited for.
  resize();
  canvas.getContext('2d');
  try {
    await load();
  } catch (error) {
    // The server switched builds between two requests: start again once from its new metadata.
    if (error instanceof BuildChanged && !retried) {
      app.scores.clear();
      for (const made of ['counties', 'countiesFetch', 'outlinesFetch', 'arcs', 'countyLines']) app[made] = null;
      return start(true);
    }
    throw error;
  }
  wire();
  resize();
  await show({ fit: !app.at, first: true });
  performance.mark('map-painted');
  status.textContent = '';
  // What the first paint does not need: the search index and the table, after the frame that shows the map
  // (a task queued at once ran before that frame and held it back by its time: 1-3 s at load 10-23, bench/map.ts).
  await afterFrame();
  performance.mark('map-shown');
  setTimeout(() => {
    outlines().catch((error) => {
      status.textContent = `The county borders could not load: ${error.message}`;
    });
    app.index = new PointIndex(app.zips.x, app.zips.y, app.meta.frame.width, app.meta.frame.height);
    app.places = new Places(app.zips, app.meta.states);
    searchBox($('search'), $('suggestions'), app.places, flyTo);
    table(app.current.scores, app.counties);
    document.documentElement.dataset.map = 'ready';
    performance.mark('map-ready');
  }, 0);
}

/** Resolves once the next frame is made: its animation callbacks, then a task after them (the frame's paint). */
function afterFrame() {
  return new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
}

/**
 * The metadata, then at once everything the view in the URL needs: the national paths, the ZIP codes, the
 * scores of its type (and the counties and outlines for a state or the county view), fetched side by side.
 */
async function load() {
  // The score type the URL asks for, fetched beside the metadata (its slug is checked against it after).
  const asked = new URLSearchParams(location.hash.slice(1)).get('score') ?? 'overall';
  const early = /^[a-z0-9-]{1,40}$/.test(asked) ? fetchData(`data/scores/${asked}/scores.bin`).catch(() => null) : Promise.resolve(null);
  const meta = await fetchData('data/');
  performance.mark('map-meta');
  app.meta = meta;
  readFragment();
  const scores = early.then((file) => {
    if (file?.build_id !== meta.build_id || meta.score_types.every((type) => type.slug !== app.type) || app.type !== asked)
      return scoresOf(app.type);
    app.scores.set(app.type, decodeScores(file));
    return null;
  });
  // A state or the county view draws the counties' borders and shapes, made of the outlines' arcs: fetched
  // with the rest. The national view's first paint needs neither; they follow it (start()).
  const areas = app.by === 'county' || app.state !== '' ? Promise.all([countiesFile(), outlines()]) : null;
  const [national, zipsFile] = await Promise.all([
    fetchData(meta.files.national, meta.build_id),
    fetchData(meta.files.zips, meta.build_id),
  ]);
  // The page's marks (bench/map.ts prints them): the metadata read, the data fetched, the national paths made,
  // the ZIP codes and scores read, the scene made, the canvas painted, and the frame that shows it.
  performance.mark('map-fetched');
  app.shapes = {
    ...nationalPaths(national),
    // The county borders, once the outlines' arcs are in (outlines()).
    get counties() {
      return app.countyLines ?? null;
    },
  };
  performance.mark('map-outlines');
  app.zips = decodeZips(zipsFile, meta.grid);
  app.palette = paletteOf(meta.bands);
  app.gradeOfScore = gradesOfScores(app.palette);
  app.view = new View(meta.frame);
  placeFragment();
  fillControls(meta);
  renderBuild(meta, $('caption'), $('build'), $('sources'));
  $('legend-insets').textContent = `${meta.insets.map((inset) => inset.name).join(', ')}: boxed, each at its own scale.`;
  await Promise.all([scores, areas]);
  performance.mark('map-decoded');
}

/** The land, state and coast lines in frame units: SVG path data on the grid (src/map/files.ts), scaled. */
function nationalPaths(file) {
  const toFrame = new DOMMatrix().scale(1 / file.grid);
  const path = (data) => {
    const framed = new Path2D();
    framed.addPath(new Path2D(data), toFrame);
    return framed;
  };
  return { land: path(file.land), states: path(file.state), outline: path(file.outline) };
}

/**
 * The outlines' arcs (the counties' borders and shapes), fetched once. The county borders' path is made with
 * them, and the map painted again if it shows them.
 */
function outlines() {
  if (!app.outlinesFetch) {
    app.outlinesFetch = fetchData(app.meta.files.outlines, app.meta.build_id).then(({ columns, grid }) => {
      app.arcs = new Arcs(columns.arcs, columns.arc_points, grid);
      app.countyLines = linesPath(app.arcs, columns.county);
      if (app.scene && countyLinesShown(app.view)) draw();
      return app.arcs;
    });
    // A failed fetch is tried again by the next view that needs the arcs.
    app.outlinesFetch.catch(() => {
      app.outlinesFetch = null;
    });
  }
  return app.outlinesFetch;
}

/** The grades, lowest first, each with its band's index; the no-score mark last. */
function paletteOf(bands) {
  const grades = [];
  bands.forEach((band, b) => {
    for (const grade of band.grades) grades.push({ ...grade, band: b, label: band.label });
  });
  return grades;
}

/** The palette's index of a score's grade (-1 for no score): a table of the 101 scores, made with the palette. */
function gradeIndexOf(score) {
  return score < 0 ? -1 : app.gradeOfScore[score];
}

/** Each score 0-100's grade index in `palette` (a score outside every grade: -1). */
function gradesOfScores(palette) {
  const table = new Int8Array(101).fill(-1);
  for (let score = 0; score <= 100; score++) table[score] = palette.findIndex((grade) => score >= grade.min && score <= grade.max);
  return table;
}

function fillControls(meta) {
  const types = $('score-type');
  types.replaceChildren(...meta.score_types.map((type) => new Option(type.name, type.slug)));
  const states = $('state');
  // By code point, not localeCompare: the names are plain ASCII, and a collator's first use loads the browser's
  // locale data before the first paint (bench/map.ts).
  const sorted = [...meta.states].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  states.append(...sorted.map((state) => new Option(`${state.name} (${state.code})`, state.code)));
}

/** The scores of the type shown, fetched once per type. */
async function scoresOf(slug) {
  let scores = app.scores.get(slug);
  if (!scores) {
    scores = decodeScores(await fetchData(app.meta.files.scores.replace('{slug}', slug), app.meta.build_id));
    app.scores.set(slug, scores);
  }
  return scores;
}

/** The counties' file, fetched once (the county view, a state's table). */
function countiesFile() {
  app.countiesFetch ??= fetchData(app.meta.files.counties, app.meta.build_id);
  return app.countiesFetch;
}

/** The counties' paths and boxes, made the first time the county view or a state's table needs them. */
async function counties() {
  if (!app.counties) {
    const [countiesData] = await Promise.all([countiesFile(), outlines()]);
    const file = decodeCounties(countiesData);
    const paths = [];
    const boxes = [];
    for (const rings of file.rings) {
      const path = new Path2D();
      addRings(path, app.arcs, rings);
      boxes.push(ringsBox(app.arcs, rings));
      paths.push(path);
    }
    const zips = new Array(file.fips.length).fill(0);
    const residents = new Array(file.fips.length).fill(0);
    for (let i = 0; i < app.zips.count; i++) {
      const county = app.zips.county[i];
      if (county < 0) continue;
      zips[county]++;
      residents[county] += app.zips.residents[i];
    }
    app.counties = { ...file, paths, boxes, zips, residents };
  }
  return app.counties;
}

/** Everything that depends on the choices: data, scene, legend, table, URL. */
async function show({ fit = false, first = false } = {}) {
  const type = app.meta.score_types.find((each) => each.slug === app.type) ?? app.meta.score_types[0];
  app.type = type.slug;
  $('score-type').value = type.slug;
  $('state').value = app.state;
  for (const input of document.querySelectorAll('input[name="by"]')) input.checked = input.value === app.by;
  const scores = await scoresOf(type.slug);
  const needCounties = app.by === 'county' || app.state !== '';
  const areas = needCounties ? await counties() : null;
  app.current = { type, scores };
  app.scene = sceneOf(scores, areas);
  if (first) performance.mark('map-scene');
  if (fit) fitView();
  renderLegend($('bands'), app.meta.bands, app.meta.no_score, app.band, chooseBand);
  $('legend-what').textContent =
    app.by === 'county'
      ? `${type.name} by county: each county is coloured by the residents-weighted mean of its ZIP codes' scores.`
      : `${type.name} by ZIP code: each dot is a ZIP code, drawn where its residents live.`;
  if (!first) table(scores, areas);
  describe();
  draw();
  if (app.pinned) {
    const shape = targetShape(app.pinned);
    if (shape.x !== undefined) showTip(app.pinned, ...app.view.toScreen(shape.x, shape.y));
  }
  writeFragment();
}

/**
 * The ZIP codes from the fewest residents to the most: the order dots are painted in, so where dots overlap
 * (the cores of cities) the ones more people live in are on top. Rural dots seldom overlap, so none is hidden
 * for being small. Made once.
 */
function byResidents() {
  if (!app.byResidents) {
    // Residents and index in one number, sorted as numbers: no comparison function to call 500,000 times.
    // Plain loops, not Float64Array.from's callback: the first paint runs this once, before the JIT warms up.
    const { residents, count } = app.zips;
    const keys = new Float64Array(count);
    for (let i = 0; i < count; i++) keys[i] = residents[i] * 65536 + i;
    keys.sort();
    const order = new Int32Array(count);
    for (let i = 0; i < count; i++) order[i] = keys[i] % 65536;
    app.byResidents = order;
  }
  return app.byResidents;
}

/** What the canvas paints for the current choices: dots by grade, or county fills by grade. */
function sceneOf(scores, areas) {
  const scene = { view: app.view, shapes: app.shapes, insets: app.meta.insets };
  const shown = (gradeIndex) =>
    app.band < 0 || (gradeIndex < 0 ? app.band === app.meta.bands.length : app.palette[gradeIndex].band === app.band);
  if (app.by === 'county') {
    const fills = app.palette.map((grade) => ({ color: grade.color, path: new Path2D(), used: false }));
    const noScore = new Path2D();
    areas.paths.forEach((path, i) => {
      const g = gradeIndexOf(scores.counties[i]);
      if (!shown(g)) return;
      if (g < 0) noScore.addPath(path);
      else {
        fills[g].path.addPath(path);
        fills[g].used = true;
      }
    });
    scene.fills = fills.filter((fill) => fill.used);
    scene.noScore = shown(-1) ? noScore : null;
    return scene;
  }
  // Typed arrays and a grade index per dot, not a colour string: the first paint builds this once, cold.
  const paintOrder = byResidents();
  const order = new Int32Array(paintOrder.length);
  const grades = new Int8Array(app.zips.count).fill(-1);
  const none = [];
  const shownGrade = app.palette.map((_, g) => shown(g));
  let dots = 0;
  for (let k = 0; k < paintOrder.length; k++) {
    const i = paintOrder[k];
    const g = gradeIndexOf(scores.score[i]);
    if (g < 0) {
      if (shown(-1)) none.push(i);
    } else if (shownGrade[g]) {
      order[dots++] = i;
      grades[i] = g;
    }
  }
  const colors = app.palette.map((grade) => grade.color);
  scene.dots = { x: app.zips.x, y: app.zips.y, order: order.subarray(0, dots), grades, colors, none };
  return scene;
}

function draw() {
  paint(canvas, app.scene);
  highlight(overlay, app.view, targetShape(app.pinned ?? app.hover));
}

function fitView() {
  const state = app.meta.states.find((each) => each.code === app.state);
  if (state) app.view.fit(state.bbox, 16);
  else app.view.reset();
}

/** The canvas's label: what it shows, in words, and where the same is in the table. */
function describe() {
  const type = app.current.type.name;
  const where = app.state ? (app.meta.states.find((state) => state.code === app.state)?.name ?? app.state) : 'the United States';
  const what =
    app.by === 'county' ? 'counties coloured by the residents-weighted mean of their ZIP codes' : `${app.meta.zips} ZIP codes as dots`;
  const band = app.band < 0 ? '' : `, ${app.band === app.meta.bands.length ? 'no score' : app.meta.bands[app.band].label} only`;
  canvas.setAttribute('aria-label', `Map of the ${type} in ${where}: ${what}${band}. The table below gives the same by area.`);
}

/** The table: states, or the counties of the state chosen. */
function table(scores, areas) {
  const { bands } = app.meta;
  const bandOf = (score) => (score < 0 ? null : bands.find((band) => score >= band.min && score <= band.max));
  const sharesOf = (members) => {
    const residents = new Array(bands.length).fill(0);
    let total = 0;
    for (const i of members) {
      const band = bandOf(scores.score[i]);
      total += app.zips.residents[i];
      if (band) residents[bands.indexOf(band)] += app.zips.residents[i];
    }
    return residents.map((value) => (total > 0 ? (100 * value) / total : 0));
  };
  const membersOf = (key, count) => {
    const lists = Array.from({ length: count }, () => []);
    for (let i = 0; i < app.zips.count; i++) {
      const at = key[i];
      if (at >= 0) lists[at].push(i);
    }
    return lists;
  };
  const type = app.current.type.name;
  if (app.state) {
    const stateIndex = app.meta.states.findIndex((state) => state.code === app.state);
    const fipsPrefix = app.meta.states[stateIndex].fips;
    const members = membersOf(app.zips.county, areas.fips.length);
    const rows = [];
    areas.fips.forEach((fips, i) => {
      if (!fips.startsWith(fipsPrefix)) return;
      rows.push({
        name: areas.names[i],
        zips: areas.zips[i],
        residents: areas.residents[i],
        score: scores.counties[i],
        band: bandOf(scores.counties[i]),
        shares: sharesOf(members[i]),
      });
    });
    rows.sort((a, b) => a.name.localeCompare(b.name));
    $('table-what').textContent =
      `The counties of ${app.meta.states[stateIndex].name}: each county's mean is weighted by the residents of its ZIP codes.`;
    renderTable($('areas'), { caption: `${type} by county, ${app.meta.states[stateIndex].name}`, areaHeading: 'County', rows, bands });
    return;
  }
  const members = membersOf(app.zips.state, app.meta.states.length);
  const rows = app.meta.states.map((state, i) => ({
    id: state.code,
    name: state.name,
    zips: state.zips,
    residents: state.residents,
    score: scores.states[i],
    band: bandOf(scores.states[i]),
    shares: sharesOf(members[i]),
  }));
  rows.sort((a, b) => a.name.localeCompare(b.name));
  $('table-what').textContent = "Each state's mean is weighted by the residents of its ZIP codes; select a state to see its counties.";
  renderTable($('areas'), { caption: `${type} by state`, areaHeading: 'State', rows, bands, onArea: chooseState });
}

function chooseBand(i) {
  app.band = app.band === i ? -1 : i;
  show();
  status.textContent =
    app.band < 0 ? 'Showing every band' : `Showing ${i === app.meta.bands.length ? 'no score' : app.meta.bands[i].label} only`;
}

function chooseState(code) {
  app.state = code;
  app.pinned = null;
  hideTip();
  show({ fit: true });
}

/** The target's shape for the overlay: a county's path, or a ZIP code's point. */
function targetShape(target) {
  if (!target) return null;
  if (target.kind === 'county') return { path: app.counties.paths[target.index] };
  const grade = app.palette[gradeIndexOf(app.current.scores.score[target.index])];
  return { x: app.zips.x[target.index], y: app.zips.y[target.index], color: grade?.color ?? null };
}

/** What is under a canvas point: the nearest shown ZIP code within a few pixels, or the county there. */
function targetAt(px, py) {
  const [x, y] = app.view.toFrame(px, py);
  if (app.by === 'county') {
    const { boxes, paths } = app.counties;
    const ctx = overlay.getContext('2d');
    ctx.save();
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    let found = -1;
    for (let i = 0; i < boxes.length && found < 0; i++) {
      const [left, top, right, bottom] = boxes[i];
      if (x >= left && x <= right && y >= top && y <= bottom && ctx.isPointInPath(paths[i], x, y, 'evenodd')) found = i;
    }
    ctx.restore();
    return found < 0 ? null : { kind: 'county', index: found };
  }
  const radius = (dotRadius(app.view.zoom) + 4) / app.view.scale;
  const { score } = app.current.scores;
  const shown = (i) => {
    if (app.band < 0) return true;
    const g = gradeIndexOf(score[i]);
    return g < 0 ? app.band === app.meta.bands.length : app.palette[g].band === app.band;
  };
  if (!app.index) return null; // made just after the first paint
  const index = app.index.nearest(x, y, radius, shown);
  return index < 0 ? null : { kind: 'zip', index };
}

/** Fills and places the tooltip for a target, near canvas point (px, py). */
function showTip(target, px, py) {
  const { type, scores } = app.current;
  if (target.kind === 'zip') {
    const i = target.index;
    const score = scores.score[i];
    const g = gradeIndexOf(score);
    const code = app.zips.zip[i];
    zipTip(tip, {
      zip: code,
      city: app.zips.city[i],
      state: app.meta.states[app.zips.state[i]].code,
      scoreType: type.name,
      score,
      grade: app.palette[g],
      band: app.meta.bands[app.palette[g]?.band],
      components: COMPONENTS.map(([name, key]) => [name, scores[key][i] < 0 ? null : scores[key][i]]),
      residents: app.zips.residents[i],
      // The overall record, and for another type the record of all eleven (the API has no single record of another type).
      json: `../api/v1/health-scores/${code}/`,
      allScores: type.id === 1 ? null : `../api/v1/health-scores/${code}/all-scores/`,
    });
  } else {
    const i = target.index;
    const score = scores.counties[i];
    const g = gradeIndexOf(score);
    const stateFips = app.counties.fips[i].slice(0, 2);
    countyTip(tip, {
      name: app.counties.names[i],
      state: app.meta.states.find((state) => state.fips === stateFips)?.code ?? '',
      scoreType: type.name,
      score,
      grade: app.palette[g],
      band: app.meta.bands[app.palette[g]?.band],
      zips: app.counties.zips[i],
      residents: app.counties.residents[i],
    });
  }
  tip.hidden = false;
  // On a phone, map.css puts the tooltip across the foot of the map.
  if (narrow.matches) {
    tip.style.left = '';
    tip.style.top = '';
    return;
  }
  const stage = $('stage').getBoundingClientRect();
  const box = tip.getBoundingClientRect();
  const left = px + 14 + box.width > stage.width ? Math.max(4, px - 14 - box.width) : px + 14;
  const top = Math.min(Math.max(4, py - box.height / 2), Math.max(4, canvas.clientHeight - box.height - 4));
  tip.style.left = `${left}px`;
  tip.style.top = `${top}px`;
}

function hideTip() {
  tip.hidden = true;
}

/** Flies to a ZIP code (pinned, its tooltip open) or a city's ZIP codes. */
function flyTo(suggestion) {
  if (suggestion.kind === 'zip') return pinZip(suggestion.index);
  let box = [
    [Infinity, Infinity],
    [-Infinity, -Infinity],
  ];
  for (const i of suggestion.members) {
    box = [
      [Math.min(box[0][0], app.zips.x[i]), Math.min(box[0][1], app.zips.y[i])],
      [Math.max(box[1][0], app.zips.x[i]), Math.max(box[1][1], app.zips.y[i])],
    ];
  }
  const pad = 0.6;
  app.view.fit(
    [
      [box[0][0] - pad, box[0][1] - pad],
      [box[1][0] + pad, box[1][1] + pad],
    ],
    ZIP_ZOOM,
  );
  const largest = suggestion.members.reduce(
    (best, i) => (app.zips.residents[i] > app.zips.residents[best] ? i : best),
    suggestion.members[0],
  );
  pinZip(largest, false);
}

function pinZip(index, zoom = true) {
  if (app.by === 'county') {
    app.by = 'zip';
    app.scene = sceneOf(app.current.scores, app.counties);
  }
  if (zoom) {
    app.view.zoom = ZIP_ZOOM;
    app.view.cx = app.zips.x[index];
    app.view.cy = app.zips.y[index];
  }
  app.pinned = { kind: 'zip', index };
  show().then(() => {
    status.textContent = `ZIP code ${app.zips.zip[index]}, ${app.zips.city[index]}: ${tip.querySelector('.score')?.textContent ?? ''}`;
  });
}

/** Sizes the canvases to the map's box, and says whether their size changed (a canvas given a size is cleared). */
function resize() {
  const ratio = window.devicePixelRatio || 1;
  const width = canvas.clientWidth;
  const height = canvas.clientHeight;
  if (app.view) {
    app.view.width = width;
    app.view.height = height;
  }
  if (canvas.width === Math.round(width * ratio) && canvas.height === Math.round(height * ratio) && app.sized === `${width}x${height}`)
    return false;
  app.sized = `${width}x${height}`;
  for (const each of [canvas, overlay]) {
    each.width = Math.round(width * ratio);
    each.height = Math.round(height * ratio);
  }
  overlay.style.width = `${width}px`;
  overlay.style.height = `${height}px`;
  return true;
}

function wire() {
  $('score-type').addEventListener('change', (event) => {
    app.type = event.target.value;
    show();
  });
  for (const input of document.querySelectorAll('input[name="by"]')) {
    input.addEventListener('change', () => {
      app.by = input.value;
      app.pinned = null;
      hideTip();
      show();
    });
  }
  $('state').addEventListener('change', (event) => chooseState(event.target.value));
  $('controls').addEventListener('submit', (event) => event.preventDefault());
  $('zoom-in').addEventListener('click', () => zoomBy(2));
  $('zoom-out').addEventListener('click', () => zoomBy(0.5));
  $('zoom-reset').addEventListener('click', () => chooseState(''));
  pointer();
  canvas.addEventListener('keydown', keys);
  window.addEventListener('hashchange', () => {
    if (location.hash.slice(1) === app.written) return;
    readFragment();
    placeFragment();
    show({ fit: !app.at });
  });
  // The observer's first call comes in the first frame, at the size the map was just painted at: a repaint then
  // (setting a canvas's size clears it, even to the same size) put a second whole paint in front of that frame.
  new ResizeObserver(() => {
    if (resize() && app.scene) draw();
  }).observe(canvas);
}

function zoomBy(factor) {
  app.view.zoomAt(factor, app.view.width / 2, app.view.height / 2);
  moved();
}

/** After a pan or zoom: repaint now, write the URL a little later (not on every frame of a drag). */
function moved() {
  hideTip();
  app.hover = null;
  if (app.pinned) {
    const shape = targetShape(app.pinned);
    if (shape.x !== undefined) {
      const [px, py] = app.view.toScreen(shape.x, shape.y);
      showTip(app.pinned, px, py);
    }
  }
  draw();
  clearTimeout(app.writeTimer);
  app.writeTimer = setTimeout(writeFragment, 250);
}

function keys(event) {
  const step = 80;
  const actions = {
    ArrowLeft: () => app.view.pan(step, 0),
    ArrowRight: () => app.view.pan(-step, 0),
    ArrowUp: () => app.view.pan(0, step),
    ArrowDown: () => app.view.pan(0, -step),
    '+': () => app.view.zoomAt(2, app.view.width / 2, app.view.height / 2),
    '=': () => app.view.zoomAt(2, app.view.width / 2, app.view.height / 2),
    '-': () => app.view.zoomAt(0.5, app.view.width / 2, app.view.height / 2),
    0: () => app.view.reset(),
    Escape: () => {
      app.pinned = null;
      hideTip();
    },
  };
  const action = actions[event.key];
  if (!action) return;
  event.preventDefault();
  action();
  moved();
}

/** Drag to pan, wheel and pinch to zoom, hover for a tooltip, click or tap to keep it open. */
function pointer() {
  const down = new Map();
  let dragged = false;
  let pinch = 0;
  const local = (event) => {
    const box = canvas.getBoundingClientRect();
    return [event.clientX - box.left, event.clientY - box.top];
  };
  canvas.addEventListener('pointerdown', (event) => {
    canvas.setPointerCapture(event.pointerId);
    down.set(event.pointerId, local(event));
    dragged = false;
    if (down.size === 2) {
      const [a, b] = [...down.values()];
      pinch = Math.hypot(a[0] - b[0], a[1] - b[1]);
    }
  });
  canvas.addEventListener('pointermove', (event) => {
    const [px, py] = local(event);
    const last = down.get(event.pointerId);
    if (!last) {
      if (event.pointerType === 'mouse') hover(px, py);
      return;
    }
    if (down.size === 2) {
      down.set(event.pointerId, [px, py]);
      const [a, b] = [...down.values()];
      const distance = Math.hypot(a[0] - b[0], a[1] - b[1]);
      if (pinch > 0) app.view.zoomAt(distance / pinch, (a[0] + b[0]) / 2, (a[1] + b[1]) / 2);
      pinch = distance;
      dragged = true;
      moved();
      return;
    }
    const [dx, dy] = [px - last[0], py - last[1]];
    if (!dragged && Math.hypot(dx, dy) < 4) return;
    dragged = true;
    down.set(event.pointerId, [px, py]);
    app.view.pan(dx, dy);
    moved();
  });
  const up = (event) => {
    const was = down.get(event.pointerId);
    down.delete(event.pointerId);
    if (down.size < 2) pinch = 0;
    if (!was || dragged || event.type === 'pointercancel') return;
    const [px, py] = local(event);
    const target = targetAt(px, py);
    app.pinned = target;
    if (target) showTip(target, px, py);
    else hideTip();
    highlight(overlay, app.view, targetShape(target));
    writeFragment();
  };
  canvas.addEventListener('pointerup', up);
  canvas.addEventListener('pointercancel', up);
  canvas.addEventListener('pointerleave', () => {
    if (!app.pinned) {
      app.hover = null;
      hideTip();
      highlight(overlay, app.view, null);
    }
  });
  canvas.addEventListener(
    'wheel',
    (event) => {
      event.preventDefault();
      const [px, py] = local(event);
      app.view.zoomAt(Math.exp(-event.deltaY * 0.002), px, py);
      moved();
    },
    { passive: false },
  );
  canvas.addEventListener('dblclick', (event) => {
    const [px, py] = local(event);
    app.view.zoomAt(2, px, py);
    moved();
  });
}

function hover(px, py) {
  if (app.pinned) return;
  const target = targetAt(px, py);
  const same = target && app.hover && target.kind === app.hover.kind && target.index === app.hover.index;
  if (!same) {
    app.hover = target;
    highlight(overlay, app.view, targetShape(target));
  }
  if (target) showTip(target, px, py);
  else hideTip();
}

/** Reads the choices from the URL's fragment; anything it does not know is left at its default. */
function readFragment() {
  const params = new URLSearchParams(location.hash.slice(1));
  const type = params.get('score');
  app.type = app.meta.score_types.some((each) => each.slug === type) ? type : app.meta.score_types[0].slug;
  app.by = params.get('by') === 'county' ? 'county' : 'zip';
  const state = (params.get('state') ?? '').toUpperCase();
  app.state = app.meta.states.some((each) => each.code === state) ? state : '';
  const band = Number(params.get('band'));
  app.band = params.has('band') && Number.isInteger(band) && band >= 0 && band <= app.meta.bands.length ? band : -1;
  const at = (params.get('at') ?? '').split(',').map(Number);
  app.at = at.length === 3 && at.every(Number.isFinite) ? at : null;
  const zip = params.get('zip');
  app.zip = zip && /^\d{5}$/.test(zip) ? zip : null;
}

/** Applies the fragment's place (its view, its ZIP code) once the ZIP codes are loaded. */
function placeFragment() {
  app.pinned = null;
  hideTip();
  if (app.at) {
    [app.view.cx, app.view.cy, app.view.zoom] = app.at;
    app.view.zoom = Math.min(MAX_ZOOM, Math.max(1, app.view.zoom));
    app.view.clamp();
  }
  const index = app.zip ? zipIndex(app.zip) : -1;
  if (index < 0) return;
  app.pinned = { kind: 'zip', index };
  if (!app.at) {
    app.view.zoom = ZIP_ZOOM;
    app.view.cx = app.zips.x[index];
    app.view.cy = app.zips.y[index];
    app.at = [app.view.cx, app.view.cy, app.view.zoom];
  }
}

/** The index of a ZIP code in the loaded columns (sorted), or -1. */
function zipIndex(code) {
  const at = lowerBound(app.zips.zip, code);
  return app.zips.zip[at] === code ? at : -1;
}

/** Writes the choices into the URL's fragment (replacing the history entry: panning is not navigation). */
function writeFragment() {
  const params = new URLSearchParams();
  if (app.type !== app.meta.score_types[0].slug) params.set('score', app.type);
  if (app.by !== 'zip') params.set('by', app.by);
  if (app.state) params.set('state', app.state);
  if (app.band >= 0) params.set('band', String(app.band));
  if (app.pinned?.kind === 'zip') params.set('zip', app.zips.zip[app.pinned.index]);
  const { cx, cy, zoom } = app.view;
  if (zoom > 1.001 || Math.abs(cx - app.meta.frame.width / 2) > 0.5 || Math.abs(cy - app.meta.frame.height / 2) > 0.5) {
    params.set('at', `${cx.toFixed(1)},${cy.toFixed(1)},${zoom.toFixed(2)}`);
  }
  const text = params.toString();
  app.written = text;
  if (location.hash.slice(1) !== text) history.replaceState(null, '', text ? `#${text}` : location.pathname + location.search);
}

/** For tests and for anyone reading the page from the console: where a ZIP code is drawn, in CSS pixels of the canvas. */
window.hcasMap = {
  screenOf(zip) {
    const index = zipIndex(zip);
    return index < 0 ? null : app.view.toScreen(app.zips.x[index], app.zips.y[index]);
  },
  get view() {
    const { cx, cy, zoom, width, height } = app.view;
    return { cx, cy, zoom, width, height };
  },
};
