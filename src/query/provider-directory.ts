import type Database from 'better-sqlite3';
import { decodeUint32, PROVIDER_ARRAYS, type PostingKind } from '../../core/directory-format.ts';
import { PREFIX_END, searchKey, specialtyKey } from '../../core/search-key.ts';
import type { NearPlaces } from './nearby.ts';
import { bitmapOf, intersectAll, lowerBound, mergeRuns, mergeSorted, unionWithInterval, withBitmap, type RankSet } from './rank-sets.ts';

/** Filters of the providers list, as sent (the directory normalises them); absent fields do not filter. */
export interface ProviderFilter {
  specialty?: string;
  state?: string;
  city?: string;
  zip?: string;
  name?: string;
}

/**
 * Ranks matching a name prefix. Ranks are in last-name order, so the last names are one interval of ranks;
 * first names starting with the prefix are a range of first-name ids, whose ranks are one slice of
 * `first_order` (ascending within each name: one sorted run per name).
 */
export interface NameMatch {
  /** Ranks [lastFrom, lastTo) have a last name starting with the prefix. */
  lastFrom: number;
  lastTo: number;
  /** First-name ids [firstFrom, firstTo), whose ranks are first_order[orderFrom..orderTo). */
  firstFrom: number;
  firstTo: number;
  orderFrom: number;
  orderTo: number;
}

/** Default memory budget for posting lists held between requests. */
export const DEFAULT_POSTINGS_BYTES = 128 * 1024 * 1024;

/** Tuning of a directory; tests shrink these to take every path on a small fixture. */
export interface DirectoryOptions {
  /** Memory budget for posting lists held between requests. */
  postingsBytes?: number;
  /** First-name runs merged head by head; more runs are gathered and sorted, or scanned for. */
  maxMergedRuns?: number;
  /** Largest first-name match gathered and sorted; a larger one is dense enough to find by scanning ranks. */
  maxSortedFirstNames?: number;
  /** Which side a name filter visits: the name's ranks, the filtered set's, or the cheaper (default). */
  nameFilterVisits?: 'name' | 'set' | 'cheaper';
}

/**
 * The provider directory index of a build (docs/schema.md, "Provider directory"). A search intersects the
 * posting lists of its filters in memory, so its exact count and any page cost time in proportion to the
 * lists involved (at most a few hundred thousand ranks), never to the four million providers.
 * Posting lists stay in memory between requests up to a byte budget (least recently used go first); the
 * NPI of each rank and the ranks grouped by first name load on first use and stay (16 MB each at full scale).
 */
export class ProviderDirectory {
  /** Providers in the directory (ranks are 0 .. size - 1). */
  readonly size: number;
  private readonly posting: Database.Statement;
  private readonly array: Database.Statement;
  private readonly lastAtOrAfter: Database.Statement;
  private readonly firstAtOrAfter: Database.Statement;
  private readonly firstRuns: Database.Statement;
  private readonly firstNameCount: number;
  private readonly cache = new Map<string, RankSet | null>();
  private cachedBytes = 0;
  private readonly arrays = new Map<string, Uint32Array>();
  private readonly maxBytes: number;
  private readonly maxMergedRuns: number;
  private readonly maxSortedFirstNames: number;
  private readonly nameFilterVisits: 'name' | 'set' | 'cheaper';

  constructor(db: Database.Database, options: DirectoryOptions = {}) {
    this.maxBytes = options.postingsBytes ?? DEFAULT_POSTINGS_BYTES;
    this.maxMergedRuns = options.maxMergedRuns ?? 8;
    this.maxSortedFirstNames = options.maxSortedFirstNames ?? 32_768;
    this.nameFilterVisits = options.nameFilterVisits ?? 'cheaper';
    const size = db.prepare('SELECT length FROM provider_arrays WHERE name = ?').pluck().get(PROVIDER_ARRAYS.npiByRank) as
      | number
      | undefined;
    if (size === undefined) throw new Error(`${db.name} has no provider directory (table provider_arrays); rebuild it with \`hcas build\``);
    this.size = size;
    this.posting = db.prepare('SELECT ranks FROM provider_postings WHERE kind = ? AND key = ?').pluck();
    this.array = db.prepare('SELECT data FROM provider_arrays WHERE name = ?').pluck();
    this.lastAtOrAfter = db.prepare('SELECT first_rank FROM provider_last_names WHERE name_key >= ? ORDER BY name_key LIMIT 1').pluck();
    this.firstAtOrAfter = db
      .prepare('SELECT first_id, start FROM provider_first_names WHERE name_key >= ? ORDER BY name_key LIMIT 1')
      .raw();
    this.firstRuns = db
      .prepare('SELECT start, count FROM provider_first_names WHERE first_id >= ? AND first_id < ? ORDER BY first_id')
      .raw();
    this.firstNameCount = db.prepare('SELECT COUNT(*) FROM provider_first_names').pluck().get() as number;
  }

