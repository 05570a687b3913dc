import { TVI_TIERS } from '../../core/tvi-tiers.ts';
import type Database from 'better-sqlite3';
import type { TviListEntry, TviMetroRank, TviRecord, TviZipRank } from '../answers/tvi.ts';

/** Filters of the most-vulnerable list; absent fields do not filter. */
export interface TviFilter {
  state?: string;
  tier?: string;
}

const ORDER = 'ORDER BY t.tvi_score DESC, t.zip_code';

/**
 * The SQL of the TVI endpoints, every statement prepared here. Lists are ordered most vulnerable first,
 * ties by ZIP code, which the `(ranked, tvi_score DESC, zip_code)` and `(ranked, state, tvi_score DESC,
 * zip_code)` indexes return. A tier is its score range (core/tvi-tiers.ts), so counts and pages read only
 * those indexes: a page's ZIP codes are found in the index (however deep), then its rows are joined.
 */
export class TviQueries {
  private readonly one: Database.Statement;
  private readonly counts = new Map<string, Database.Statement>();
  private readonly pages = new Map<string, Database.Statement>();
  private readonly metros: Database.Statement;
  private readonly zips: Database.Statement;

  constructor(db: Database.Database) {
    this.one = db.prepare(`SELECT zip_code, tvi_score, tvi_tier, vehicle_score, transit_score, facility_distance_score,
      population_vulnerability_score, health_outcome_score, health_outcome_basis, zero_vehicle_pct, nearest_hospital_miles, population
      FROM tvi WHERE zip_code = ?`);
    for (const filters of [[], ['state'], ['tier'], ['state', 'tier']]) {
      // ZIPs under the small-population threshold are never ranked (their shares rest on a few households).
      const where = [
        'ranked = 1',
        ...filters.map((name) => (name === 'state' ? 'state = @state' : 'tvi_score >= @minScore AND tvi_score <= @maxScore')),
      ].join(' AND ');
      this.counts.set(filters.join(), db.prepare(`SELECT count(*) AS n FROM tvi WHERE ${where}`));
      this.pages.set(
        filters.join(),
        db.prepare(`SELECT t.zip_code, z.city, z.state, t.tvi_score, t.tvi_tier, t.zero_vehicle_pct, t.nearest_hospital_miles
        FROM (SELECT zip_code FROM tvi WHERE ${where} ORDER BY tvi_score DESC, zip_code LIMIT @limit OFFSET @offset) p
        JOIN tvi t ON t.zip_code = p.zip_code JOIN zips z ON z.zip_code = t.zip_code ${ORDER}`),
      );
    }
    this.metros = db.prepare(`SELECT cbsa_code, cbsa_title, cbsa_type, tvi_score, tvi_tier, zip_count, population
      FROM tvi_metros ORDER BY tvi_score DESC, cbsa_code LIMIT ?`);
    this.zips = db.prepare(`SELECT t.zip_code, z.city, z.state, t.tvi_score, t.tvi_tier
      FROM tvi t JOIN zips z ON z.zip_code = t.zip_code WHERE t.ranked = 1 ${ORDER} LIMIT ?`);
  }

  /** The TVI of one ZIP, or undefined when the build has none for it. */
  byZip(zipCode: string): TviRecord | undefined {
    return this.one.get(zipCode) as TviRecord | undefined;
  }

  /** How many ZIPs match the filter. */
  count(filter: TviFilter): number {
    return (this.statement(this.counts, filter).get(args(filter)) as { n: number }).n;
  }

  /** One page of matching ZIPs, most vulnerable first. */
  page(filter: TviFilter, limit: number, offset: number): TviListEntry[] {
    return this.statement(this.pages, filter).all({ ...args(filter), limit, offset }) as TviListEntry[];
  }

  /** The `limit` most vulnerable metro and micro areas, ranked from 1. */
  topMetros(limit: number): TviMetroRank[] {
    return (this.metros.all(limit) as Array<Omit<TviMetroRank, 'rank'>>).map((row, i) => ({ rank: i + 1, ...row }));
  }

  /** The `limit` most vulnerable ZIPs, ranked from 1. */
  topZips(limit: number): TviZipRank[] {
    return (this.zips.all(limit) as Array<Omit<TviZipRank, 'rank'>>).map((row, i) => ({ rank: i + 1, ...row }));
  }

  private statement(statements: Map<string, Database.Statement>, filter: TviFilter): Database.Statement {
    const key = [filter.state === undefined ? '' : 'state', filter.tier === undefined ? '' : 'tier'].filter(Boolean).join();
    return statements.get(key)!;
  }
}

function args(filter: TviFilter): Record<string, string | number> {
  const values: Record<string, string | number> = {};
  if (filter.state !== undefined) values.state = filter.state;
  if (filter.tier !== undefined) {
    const at = TVI_TIERS.findIndex((t) => t.tier === filter.tier);
    // An unknown tier (the parameter refuses one) matches nothing: an empty range.
    values.minScore = at < 0 ? 1 : TVI_TIERS[at].min;
    values.maxScore = at < 0 ? 0 : at === 0 ? 100 : TVI_TIERS[at - 1].min - 1;
  }
  return values;
}
