import type Database from 'better-sqlite3';
import { PREFIX_END, searchKey } from '../../core/search-key.ts';
import type { FacilityQueries } from './facilities.ts';
import type { ProviderQueries } from './providers.ts';
import type { Suggestion, SuggestionType } from '../answers/autocomplete.ts';

/** The interface specification's limit (section 8). */
export const MAX_SUGGESTIONS = 10;
/** Suggestions in this order of types; each type first gets up to its quota, then free slots go to the earliest type with more. */
const QUOTAS: ReadonlyArray<[SuggestionType, number]> = [
  ['zip', 10],
  ['city', 4],
  ['provider', 3],
  ['facility', 3],
];
/** Full-name searches try at most this many ways to split the words into a first and a last name. */
const MAX_NAME_SPLITS = 3;

interface City {
  key: string;
  city: string;
  state: string;
  population: number;
}

/**
 * Autocomplete over ZIP codes, cities, providers and facilities, from small in-memory lists and the
 * directory indexes: no `LIKE '%x%'` anywhere. ZIP codes: a primary-key range. Cities: the scored ZIPs'
 * cities with their population, sorted by key. Providers: the name-prefix intervals of the directory.
 * Facilities: the facility name index.
 */
export class AutocompleteQueries {
  private readonly zipRange: Database.Statement;
  private cityList: City[] | undefined;

  private readonly db: Database.Database;
  private readonly providers: ProviderQueries;
  private readonly facilities: FacilityQueries;

  constructor(db: Database.Database, providers: ProviderQueries, facilities: FacilityQueries) {
    this.db = db;
    this.providers = providers;
    this.facilities = facilities;
    this.zipRange = db.prepare('SELECT zip_code, city, state FROM zips WHERE zip_code >= ? AND zip_code < ? ORDER BY zip_code LIMIT ?');
  }

  /** At most 10 suggestions for a search text, by type: ZIP codes, cities, providers, facilities. */
  suggest(text: string): Suggestion[] {
    const found = new Map<SuggestionType, Suggestion[]>();
    const trimmed = text.trim();
    if (/^\d{1,5}$/.test(trimmed)) found.set('zip', this.zips(trimmed));
    const key = searchKey(text);
    if (key !== '' && !/^\d+$/.test(key)) {
      found.set('city', this.cities(text));
      found.set('provider', this.providerSuggestions(key));
      found.set('facility', this.facilitySuggestions(key));
    }
    const taken = new Map<SuggestionType, number>();
    let free = MAX_SUGGESTIONS;
    for (const [type, quota] of QUOTAS) {
      const n = Math.min(quota, found.get(type)?.length ?? 0, free);
      taken.set(type, n);
      free -= n;
    }
    for (const [type] of QUOTAS) {
      const n = Math.min(free, (found.get(type)?.length ?? 0) - taken.get(type)!);
      taken.set(type, taken.get(type)! + n);
      free -= n;
    }
    return QUOTAS.flatMap(([type]) => (found.get(type) ?? []).slice(0, taken.get(type)));
  }

  /** ZIP codes starting with the digits, ascending (so a full ZIP code comes alone, or first). */
  private zips(digits: string): Suggestion[] {
    const rows = this.zipRange.all(digits, digits + PREFIX_END, MAX_SUGGESTIONS) as Array<{
      zip_code: string;
      city: string;
      state: string;
    }>;
    return rows.map((row) => ({
      type: 'zip',
      label: `${row.zip_code} - ${row.city}, ${row.state}`,
      url: `/api/v1/health-scores/${row.zip_code}/`,
    }));
  }

  /** Cities whose name starts with the text, most populous first; `"portland, me"` narrows to a state. */
  private cities(text: string): Suggestion[] {
    const comma = text.indexOf(',');
    const key = searchKey(comma < 0 ? text : text.slice(0, comma));
    const statePrefix =
      comma < 0
        ? ''
        : text
            .slice(comma + 1)
            .trim()
            .toUpperCase();
    if (key === '') return [];
    const list = this.cityIndex();
    const best: City[] = [];
    for (let i = lowerBound(list, key), end = lowerBound(list, key + PREFIX_END); i < end; i++) {
      const city = list[i];
      if (!city.state.startsWith(statePrefix)) continue;
      if (best.length === MAX_SUGGESTIONS && !outranks(city, best[best.length - 1])) continue;
      const at = best.findIndex((b) => outranks(city, b));
      best.splice(at < 0 ? best.length : at, 0, city);
      if (best.length > MAX_SUGGESTIONS) best.pop();
    }
    return best.map((c) => ({
      type: 'city',
      label: `${c.city}, ${c.state}`,
      url: `/api/v1/health-scores/?${new URLSearchParams({ state: c.state, city: c.city })}`,
    }));
  }

  /**
   * Providers whose first or last name starts with the text; with several words, also those whose first name
   * starts with the first words and last name with the rest (or the other way round): "john sm", "smith john".
   */
  private providerSuggestions(key: string): Suggestion[] {
    const directory = this.providers.directory;
    const found = [directory.firstByName(key, MAX_SUGGESTIONS)];
    const words = key.split(' ');
    for (let k = 1; k < words.length && k <= MAX_NAME_SPLITS; k++) {
      const head = words.slice(0, k).join(' ');
      const tail = words.slice(k).join(' ');
      found.push(directory.firstByFullName(head, tail, MAX_SUGGESTIONS), directory.firstByFullName(tail, head, MAX_SUGGESTIONS));
    }
    const ranks = [...new Set(found.flatMap((f) => [...f]))].sort((a, b) => a - b).slice(0, MAX_SUGGESTIONS);
    return this.providers.labels(Uint32Array.from(ranks)).map((p) => ({
      type: 'provider',
      label: `${p.first_name} ${p.last_name}${p.credential ? `, ${p.credential}` : ''}${p.primary_specialty ? ` - ${p.primary_specialty}` : ''} - ${p.city}, ${p.state}`,
      url: `/api/v1/providers/${p.npi}/`,
    }));
  }

  /** Facilities with a word of their name starting with the text: names that start with it first. */
  private facilitySuggestions(key: string): Suggestion[] {
    const ids = this.facilities.index.byWordPrefix(key, MAX_SUGGESTIONS);
    return this.facilities.summaries(ids).map((f) => ({
      type: 'facility',
      label: `${f.facility_name} - ${f.city_name}, ${f.state_code}`,
      url: `/api/v1/facilities/${f.id}/`,
    }));
  }

  /** Every city of a scored ZIP with the population of its ZIPs, sorted by key; loaded on first use. */
  private cityIndex(): City[] {
    this.cityList ??= (
      this.db.prepare('SELECT city, state, SUM(ifnull(population, 0)) AS population FROM zips GROUP BY state, city').all() as Array<
        Omit<City, 'key'>
      >
    )
      .map((c) => ({ ...c, key: searchKey(c.city) }))
      .filter((c) => c.key !== '')
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    return this.cityList;
  }
}

/** More populous first; ties by name, then state. */
function outranks(a: City, b: City): boolean {
  return a.population !== b.population ? a.population > b.population : a.key !== b.key ? a.key < b.key : a.state < b.state;
}

function lowerBound(list: readonly City[], key: string): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid].key < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
