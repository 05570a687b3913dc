/**
 * The search box: ZIP codes by their first digits and cities by the start of their name, as the API's
 * autocomplete suggests them (src/query/autocomplete.ts), but from the map's own data, so it works where no
 * server answers (a static export). Cities are ranked by residents.
 */

/** At most this many suggestions, as the API's autocomplete. */
const MAX_SUGGESTIONS = 10;

/**
 * The search key of a text, as core/search-key.ts makes it (case, accents and punctuation ignored): the same
 * steps, so "St. Louis", "st louis" and "ST LOUIS" find one city. test/map-browser.test.ts holds the two equal.
 */
export function searchKey(text) {
  return (
    text
      .normalize('NFKD')
      .replace(/\p{M}+/gu, '')
      .toLowerCase()
      .replace(/&/g, ' and ')
      .replace(/['\u2019\u2018`.]/g, '')
      .replace(/[^\p{L}\p{N}]+/gu, ' ')
      // biome-ignore lint/suspicious/noControlCharactersInRegex: the range starts at U+0000 on purpose, as in core/search-key.ts.
      .replace(/[^\u0000-\ud7ff]/g, '')
      .trim()
      .replace(/ {2,}/g, ' ')
  );
}

/** The places of the map, searchable: `zips` (decoded), `states` (the metadata's list). */
export class Places {
  constructor(zips, states) {
    this.zips = zips;
    this.states = states;
    const byCity = new Map();
    for (let i = 0; i < zips.count; i++) {
      const state = states[zips.state[i]].code;
      const id = `${zips.city[i]}\n${state}`;
      let city = byCity.get(id);
      if (!city) {
        city = { key: searchKey(zips.city[i]), name: zips.city[i], state, residents: 0, members: [] };
        byCity.set(id, city);
      }
      city.residents += zips.residents[i];
      city.members.push(i);
    }
    this.cities = [...byCity.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : b.residents - a.residents));
  }

  /** Up to ten suggestions for a text: `{ kind: 'zip', index, label }` or `{ kind: 'city', members, label }`. */
  suggest(text) {
    const trimmed = text.trim();
    if (/^\d{1,5}$/.test(trimmed)) return this.zipsStartingWith(trimmed);
    const [name, statePart = ''] = trimmed.split(',');
    const key = searchKey(name);
    if (key === '') return [];
    const state = statePart.trim().toUpperCase();
    const from = lowerBound(this.cities, key, (city) => city.key);
    const found = [];
    for (let i = from; i < this.cities.length && this.cities[i].key.startsWith(key); i++) {
      if (this.cities[i].state.startsWith(state)) found.push(this.cities[i]);
    }
    found.sort((a, b) => b.residents - a.residents);
    return found.slice(0, MAX_SUGGESTIONS).map((city) => ({
      kind: 'city',
      members: city.members,
      label: `${city.name}, ${city.state}`,
      detail: `${city.members.length} ZIP code${city.members.length === 1 ? '' : 's'}`,
    }));
  }

  zipsStartingWith(digits) {
    const { zip } = this.zips;
    const low = lowerBound(zip, digits);
    const found = [];
    for (let i = low; i < zip.length && found.length < MAX_SUGGESTIONS && zip[i].startsWith(digits); i++) {
      found.push({ kind: 'zip', index: i, label: `${zip[i]} - ${this.zips.city[i]}, ${this.states[this.zips.state[i]].code}` });
    }
    return found;
  }
}

/** The first index of a sorted list whose value (`read` of it) is not below `value`: a binary search. */
export function lowerBound(list, value, read = (item) => item) {
  let low = 0;
  let high = list.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (read(list[middle]) < value) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * The combobox (WAI-ARIA 1.2 pattern): typing lists suggestions, arrow keys move through them, Enter or a
 * click chooses one and `choose` flies the map there; Escape closes the list.
 */
export function searchBox(input, list, places, choose) {
  let shown = [];
  let active = -1;
  const close = () => {
    list.hidden = true;
    input.setAttribute('aria-expanded', 'false');
    input.removeAttribute('aria-activedescendant');
    active = -1;
  };
  const mark = (next) => {
    active = next;
    list.querySelectorAll('[role="option"]').forEach((item, i) => item.setAttribute('aria-selected', String(i === active)));
    if (active >= 0) input.setAttribute('aria-activedescendant', `suggestion-${active}`);
    else input.removeAttribute('aria-activedescendant');
  };
  const pick = (i) => {
    const suggestion = shown[i];
    if (!suggestion) return;
    input.value = suggestion.label;
    close();
    choose(suggestion);
  };
  input.addEventListener('input', () => {
    shown = places.suggest(input.value);
    list.replaceChildren(
      ...shown.map((suggestion, i) => {
        const item = document.createElement('div');
        item.id = `suggestion-${i}`;
        item.setAttribute('role', 'option');
        item.setAttribute('aria-selected', 'false');
        item.textContent = suggestion.detail ? `${suggestion.label} (${suggestion.detail})` : suggestion.label;
        item.addEventListener('mousedown', (event) => {
          event.preventDefault();
          pick(i);
        });
        return item;
      }),
    );
    list.hidden = shown.length === 0;
    input.setAttribute('aria-expanded', String(shown.length > 0));
    active = -1;
  });
  input.addEventListener('keydown', (event) => {
    if (event.key === 'ArrowDown' && shown.length > 0) {
      event.preventDefault();
      if (list.hidden) {
        list.hidden = false;
        input.setAttribute('aria-expanded', 'true');
      }
      mark((active + 1) % shown.length);
    } else if (event.key === 'ArrowUp' && shown.length > 0) {
      event.preventDefault();
      mark(active <= 0 ? shown.length - 1 : active - 1);
    } else if (event.key === 'Enter') {
      event.preventDefault();
      if (!list.hidden && shown.length > 0) pick(active >= 0 ? active : 0);
    } else if (event.key === 'Escape') close();
  });
  input.addEventListener('blur', close);
}
