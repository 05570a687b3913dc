/**
 * The page's text around the canvas: the legend (bands as buttons), the tooltip, the table that says what
 * the map shows without it, and the build's note. Built with DOM calls (no HTML strings, no inline style
 * attributes: the page's policy allows neither), colours set through the CSSOM.
 */

/**
 * Numbers with thousands separators. Made on first use (a tooltip, the table): making an Intl formatter loads
 * the browser's locale data, a large part of the first paint on a loaded machine (bench/map.ts).
 */
const number = {
  format(value) {
    this.formatter ??= new Intl.NumberFormat('en-US');
    return this.formatter.format(value);
  },
};

/** An element with text or children. */
export function el(tag, attributes = {}, children = []) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (name === 'text') node.textContent = value;
    else if (name === 'color') node.style.background = value;
    else node.setAttribute(name, value);
  }
  for (const child of children) node.append(child);
  return node;
}

function swatch(color) {
  return color
    ? el('span', { class: 'swatch', color, 'aria-hidden': 'true' })
    : el('span', { class: 'swatch none', 'aria-hidden': 'true' });
}

/** The legend: a button per band (lowest first) with its grades' colours and range, and the no-score mark. */
export function renderLegend(list, bands, noScore, shownBand, onBand) {
  const items = bands.map((band, i) =>
    el('li', {}, [
      bandButton(band, i, shownBand, onBand, [
        el(
          'span',
          { class: 'grades' },
          band.grades.map((grade) => swatch(grade.color)),
        ),
        el('span', { text: `${band.label} (${band.grades.map((grade) => grade.grade).join(', ')})` }),
        el('span', { class: 'range', text: `${band.min}\u2013${band.max}` }),
      ]),
    ]),
  );
  items.push(
    el('li', {}, [
      bandButton(noScore, bands.length, shownBand, onBand, [
        el('span', { class: 'grades' }, [swatch(null)]),
        el('span', { text: noScore.label }),
        el('span', { class: 'range', text: 'none' }),
      ]),
    ]),
  );
  list.replaceChildren(...items);
}

function bandButton(band, i, shownBand, onBand, children) {
  const pressed = shownBand === i;
  const button = el(
    'button',
    { type: 'button', 'aria-pressed': String(pressed), class: shownBand >= 0 && !pressed ? 'off' : '' },
    children,
  );
  button.addEventListener('click', () => onBand(i));
  return button;
}

/** The tooltip of a ZIP code: its place, score, band and grade, components, residents and a link to its record. */
export function zipTip(tip, { zip, city, state, scoreType, score, grade, band, components, residents, json, allScores }) {
  const rows = [];
  for (const [name, value] of components)
    rows.push(el('dt', { text: name }), el('dd', { text: value === null ? 'not measured' : String(value) }));
  rows.push(el('dt', { text: 'Residents' }), el('dd', { text: number.format(residents) }));
  tip.replaceChildren(
    el('h3', { text: `${zip} \u00b7 ${city}, ${state}` }),
    el('p', { text: scoreType }),
    scoreLine(score, grade, band),
    el('dl', {}, rows),
    el('p', {}, [
      el('a', { href: json, text: 'Its record (JSON)' }),
      ...(allScores ? [' \u00b7 ', el('a', { href: allScores, text: 'its 11 scores' })] : []),
    ]),
  );
}

/** The tooltip of a county: its name, its mean score (residents-weighted, said so), its ZIP codes and residents. */
export function countyTip(tip, { name, state, scoreType, score, grade, band, zips, residents }) {
  tip.replaceChildren(
    el('h3', { text: `${name}, ${state}` }),
    el('p', { text: `${scoreType}, residents-weighted mean of its ZIP codes` }),
    scoreLine(score, grade, band),
    el('dl', {}, [
      el('dt', { text: 'ZIP codes' }),
      el('dd', { text: number.format(zips) }),
      el('dt', { text: 'Residents' }),
      el('dd', { text: number.format(residents) }),
    ]),
  );
}

function scoreLine(score, grade, band) {
  if (score < 0) return el('p', { class: 'score' }, [swatch(null), el('span', { text: 'No score' })]);
  return el('p', { class: 'score' }, [
    swatch(grade.color),
    el('strong', { text: String(score) }),
    el('span', { text: `${band.label} (grade ${grade.grade})` }),
  ]);
}

/**
 * The map as a table: a row per area (states, or one state's counties), with its mean score, band and the
 * share of its residents in each band, so everything the colours say can be read without them.
 */
export function renderTable(table, { caption, areaHeading, rows, bands, onArea }) {
  const head = el('tr', {}, [
    el('th', { scope: 'col', text: areaHeading }),
    el('th', { scope: 'col', text: 'ZIP codes' }),
    el('th', { scope: 'col', text: 'Residents' }),
    el('th', { scope: 'col', text: 'Mean score' }),
    el('th', { scope: 'col', text: 'Band' }),
    ...bands.map((band) => el('th', { scope: 'col', text: `${band.label} (% of residents)` })),
  ]);
  const body = rows.map((row) =>
    el('tr', {}, [
      el('th', { scope: 'row' }, [onArea && row.id ? areaButton(row, onArea) : row.name]),
      el('td', { text: number.format(row.zips) }),
      el('td', { text: number.format(row.residents) }),
      el('td', { text: row.score < 0 ? 'none' : String(row.score) }),
      el('td', { text: row.band ? row.band.label : 'No score' }),
      ...row.shares.map((share) => el('td', { text: row.residents > 0 ? `${share.toFixed(1)}` : '\u2013' })),
    ]),
  );
  table.replaceChildren(el('caption', { text: caption }), el('thead', {}, [head]), el('tbody', {}, body));
}

function areaButton(row, onArea) {
  const button = el('button', { type: 'button', text: row.name });
  button.addEventListener('click', () => onArea(row.id));
  return button;
}

/** The build's note under the map and in the footer: build id, date, dataset and sources. */
export function renderBuild(meta, caption, footer, sources) {
  const date = meta.built_at.slice(0, 10);
  caption.textContent = `Build ${meta.build_id} of ${date}. Outlines: ${meta.outlines_source}.`;
  footer.textContent = `${meta.dataset} \u00b7 build ${meta.build_id} of ${date} \u00b7 hcas ${meta.hcas_version}`;
  sources.replaceChildren(
    ...meta.sources.map((source) => el('li', { text: source.vintage ? `${source.key}: ${source.vintage}` : source.key })),
    el('li', { text: `outlines: ${meta.outlines_source}` }),
  );
}
