import type Database from 'better-sqlite3';
import { HealthScoreQueries } from './health-scores.ts';
import { readBuildMeta, type BuildMeta } from './meta.ts';
import { NearbyIndex } from './nearby.ts';
import { listStates, ScoreTypeCatalog, type StateRecord } from './reference.ts';

/**
 * Every query of one build, over one read-only handle. Small reference tables are read once here;
 * the KD-tree loads on first use.
 */
export class Queries {
  readonly meta: BuildMeta;
  readonly scoreTypes: ScoreTypeCatalog;
  readonly states: readonly StateRecord[];
  readonly healthScores: HealthScoreQueries;
  private nearbyIndex: NearbyIndex | undefined;

  constructor(private readonly db: Database.Database) {
    this.meta = readBuildMeta(db);
    this.scoreTypes = new ScoreTypeCatalog(db);
    this.states = listStates(db);
    this.healthScores = new HealthScoreQueries(db);
  }

  /** The nearest-ZIP index, loaded on first use. */
  get nearby(): NearbyIndex {
    this.nearbyIndex ??= NearbyIndex.load(this.db);
    return this.nearbyIndex;
  }
}
