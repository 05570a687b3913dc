import type Database from 'better-sqlite3';
import { PREFIX_END, searchKey, specialtyKey } from '../../pipeline/emit/search-key.ts';
import { intersectAll, lowerBound, mergeRuns, unionWithInterval, withBitmap, type RankSet } from './rank-sets.ts';

/** Filters of the providers list, as sent (the directory normalises them); absent fields do not filter. */
export interface ProviderFilter {
  specialty?: string;
  state?: string;
  city?: string;
  zip?: string;
  name?: string;
}

/** Ranks matching a name prefix: last names are one interval of ranks, first names a range of first-name ids. */
export interface NameMatch {
  /** Ranks [lastFrom, lastTo) have a last name starting with the prefix. */
  lastFrom: number;
  lastTo: number;
  /** First-name ids [firstFrom, firstTo) start with the prefix; their ranks are first_order[orderFrom..orderTo). */
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
}

/**
 * The provider directory index of a build (docs/schema.md, "Provider directory"). A search intersects the
 * posting lists of its filters in memory, so its exact count and any page cost time in proportion to the
 * lists involved (at most a few hundred thousand ranks), never to the four million providers.
 * Posting lists stay in memory between requests up to a byte budget (least recently used go first);
 * the rank arrays (NPI and first-name id per rank) load on first use and stay.
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
  private arrays = new Map<string, Uint32Array>();
  private readonly maxBytes: number;
  private readonly maxMergedRuns: number;
  private readonly maxSortedFirstNames: number;

  constructor(db: Database.Database, options: DirectoryOptions = {}) {
    this.maxBytes = options.postingsBytes ?? DEFAULT_POSTINGS_BYTES;
    this.maxMergedRuns = options.maxMergedRuns ?? 8;
    this.maxSortedFirstNames = options.maxSortedFirstNames ?? 32_768;
    const size = db.prepare("SELECT length FROM provider_arrays WHERE name = 'npi_by_rank'").pluck().get() as number | undefined;
    if (size === undefined) throw new Error(`${db.name} has no provider directory (table provider_arrays); rebuild it with \`hcas build\``);
    this.size = size;
    this.posting = db.prepare('SELECT ranks FROM provider_postings WHERE kind = ? AND key = ?').pluck();
    this.array = db.prepare('SELECT data FROM provider_arrays WHERE name = ?').pluck();
    this.lastAtOrAfter = db.prepare('SELECT first_rank FROM provider_last_names WHERE name_key >= ? ORDER BY name_key LIMIT 1').pluck();
    this.firstAtOrAfter = db.prepare('SELECT first_id, start FROM provider_first_names WHERE name_key >= ? ORDER BY name_key LIMIT 1').raw();
    this.firstRuns = db.prepare('SELECT start, count FROM provider_first_names WHERE first_id >= ? AND first_id < ? ORDER BY first_id').raw();
    this.firstNameCount = db.prepare('SELECT COUNT(*) FROM provider_first_names').pluck().get() as number;
  }

  /** The exact count of providers matching a filter, and the ranks of one window of them, in directory order. */
  search(filter: ProviderFilter, offset: number, limit: number): { count: number; ranks: Uint32Array } {
    const sets: RankSet[] = [];
    for (const [kind, key] of this.listKeys(filter)) {
      const set = this.postingList(kind, key);
      if (!set) return { count: 0, ranks: new Uint32Array(0) };
      sets.push(set);
    }
    const nameKey = filter.name === undefined ? undefined : searchKey(filter.name);
    const name = nameKey === undefined ? undefined : this.nameMatch(nameKey);
    if (sets.length === 0 && !name) {
      const count = this.size;
      const from = Math.min(offset, count);
      return { count, ranks: Uint32Array.from({ length: Math.min(limit, count - from) }, (_, i) => from + i) };
    }
    if (sets.length === 0) return this.searchName(name!, offset, limit);
    let ranks = intersectAll(sets);
    if (name) ranks = this.filterByName(ranks, name);
    return { count: ranks.length, ranks: ranks.subarray(offset, offset + limit) };
  }

  /** The first `limit` ranks whose first or last name starts with a search key (for autocomplete). */
  firstByName(key: string, limit: number): Uint32Array {
    return this.searchName(this.nameMatch(key), 0, limit).ranks;
  }

  /**
   * The first `limit` ranks whose first name starts with `firstKey` and last name with `lastKey`: a scan of the
   * last-name interval, which is contiguous.
   */
  firstByFullName(firstKey: string, lastKey: string, limit: number): Uint32Array {
    const match = this.nameMatch(firstKey);
    const last = this.nameMatch(lastKey);
    if (match.firstFrom === match.firstTo) return new Uint32Array(0);
    const firstIds = this.rankArray('first_id_by_rank');
    const out: number[] = [];
    for (let r = last.lastFrom; r < last.lastTo && out.length < limit; r++) {
      if (firstIds[r] >= match.firstFrom && firstIds[r] < match.firstTo) out.push(r);
    }
    return Uint32Array.from(out);
  }

  /** The NPI of each rank, as 10-digit text. */
  npis(ranks: Uint32Array): string[] {
    const npiByRank = this.rankArray('npi_by_rank');
    return Array.from(ranks, (r) => String(npiByRank[r]).padStart(10, '0'));
  }

  /** The rank intervals of a name-prefix key (an empty key matches nothing). */
  nameMatch(key: string): NameMatch {
    if (key === '') return { lastFrom: 0, lastTo: 0, firstFrom: 0, firstTo: 0, orderFrom: 0, orderTo: 0 };
    const lastAt = (k: string) => (this.lastAtOrAfter.get(k) as number | undefined) ?? this.size;
    const firstAt = (k: string) => (this.firstAtOrAfter.get(k) as [number, number] | undefined) ?? [this.firstNameCount, this.size];
    const [firstFrom, orderFrom] = firstAt(key);
    const [firstTo, orderTo] = firstAt(key + PREFIX_END);
    return { lastFrom: lastAt(key), lastTo: lastAt(key + PREFIX_END), firstFrom, firstTo, orderFrom, orderTo };
  }

  private listKeys(filter: ProviderFilter): Array<[string, string]> {
    const keys: Array<[string, string]> = [];
    if (filter.specialty !== undefined) keys.push(['specialty', specialtyKey(filter.specialty)]);
    if (filter.state !== undefined) keys.push(['state', filter.state.toUpperCase()]);
    if (filter.city !== undefined) keys.push(['city', searchKey(filter.city)]);
    if (filter.zip !== undefined) keys.push(['zip', filter.zip]);
    return keys;
  }

  /** Name alone: count by inclusion-exclusion; the window from the two sources merged in rank order. */
  private searchName(match: NameMatch, offset: number, limit: number): { count: number; ranks: Uint32Array } {
    const lastCount = match.lastTo - match.lastFrom;
    const firstCount = match.orderTo - match.orderFrom;
    let both = 0;
    if (firstCount > 0 && lastCount > 0) {
      const firstIds = this.rankArray('first_id_by_rank');
      for (let r = match.lastFrom; r < match.lastTo; r++) if (firstIds[r] >= match.firstFrom && firstIds[r] < match.firstTo) both++;
    }
    const count = firstCount + lastCount - both;
    const need = Math.min(count, offset + limit);
    if (need <= offset) return { count, ranks: new Uint32Array(0) };
    let ranks: Uint32Array;
    if (firstCount === 0) {
      ranks = Uint32Array.from({ length: need }, (_, i) => match.lastFrom + i);
    } else {
      const runs = match.firstTo - match.firstFrom;
      if (runs <= this.maxMergedRuns || firstCount <= this.maxSortedFirstNames) {
        ranks = unionWithInterval(this.firstNameRanks(match, need), match.lastFrom, match.lastTo, need);
      } else {
        ranks = this.scanName(match, need);
      }
    }
    return { count, ranks: ranks.subarray(offset, need) };
  }

  /** The first `need` ranks (sorted) whose first name is in the match: runs merged, or gathered and sorted. */
  private firstNameRanks(match: NameMatch, need: number): Uint32Array {
    const order = this.rankArray('first_order');
    if (match.firstTo - match.firstFrom > this.maxMergedRuns) return order.slice(match.orderFrom, match.orderTo).sort().subarray(0, need);
    const runs = (this.firstRuns.all(match.firstFrom, match.firstTo) as Array<[number, number]>).map(([start, count]) => order.subarray(start, start + count));
    return mergeRuns(runs, need);
  }

  /** A dense first-name match: walk the ranks from the start until `need` match. */
  private scanName(match: NameMatch, need: number): Uint32Array {
    const firstIds = this.rankArray('first_id_by_rank');
    const out = new Uint32Array(need);
    let n = 0;
    for (let r = 0; r < this.size && n < need; r++) {
      if ((r >= match.lastFrom && r < match.lastTo) || (firstIds[r] >= match.firstFrom && firstIds[r] < match.firstTo)) out[n++] = r;
    }
    return out.subarray(0, n);
  }

  /** The ranks of a list whose first or last name matches. */
  private filterByName(ranks: Uint32Array, match: NameMatch): Uint32Array {
    if (match.orderTo === match.orderFrom) return ranks.subarray(lowerBound(ranks, match.lastFrom), lowerBound(ranks, match.lastTo));
    const firstIds = this.rankArray('first_id_by_rank');
    const out = new Uint32Array(ranks.length);
    let n = 0;
    for (let i = 0; i < ranks.length; i++) {
      const r = ranks[i];
      if ((r >= match.lastFrom && r < match.lastTo) || (firstIds[r] >= match.firstFrom && firstIds[r] < match.firstTo)) out[n++] = r;
    }
    return out.subarray(0, n);
  }

  /** A posting list from the cache or the database; null (also cached) when no provider has the value. */
  private postingList(kind: string, key: string): RankSet | null {
    const id = `${kind}\u0000${key}`;
    const cached = this.cache.get(id);
    if (cached !== undefined) {
      this.cache.delete(id);
      this.cache.set(id, cached);
      return cached;
    }
    const data = key === '' ? undefined : (this.posting.get(kind, key) as Buffer | undefined);
    const set = data ? withBitmap(toUint32(data), this.size) : null;
    const bytes = set ? set.ranks.byteLength + (set.bits?.byteLength ?? 0) : 64;
    if (bytes <= this.maxBytes) {
      this.cache.set(id, set);
      this.cachedBytes += bytes;
      for (const [oldest, entry] of this.cache) {
        if (this.cachedBytes <= this.maxBytes) break;
        this.cache.delete(oldest);
        this.cachedBytes -= entry ? entry.ranks.byteLength + (entry.bits?.byteLength ?? 0) : 64;
      }
    }
    return set;
  }

  private rankArray(name: string): Uint32Array {
    let array = this.arrays.get(name);
    if (!array) {
      const data = this.array.get(name) as Buffer | undefined;
      if (!data) throw new Error(`the provider directory has no ${name} array; rebuild the database with \`hcas build\``);
      array = toUint32(data);
      this.arrays.set(name, array);
    }
    return array;
  }
}

/** A little-endian uint32 BLOB as an array (copied when the bytes are not 4-aligned). */
function toUint32(data: Buffer): Uint32Array {
  if (data.byteOffset % 4 === 0) return new Uint32Array(data.buffer, data.byteOffset, data.byteLength >>> 2);
  const copy = new Uint32Array(data.byteLength >>> 2);
  new Uint8Array(copy.buffer).set(data.subarray(0, copy.byteLength));
  return copy;
}