  /** The exact count of providers matching a filter, and the ranks of one window of them, in directory order. */
  search(filter: ProviderFilter, offset: number, limit: number): { count: number; ranks: Uint32Array } {
    const sets: RankSet[] = [];
    const keys = this.listKeys(filter);
    for (const [kind, key] of keys) {
      const set = this.postingList(kind, key);
      if (!set) return { count: 0, ranks: new Uint32Array(0) };
      sets.push(set);
    }
    const name = filter.name === undefined ? undefined : this.nameMatch(searchKey(filter.name));
    if (sets.length === 0 && !name) {
      const count = this.size;
      const from = Math.min(offset, count);
      return { count, ranks: Uint32Array.from({ length: Math.min(limit, count - from) }, (_, i) => from + i) };
    }
    if (sets.length === 0) return this.searchName(name!, offset, limit);
    // One list keeps its bitmap, which the name filter can use; an intersection is kept for the next pages.
    const matched = sets.length === 1 ? sets[0] : this.cached(`and\u0000${keys.join('\u0000')}`, () => ({ ranks: intersectAll(sets) }))!;
    const ranks = name ? this.filterByName(matched, name) : matched.ranks;
    return { count: ranks.length, ranks: ranks.subarray(offset, offset + limit) };
  }

  /**
   * `search` in either direction of directory order: descending is the same matches read from the end (the
   * count first, then the window counted back from it), so a page costs what the ascending page would.
   */
  searchInOrder(filter: ProviderFilter, offset: number, limit: number, descending: boolean): { count: number; ranks: Uint32Array } {
    if (!descending) return this.search(filter, offset, limit);
    const { count } = this.search(filter, 0, 0);
    const end = Math.max(0, count - offset);
    const from = Math.max(0, end - limit);
    return {
      count,
      ranks: this.search(filter, from, end - from)
        .ranks.slice()
        .reverse(),
    };
  }

  /**
   * The providers matching a filter whose practice ZIP code lies in one of the places near a ZIP code (the
   * posting lists of those ZCTAs, nearest place first), with the miles of each: the exact count, and one window
   * in the order asked: by distance (nearest or farthest place first, places of one distance by ZIP code, each
   * place's providers in directory order) or directory order (ascending or descending). Costs time in
   * proportion to the providers of the places, never to all providers; a page by distance with no other filter
   * only counts the places' lists and reads the page.
   */
  searchNear(
    filter: ProviderFilter,
    near: NearPlaces,
    offset: number,
    limit: number,
    order: 'distance' | '-distance' | 'name' | '-name',
  ): { count: number; ranks: Uint32Array; miles: Float64Array } {
    // Every provider of the places, nearest place first, ranks ascending within each place.
    const { lists, listMiles } = this.placesLists(near);
    let total = lists.reduce((sum, list) => sum + list.length, 0);
    const sets: RankSet[] = [];
    for (const [kind, key] of this.listKeys(filter)) {
      const set = this.postingList(kind, key);
      if (!set) return { count: 0, ranks: new Uint32Array(0), miles: new Float64Array(0) };
      sets.push(set);
    }
    const name = filter.name === undefined ? undefined : this.nameMatch(searchKey(filter.name));
    // By distance without a name, each provider of the places is tested against the other filters where it
    // stands (a bit, or a search of a short list), and no set of the places' providers is made or sorted: a
    // million ranks within 100 miles of Manhattan in a synthetic nation.
    let matched: Uint32Array | undefined;
    let keep: Uint32Array | undefined;
    if ((order === 'distance' || order === '-distance') && !name) {
      if (sets.length > 0) {
        keep = new Uint32Array((this.size + 31) >>> 5);
        let n = 0;
        for (const list of lists) {
          for (let i = 0; i < list.length; i++) {
            const r = list[i];
            if (sets.every((set) => (set.bits ? (set.bits[r >>> 5] & (1 << (r & 31))) !== 0 : set.ranks[lowerBound(set.ranks, r)] === r))) {
              keep[r >>> 5] |= 1 << (r & 31);
              n++;
            }
          }
        }
        total = n;
      }
    } else {
      // The same providers in rank order (each is in one place), to intersect with the other filters.
      const all = new Uint32Array(total);
      for (let l = 0, n = 0; l < lists.length; n += lists[l].length, l++) all.set(lists[l], n);
      const nearSet = withBitmap(all.sort(), this.size);
      const matchedSet: RankSet = sets.length === 0 ? nearSet : withBitmap(intersectAll([nearSet, ...sets]), this.size);
      matched = name ? this.filterByName(matchedSet, name) : matchedSet.ranks;
    }
    const count = matched ? matched.length : total;
    if (order === 'distance' || order === '-distance') {
      if (matched) keep = bitmapOf(matched, this.size);
      return { count, ...byDistance(lists, listMiles, keep, count, offset, limit, order) };
    }
    return { count, ...byName(lists, listMiles, matched!, count, offset, limit, order) };
  }

