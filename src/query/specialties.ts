import type Database from 'better-sqlite3';
import type { Specialty } from '../answers/providers.ts';

/**
 * Every value `specialty=` matches in a build (`provider_specialties`: NUCC display names, classifications and
 * specializations, CMS specialty texts and the aliases), most providers first: the list `specialties/`
 * publishes and the values a refused specialty is compared with. Read on first use.
 */
export class SpecialtyCatalog {
  private rows: Array<Specialty & { key: string }> | undefined;
  private keys: Set<string> | undefined;
  private readonly db: Database.Database;

  constructor(db: Database.Database) {
    this.db = db;
  }

  /** Every specialty with its providers, most first, then by name. */
  get all(): ReadonlyArray<Specialty & { key: string }> {
    this.rows ??= (
      this.db.prepare('SELECT key, name, sources, providers FROM provider_specialties ORDER BY providers DESC, key').all() as Array<{
        key: string;
        name: string;
        sources: string;
        providers: number;
      }>
    ).map((row) => ({
      key: row.key,
      specialty: row.name,
      sources: row.sources.split(',') as Specialty['sources'],
      providers: row.providers,
    }));
    return this.rows;
  }

  /** True when some provider of the build answers to the specialty key. */
  has(key: string): boolean {
    this.keys ??= new Set(this.all.map((row) => row.key));
    return this.keys.has(key);
  }
}
