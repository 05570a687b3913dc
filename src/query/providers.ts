import type Database from 'better-sqlite3';
import { ProviderDirectory, type ProviderFilter } from './provider-directory.ts';
import type { ProviderProfile, ProviderSummary } from '../answers/providers.ts';
import type { SortOrder } from './list-order.ts';
import { roundMiles, type NearPlaces } from './nearby.ts';
import { DISTANCE_KEY } from './zip-list.ts';

/**
 * The keys the providers list sorts by: `last_name` is directory order (last name, first name, NPI, on search
 * keys), `distance_miles` the distance of the practice from `near` (ties by directory order). Both are orders
 * the directory holds (ranks, and the places' posting lists nearest first), so no sort runs per request.
 */
export const PROVIDER_SORT_KEYS = ['last_name', DISTANCE_KEY] as const;

/** The providers list's own order. */
export const PROVIDER_OWN_ORDER: SortOrder = { key: 'last_name', descending: false };

/** A provider as an autocomplete label needs it. */
export interface ProviderLabel {
  npi: string;
  first_name: string;
  last_name: string;
  credential: string;
  primary_specialty: string;
  city: string;
  state: string;
}

const SUMMARY_COLUMNS = 'npi, first_name, last_name, credential, gender, primary_specialty, telehealth, city, state, zip_code';

/**
 * The providers endpoints: the directory index finds and counts, the providers table (by its NPI index)
 * supplies the records of one page.
 */
export class ProviderQueries {
  private directoryIndex: ProviderDirectory | undefined;
  private readonly summary: Database.Statement;
  private readonly profileRow: Database.Statement;
  private readonly labelRow: Database.Statement;

  private readonly db: Database.Database;

  constructor(db: Database.Database) {
    this.db = db;
    this.summary = db.prepare(`SELECT ${SUMMARY_COLUMNS} FROM providers WHERE npi = ?`);
    this.profileRow = db.prepare(
      `SELECT ${SUMMARY_COLUMNS}, medical_school, residency, graduation_year, facility_names FROM providers WHERE npi = ?`,
    );
    this.labelRow = db.prepare(
      'SELECT npi, first_name, last_name, credential, primary_specialty, city, state FROM providers WHERE npi = ?',
    );
  }

  /** The directory index, opened on first use. */
  get directory(): ProviderDirectory {
    this.directoryIndex ??= new ProviderDirectory(this.db);
    return this.directoryIndex;
  }

  /**
   * The count of matching providers and the summaries of one window, in the order of `sort` (default:
   * directory order, last name, first name, NPI); with `near`, only those practising in its places, each with
   * its `distance_miles`. A sort by distance needs `near` (the API refuses it without).
   */
  list(
    filter: ProviderFilter,
    offset: number,
    limit: number,
    sort: SortOrder = PROVIDER_OWN_ORDER,
    near?: NearPlaces,
  ): { count: number; results: ProviderSummary[] } {
    if (near === undefined) {
      if (sort.key === DISTANCE_KEY) throw new Error('a providers list sorts by distance only near a place');
      const { count, ranks } = this.directory.searchInOrder(filter, offset, limit, sort.descending);
      return { count, results: this.summaries(ranks) };
    }
    const order = `${sort.descending ? '-' : ''}${sort.key === DISTANCE_KEY ? 'distance' : 'name'}` as const;
    const { count, ranks, miles } = this.directory.searchNear(filter, near, offset, limit, order);
    const results = this.summaries(ranks).map((summary, i) => ({ ...summary, distance_miles: roundMiles(miles[i]) }));
    return { count, results };
  }

  private summaries(ranks: Uint32Array): ProviderSummary[] {
    return this.directory.npis(ranks).map((npi) => summaryOf(this.summary.get(npi) as SummaryRow));
  }

  /** How many providers match, without fetching any record. */
  count(filter: ProviderFilter): number {
    return this.directory.search(filter, 0, 0).count;
  }

  /** One provider's profile, or undefined when the NPI is not in the build. */
  profile(npi: string): ProviderProfile | undefined {
    const row = this.profileRow.get(npi) as
      | (SummaryRow & Pick<ProviderProfile, 'medical_school' | 'residency' | 'graduation_year'> & { facility_names: string })
      | undefined;
    if (!row) return undefined;
    return {
      ...summaryOf(row),
      medical_school: row.medical_school,
      residency: row.residency,
      graduation_year: row.graduation_year,
      facility_names: JSON.parse(row.facility_names) as string[],
    };
  }

  /** Label fields of the providers of some ranks, in the same order. */
  labels(ranks: Uint32Array): ProviderLabel[] {
    return this.directory.npis(ranks).map((npi) => this.labelRow.get(npi) as ProviderLabel);
  }
}

/** A summary as the providers table holds it: telehealth is 0 or 1. */
type SummaryRow = Omit<ProviderSummary, 'telehealth'> & { telehealth: number };

function summaryOf(row: SummaryRow): ProviderSummary {
  return {
    npi: row.npi,
    first_name: row.first_name,
    last_name: row.last_name,
    credential: row.credential,
    gender: row.gender,
    primary_specialty: row.primary_specialty,
    telehealth: row.telehealth === 1,
    city: row.city,
    state: row.state,
    zip_code: row.zip_code,
  };
}