  /** The posting lists of the places near a ZIP code that have providers, nearest place first, with their miles. */
  private placesLists(near: NearPlaces): { lists: Uint32Array[]; listMiles: number[] } {
    const lists: Uint32Array[] = [];
    const listMiles: number[] = [];
    for (let i = 0; i < near.zipNumbers.length; i++) {
      const list = this.postingList('zcta', String(near.zipNumbers[i]).padStart(5, '0'));
      if (!list) continue;
      lists.push(list.ranks);
      listMiles.push(near.miles[i]);
    }
    return { lists, listMiles };
  }

  /** The first `limit` ranks whose first or last name starts with a search key (for autocomplete). */
  firstByName(key: string, limit: number): Uint32Array {
    return this.searchName(this.nameMatch(key), 0, limit).ranks;
  }

  /** The first `limit` ranks whose first name starts with `firstKey` and last name with `lastKey`. */
  firstByFullName(firstKey: string, lastKey: string, limit: number): Uint32Array {
    const first = this.nameMatch(firstKey);
    const last = this.nameMatch(lastKey);
    if (first.orderTo === first.orderFrom || last.lastTo === last.lastFrom) return new Uint32Array(0);
    // The first name's ranks that fall in the last name's interval.
    const ranks = this.firstOrder().subarray(first.orderFrom, first.orderTo);
    const out: number[] = [];
    for (let i = 0; i < ranks.length; i++) if (ranks[i] >= last.lastFrom && ranks[i] < last.lastTo) out.push(ranks[i]);
    return Uint32Array.from(out).sort().subarray(0, limit);
  }

  /** The NPI of each rank, as 10-digit text. */
  npis(ranks: Uint32Array): string[] {
    const npiByRank = this.rankArray(PROVIDER_ARRAYS.npiByRank);
    return Array.from(ranks, (r) => String(npiByRank[r]).padStart(10, '0'));
  }

  /** The ranks of a name-prefix key (an empty key matches nothing). */
  nameMatch(key: string): NameMatch {
    if (key === '') return { lastFrom: 0, lastTo: 0, firstFrom: 0, firstTo: 0, orderFrom: 0, orderTo: 0 };
    const lastAt = (k: string) => (this.lastAtOrAfter.get(k) as number | undefined) ?? this.size;
    const firstAt = (k: string) => (this.firstAtOrAfter.get(k) as [number, number] | undefined) ?? [this.firstNameCount, this.size];
    const [firstFrom, orderFrom] = firstAt(key);
    const [firstTo, orderTo] = firstAt(key + PREFIX_END);
    return { lastFrom: lastAt(key), lastTo: lastAt(key + PREFIX_END), firstFrom, firstTo, orderFrom, orderTo };
  }

  private listKeys(filter: ProviderFilter): Array<[PostingKind, string]> {
    const keys: Array<[PostingKind, string]> = [];
    if (filter.specialty !== undefined) keys.push(['specialty', specialtyKey(filter.specialty)]);
    if (filter.state !== undefined) keys.push(['state', filter.state.toUpperCase()]);
    if (filter.city !== undefined) keys.push(['city', searchKey(filter.city)]);
    if (filter.zip !== undefined) keys.push(['zip', filter.zip]);
    return keys;
  }

