import type Database from 'better-sqlite3';
import type { StateRecord } from '../answers/reference.ts';

/** A score type as `score-types/` publishes it; `slug` is accepted by `score_type` but not published. */
export interface ScoreType {
  id: number;
  name: string;
  slug: string;
  description: string;
}

/** The score types of a build, loaded once: 11 rows, looked up by id or slug on every list request. */
export class ScoreTypeCatalog {
  readonly all: readonly ScoreType[];
  private readonly byKey = new Map<string, ScoreType>();

  constructor(db: Database.Database) {
    this.all = db.prepare('SELECT id, name, slug, description FROM score_types ORDER BY id').all() as ScoreType[];
    for (const type of this.all) {
      this.byKey.set(String(type.id), type);
      this.byKey.set(type.slug.toLowerCase(), type);
    }
  }

  /** The score type named by an id (`'3'`) or a slug (`'type-2-diabetes'`, any case). */
  find(key: string): ScoreType | undefined {
    return this.byKey.get(key.toLowerCase());
  }

  /** The overall score type (id 1), which single-ZIP and list endpoints use by default. */
  get overall(): ScoreType {
    const type = this.byKey.get('1');
    if (!type) throw new Error('score_types has no row with id 1 (the overall score); rebuild the database');
    return type;
  }
}

/** Every state with at least one scored ZIP, by state code. */
export function listStates(db: Database.Database): StateRecord[] {
  return db.prepare('SELECT state_code, state_name, zip_count, avg_healthscore FROM states ORDER BY state_code').all() as StateRecord[];
}
