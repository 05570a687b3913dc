import { BoundedMap, keyBytes } from './bounded-map.ts';
import type { Representation } from './response.ts';

/** Default memory budget of one build's response cache. */
export const DEFAULT_CACHE_BYTES = 64 * 1024 * 1024;
/**
 * What a cached response holds beyond its key and its bodies: the Representation, its header objects and
 * prepared answers, its ETag, the cache's slot. Measured on Node 20 (about 1,100 bytes for a small JSON
 * answer; test/attacks/memory.test.ts checks the budget against the heap), rounded up.
 */
export const ENTRY_OVERHEAD_BYTES = 1_280;
/** What an alias (another spelling of a cached request) holds beyond its key. */
export const ALIAS_OVERHEAD_BYTES = 96;

/** Another spelling of a request (`?state=ny`, `?page=1`) that names the entry of its canonical key. */
interface Alias {
  canonical: string;
}

/**
 * Cache of 200 responses for one build, keyed by the request as parsed (its canonical form: dispatcher.ts),
 * with aliases from the spellings clients used, so a request sent again as it was is answered before it is
 * parsed. The database of a build never changes, so an entry stays correct until the build is replaced and
 * its cache dropped with it. Bounded by the bytes its entries really hold, keys included, because a client
 * can invent any number of URLs.
 */
export class ResponseCache {
  private readonly map: BoundedMap<Representation | Alias>;

  constructor(maxBytes = DEFAULT_CACHE_BYTES) {
    this.map = new BoundedMap(
      maxBytes,
      (key, value) => keyBytes(key) + ('canonical' in value ? ALIAS_OVERHEAD_BYTES : ENTRY_OVERHEAD_BYTES + value.bytes),
    );
  }

  /** The cached response of a key, canonical or an alias of one. */
  get(key: string): Representation | undefined {
    const found = this.map.get(key);
    if (found === undefined || !('canonical' in found)) return found;
    const entry = this.map.get(found.canonical);
    // An alias whose entry was evicted (or is itself an alias, which never happens) answers nothing.
    if (entry === undefined || 'canonical' in entry) {
      this.map.delete(key);
      return undefined;
    }
    return entry;
  }

  /** Stores a response under its canonical key, evicting others beyond the budget. A body over the budget is not kept. */
  set(key: string, entry: Representation): void {
    if (!this.map.set(key, entry)) return;
    // Compressed variants are added later; they count only while the entry is still cached.
    entry.onGrow = (bytes) => this.map.grow(key, entry, bytes);
  }

  /** Makes `spelling` answer what `canonical` answers. */
  alias(spelling: string, canonical: string): void {
    if (spelling !== canonical) this.map.set(spelling, { canonical });
  }

  /** Entries (aliases included) and the bytes they hold, by the budget's reckoning. */
  get size(): { entries: number; bytes: number } {
    return this.map.size;
  }
}