  /** Name alone: count by inclusion-exclusion; the window from the two sources merged in rank order. */
  private searchName(match: NameMatch, offset: number, limit: number): { count: number; ranks: Uint32Array } {
    const firstRanks = this.firstOrder().subarray(match.orderFrom, match.orderTo);
    let both = 0;
    for (let i = 0; i < firstRanks.length; i++) if (firstRanks[i] >= match.lastFrom && firstRanks[i] < match.lastTo) both++;
    const count = firstRanks.length + (match.lastTo - match.lastFrom) - both;
    const need = Math.min(count, offset + limit);
    if (need <= offset) return { count, ranks: new Uint32Array(0) };
    let ranks: Uint32Array;
    if (firstRanks.length === 0) {
      ranks = Uint32Array.from({ length: need }, (_, i) => match.lastFrom + i);
    } else if (match.firstTo - match.firstFrom <= this.maxMergedRuns || firstRanks.length <= this.maxSortedFirstNames) {
      ranks = unionWithInterval(this.sortedFirstRanks(match, need), match.lastFrom, match.lastTo, need);
    } else {
      // A dense first-name match: walk the ranks from the start, testing a bitmap of it, until `need` match.
      const bits = this.firstNameBits(match);
      const out = new Uint32Array(need);
      let n = 0;
      for (let r = 0; r < this.size && n < need; r++) {
        if ((r >= match.lastFrom && r < match.lastTo) || bits[r >>> 5] & (1 << (r & 31))) out[n++] = r;
      }
      ranks = out.subarray(0, n);
    }
    return { count, ranks: ranks.subarray(offset, need) };
  }

  /** The first `need` ranks (ascending) with a first name in the match: runs merged, or gathered and sorted. */
  private sortedFirstRanks(match: NameMatch, need: number): Uint32Array {
    const order = this.firstOrder();
    if (match.firstTo - match.firstFrom > this.maxMergedRuns) return order.slice(match.orderFrom, match.orderTo).sort().subarray(0, need);
    const runs = (this.firstRuns.all(match.firstFrom, match.firstTo) as Array<[number, number]>).map(([start, count]) =>
      order.subarray(start, start + count),
    );
    return mergeRuns(runs, need);
  }

  /**
   * The ranks of a set whose first or last name matches. The last-name part is a slice of the set (its
   * interval); the first-name part is found from whichever side is cheaper: the name's ranks tested against
   * the set, or the set's ranks tested against a bitmap of the name's ranks.
   */
  private filterByName(set: RankSet, match: NameMatch): Uint32Array {
    const ranks = set.ranks;
    const lastPart = ranks.subarray(lowerBound(ranks, match.lastFrom), lowerBound(ranks, match.lastTo));
    const firstRanks = this.firstOrder().subarray(match.orderFrom, match.orderTo);
    if (firstRanks.length === 0) return lastPart;
    const runs = match.firstTo - match.firstFrom;
    const expected = (firstRanks.length * ranks.length) / this.size;
    const visitName =
      firstRanks.length * (set.bits ? 1 : Math.log2(ranks.length + 2)) + (runs > 1 ? expected * Math.log2(expected + 2) : 0);
    const visitSet = ranks.length + (this.cache.has(firstNameBitsKey(match)) ? 0 : firstRanks.length);
    if (this.nameFilterVisits === 'name' || (this.nameFilterVisits === 'cheaper' && visitName < visitSet)) {
      const out: number[] = [];
      const bits = set.bits;
      for (let i = 0; i < firstRanks.length; i++) {
        const r = firstRanks[i];
        if (r >= match.lastFrom && r < match.lastTo) continue;
        const inSet = bits ? (bits[r >>> 5] & (1 << (r & 31))) !== 0 : ranks[lowerBound(ranks, r)] === r;
        if (inSet) out.push(r);
      }
      const firstPart = Uint32Array.from(out);
      if (runs > 1) firstPart.sort();
      return mergeSorted(lastPart, firstPart);
    }
    const bits = this.firstNameBits(match);
    const out = new Uint32Array(ranks.length);
    let n = 0;
    for (let i = 0; i < ranks.length; i++) {
      const r = ranks[i];
      if ((r >= match.lastFrom && r < match.lastTo) || bits[r >>> 5] & (1 << (r & 31))) out[n++] = r;
    }
    return out.subarray(0, n);
  }

  /** A posting list from the cache or the database; null (also cached) when no provider has the value. */
  private postingList(kind: PostingKind, key: string): RankSet | null {
    return this.cached(`${kind}\u0000${key}`, () => {
      const data = key === '' ? undefined : (this.posting.get(kind, key) as Buffer | undefined);
      return data ? withBitmap(decodeUint32(data), this.size) : null;
    });
  }

