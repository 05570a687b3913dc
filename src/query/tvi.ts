import { TVI_TIERS } from '../../core/tvi-tiers.ts';
import type Database from 'better-sqlite3';
import { bound } from './database.ts';
import type { TviListEntry, TviMetroRank, TviRecord, TviZipRank } from '../answers/tvi.ts';
import type { SortOrder } from './list-order.ts';
import { ZipList } from './zip-list.ts';

/** Filters of the most-vulnerable list; absent fields do not filter. */
export interface TviFilter {
  state?: string;
  tier?: string;
}

/**
 * The keys the most-vulnerable list sorts by, each a field of its entries, ties by ZIP code; its own order is
 * `-tvi_score`, most vulnerable first.
 */
export const TVI_SORT_KEYS = ['tvi_score', 'zero_vehicle_pct', 'nearest_hospital_miles', 'zip_code'] as const;

/** The most-vulnerable list's own order. */
export const TVI_OWN_ORDER: SortOrder = { key: 'tvi_score', descending: true };

const ORDER = 'ORDER BY t.tvi_score DESC, t.zip_code';

/**
 * The TVI endpoints. The most-vulnerable list is an in-memory list of the ranked ZIPs (zip-list.ts): a tier is
 * its score range (core/tvi-tiers.ts), a state its positions, and every sort an order made once, so a count
 * and a page of any filter and sort cost at most a pass over the ranked ZIPs (read on first use); a page's rows
 * are then read by their ZIP codes. The rankings read the `(ranked, tvi_score DESC, zip_code)` index.
 */
export class TviQueries {
  private readonly one: Database.Statement;
  private readonly listRows: Database.Statement;
  private readonly entries: Database.Statement;
  private readonly metros: Database.Statement;
  private readonly zips: Database.Statement;
  private ranked: ZipList | undefined;

  constructor(db: Database.Database) {
    this.one = db.prepare(`SELECT zip_code, tvi_score, tvi_tier, vehicle_score, transit_score, facility_distance_score,
      population_vulnerability_score, health_outcome_score, health_outcome_basis, zero_vehicle_pct, nearest_hospital_miles, population
      FROM tvi WHERE zip_code = ?`);
    // ZIPs under the small-population threshold are never ranked (their shares rest on a few households).
    this.listRows = db
      .prepare('SELECT zip_code, state, tvi_score, zero_vehicle_pct, nearest_hospital_miles FROM tvi WHERE ranked = 1 ORDER BY zip_code')
      .raw();
    this.entries = db.prepare(`SELECT t.zip_code, z.city, z.state, t.tvi_score, t.tvi_tier, t.zero_vehicle_pct, t.nearest_hospital_miles
      FROM tvi t JOIN zips z ON z.zip_code = t.zip_code WHERE t.zip_code IN (SELECT value FROM json_each(${bound('TEXT')}))`);
    this.metros = db.prepare(`SELECT cbsa_code, cbsa_title, cbsa_type, tvi_score, tvi_tier, zip_count, population
      FROM tvi_metros ORDER BY tvi_score DESC, cbsa_code LIMIT ?`);
    this.zips = db.prepare(`SELECT t.zip_code, z.city, z.state, t.tvi_score, t.tvi_tier
      FROM tvi t JOIN zips z ON z.zip_code = t.zip_code WHERE t.ranked = 1 ${ORDER} LIMIT ?`);
  }

  /** The TVI of one ZIP, or undefined when the build has none for it. */
  byZip(zipCode: string): TviRecord | undefined {
    return this.one.get(zipCode) as TviRecord | undefined;
  }

  /** How many ranked ZIPs match the filter, and the entries of one window in the order of `sort` (ties by ZIP code). */
  list(filter: TviFilter, sort: SortOrder, offset: number, limit: number): { count: number; results: TviListEntry[] } {
    const list = this.rankedList();
    const { min, max } = tierRange(filter.tier);
    const places = filter.state === undefined ? [] : [list.byState.get(filter.state) ?? new Uint32Array(0)];
    const { count, positions } = list.select({ places, minScore: min, maxScore: max }, sort, offset, limit);
    if (positions.length === 0) return { count, results: [] };
    const zips = positions.map((p) => list.zipCode(p));
    const byZip = new Map((this.entries.all(JSON.stringify(zips)) as TviListEntry[]).map((entry) => [entry.zip_code, entry]));
    return { count, results: zips.map((zip) => byZip.get(zip)!) };
  }

  /** The `limit` most vulnerable metro and micro areas, ranked from 1. */
  topMetros(limit: number): TviMetroRank[] {
    return (this.metros.all(limit) as Array<Omit<TviMetroRank, 'rank'>>).map((row, i) => ({ rank: i + 1, ...row }));
  }

  /** The `limit` most vulnerable ZIPs, ranked from 1. */
  topZips(limit: number): TviZipRank[] {
    return (this.zips.all(limit) as Array<Omit<TviZipRank, 'rank'>>).map((row, i) => ({ rank: i + 1, ...row }));
  }

  private rankedList(): ZipList {
    if (this.ranked === undefined) {
      const rows = this.listRows.all() as Array<[string, string, number, number | null, number | null]>;
      const zipNumbers = Uint32Array.from(rows, (row) => Number(row[0]));
      const column = (at: number) => Float64Array.from(rows, (row) => (row[at] as number | null) ?? NaN);
      this.ranked = new ZipList(
        zipNumbers,
        Uint8Array.from(rows, (row) => row[2]),
        rows.map((row) => row[1]),
        { tvi_score: column(2), zero_vehicle_pct: column(3), nearest_hospital_miles: column(4), zip_code: Float64Array.from(zipNumbers) },
        'zip_code',
      );
    }
    return this.ranked;
  }
}

/** The score range of a tier (an unknown tier, which the parameter refuses, is an empty range). */
function tierRange(tier: string | undefined): { min?: number; max?: number } {
  if (tier === undefined) return {};
  const at = TVI_TIERS.findIndex((t) => t.tier === tier);
  if (at < 0) return { min: 1, max: 0 };
  return { min: TVI_TIERS[at].min, max: at === 0 ? 100 : TVI_TIERS[at - 1].min - 1 };
}
