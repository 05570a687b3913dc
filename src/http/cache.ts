import type { Representation } from './response.ts';

/** Default memory budget of one build's response cache. */
export const DEFAULT_CACHE_BYTES = 64 * 1024 * 1024;
/** Rough cost of an entry beyond its bodies: key, headers, map slot. */
const ENTRY_OVERHEAD_BYTES = 512;

interface Slot {
  entry: Representation;
  /** Set on every hit, cleared when eviction passes over the slot (CLOCK, "second chance"). */
  used: boolean;
}

/**
 * Cache of 200 responses by request URL (path and query as sent), for one build. The database of a build
 * never changes, so an entry stays correct until the build is replaced and its cache dropped with it.
 * Bounded by bytes, because a client can invent any number of URLs. Eviction approximates least recently
 * used with a second chance, so a hit only sets a flag instead of reordering the map.
 */
export class ResponseCache {
  private readonly slots = new Map<string, Slot>();
  private bytes = 0;
  /** Lookups answered from the cache and lookups that were not, since the cache was made (for the metrics). */
  hits = 0;
  misses = 0;

  private readonly maxBytes: number;

  constructor(maxBytes = DEFAULT_CACHE_BYTES) {
    this.maxBytes = maxBytes;
  }

  /** The cached response of a URL. */
  get(url: string): Representation | undefined {
    const slot = this.slots.get(url);
    if (slot === undefined) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    slot.used = true;
    return slot.entry;
  }

  /** Stores a response, evicting others beyond the budget. A body over the budget is not kept. */
  set(url: string, entry: Representation): void {
    if (entry.bytes + ENTRY_OVERHEAD_BYTES > this.maxBytes) return;
    const previous = this.slots.get(url);
    if (previous) this.remove(url, previous);
    const slot = { entry, used: false };
    this.slots.set(url, slot);
    this.bytes += entry.bytes + ENTRY_OVERHEAD_BYTES;
    // Compressed variants are added later; they count only while the entry is still cached.
    entry.onGrow = (bytes) => {
      if (this.slots.get(url) === slot) this.bytes += bytes;
    };
    this.evict(url);
  }

  /** Entries and the bytes they hold, by the budget's reckoning. */
  get size(): { entries: number; bytes: number } {
    return { entries: this.slots.size, bytes: this.bytes };
  }

  private evict(keep: string): void {
    while (this.bytes > this.maxBytes) {
      const [url, slot] = this.slots.entries().next().value as [string, Slot];
      if (url !== keep && !slot.used) {
        this.remove(url, slot);
      } else {
        // Used since the last pass (or just stored): move to the back without its flag.
        slot.used = false;
        this.slots.delete(url);
        this.slots.set(url, slot);
      }
    }
  }

  private remove(url: string, slot: Slot): void {
    this.slots.delete(url);
    this.bytes -= slot.entry.bytes + ENTRY_OVERHEAD_BYTES;
  }
}