  /** A bitmap of the ranks whose first name is in the match's id range, kept like a posting list. */
  private firstNameBits(match: NameMatch): Uint32Array {
    const set = this.cached(firstNameBitsKey(match), () => {
      const ranks = this.firstOrder().subarray(match.orderFrom, match.orderTo);
      return { ranks: new Uint32Array(0), bits: bitmapOf(ranks, this.size) };
    });
    return set!.bits!;
  }

  /** An entry of the cache of lists and bitmaps (least recently used dropped first beyond the byte budget). */
  private cached(id: string, load: () => RankSet | null): RankSet | null {
    const hit = this.cache.get(id);
    if (hit !== undefined) {
      this.cache.delete(id);
      this.cache.set(id, hit);
      return hit;
    }
    const set = load();
    const bytes = cacheBytes(set);
    if (bytes <= this.maxBytes) {
      this.cache.set(id, set);
      this.cachedBytes += bytes;
      for (const [oldest, entry] of this.cache) {
        if (this.cachedBytes <= this.maxBytes) break;
        this.cache.delete(oldest);
        this.cachedBytes -= cacheBytes(entry);
      }
    }
    return set;
  }

  private firstOrder(): Uint32Array {
    return this.rankArray(PROVIDER_ARRAYS.firstOrder);
  }

  private rankArray(name: string): Uint32Array {
    let array = this.arrays.get(name);
    if (!array) {
      const data = this.array.get(name) as Buffer | undefined;
      if (!data) throw new Error(`the provider directory has no ${name} array; rebuild the database with \`hcas build\``);
      array = decodeUint32(data);
      this.arrays.set(name, array);
    }
    return array;
  }
}

function cacheBytes(set: RankSet | null): number {
  return set ? set.ranks.byteLength + (set.bits?.byteLength ?? 0) : 64;
}

function firstNameBitsKey(match: NameMatch): string {
  return `first\u0000${match.firstFrom}\u0000${match.firstTo}`;
}

/**
 * One window by distance: the places nearest (or farthest) first, each place's providers in directory order,
 * keeping the matches (`keep`, a bitmap of ranks; none: every provider of the places).
 */
function byDistance(
  lists: readonly Uint32Array[],
  listMiles: readonly number[],
  keep: Uint32Array | undefined,
  count: number,
  offset: number,
  limit: number,
  order: 'distance' | '-distance',
): { ranks: Uint32Array; miles: Float64Array } {
  const ranks = new Uint32Array(Math.min(limit, Math.max(0, count - offset)));
  const miles = new Float64Array(ranks.length);
  // Farthest first keeps places of one distance by ZIP code, as every list's ties go.
  const places = Array.from(lists.keys());
  if (order === '-distance') places.sort((a, b) => listMiles[b] - listMiles[a] || a - b);
  let seen = 0;
  let n = 0;
  for (let p = 0; p < places.length && n < ranks.length; p++) {
    const place = places[p];
    const list = lists[place];
    if (!keep && seen + list.length <= offset) {
      seen += list.length;
      continue;
    }
    for (let i = 0; i < list.length && n < ranks.length; i++) {
      const r = list[i];
      if (keep && !(keep[r >>> 5] & (1 << (r & 31)))) continue;
      if (seen++ < offset) continue;
      ranks[n] = r;
      miles[n++] = listMiles[place];
    }
  }
  return { ranks, miles };
}

/** One window of the matches in directory order (ascending or descending), each with its place's miles. */
function byName(
  lists: readonly Uint32Array[],
  listMiles: readonly number[],
  matched: Uint32Array,
  count: number,
  offset: number,
  limit: number,
  order: 'name' | '-name',
): { ranks: Uint32Array; miles: Float64Array } {
  const from = order === 'name' ? Math.min(offset, count) : Math.max(0, count - offset - limit);
  const to = order === 'name' ? Math.min(count, offset + limit) : Math.max(0, count - offset);
  const ranks = matched.slice(from, to);
  if (order === '-name') ranks.reverse();
  // Each rank's miles: its place's, found in one pass over the places' lists.
  const at = new Map(Array.from(ranks, (r, i) => [r, i]));
  const miles = new Float64Array(ranks.length);
  for (let l = 0; l < lists.length && at.size > 0; l++) {
    for (let i = 0; i < lists[l].length; i++) {
      const window = at.get(lists[l][i]);
      if (window === undefined) continue;
      miles[window] = listMiles[l];
      at.delete(lists[l][i]);
    }
  }
  return { ranks, miles };
}
