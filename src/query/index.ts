import type Database from 'better-sqlite3';
import { AccessQueries } from './access.ts';
import { AutocompleteQueries } from './autocomplete.ts';
import { BlogQueries } from './blog.ts';
import { CensusQueries } from './census.ts';
import { DataQualityCatalog } from './data-quality.ts';
import { ExportQueries } from './exports.ts';
import { FacilityQueries } from './facilities.ts';
import { HealthScoreQueries } from './health-scores.ts';
import { MapQueries } from './map.ts';
import type { Meta } from '../answers/reference.ts';
import { readBuildMeta } from './meta.ts';
import { NearbyIndex } from './nearby.ts';
import { ProviderQueries } from './providers.ts';
import type { StateRanking, StateRecord } from '../answers/reference.ts';
import { stateRankings } from './rankings.ts';
import { listStates, ScoreTypeCatalog } from './reference.ts';
import { SpecialtyCatalog } from './specialties.ts';
import { TviQueries } from './tvi.ts';
import { ZipAliasQueries } from './zip-aliases.ts';

/**
 * Every query of one build, over one read-only handle. Small reference tables are read once here;
 * the KD-tree loads on first use.
 */
export class Queries {
  readonly meta: Meta;
  readonly scoreTypes: ScoreTypeCatalog;
  readonly dataQuality: DataQualityCatalog;
  readonly states: readonly StateRecord[];
  readonly healthScores: HealthScoreQueries;
  readonly tvi: TviQueries;
  readonly census: CensusQueries;
  readonly access: AccessQueries;
  readonly blog: BlogQueries;
  readonly exports: ExportQueries;
  readonly providers: ProviderQueries;
  readonly specialties: SpecialtyCatalog;
  readonly facilities: FacilityQueries;
  readonly autocomplete: AutocompleteQueries;
  readonly stateRankings: readonly StateRanking[];
  readonly zipAliases: ZipAliasQueries;
  private nearbyIndex: NearbyIndex | undefined;
  private mapQueries: MapQueries | undefined;

  private readonly db: Database.Database;

  constructor(db: Database.Database) {
    this.db = db;
    this.meta = readBuildMeta(db);
    this.scoreTypes = new ScoreTypeCatalog(db);
    this.states = listStates(db);
    this.dataQuality = new DataQualityCatalog(db);
    this.healthScores = new HealthScoreQueries(db, this.dataQuality);
    this.tvi = new TviQueries(db);
    this.census = new CensusQueries(db);
    this.access = new AccessQueries(db);
    this.blog = new BlogQueries(db);
    this.exports = new ExportQueries(db, this.dataQuality);
    this.providers = new ProviderQueries(db);
    this.specialties = new SpecialtyCatalog(db);
    this.facilities = new FacilityQueries(db);
    this.autocomplete = new AutocompleteQueries(db, this.providers, this.facilities);
    this.stateRankings = stateRankings(db);
    this.zipAliases = new ZipAliasQueries(db);
  }

  /** The nearest-ZIP index, loaded on first use. */
  get nearby(): NearbyIndex {
    this.nearbyIndex ??= NearbyIndex.load(this.db);
    return this.nearbyIndex;
  }

  /** The whole-table reads of the map (src/map), prepared on first use. */
  get map(): MapQueries {
    this.mapQueries ??= new MapQueries(this.db);
    return this.mapQueries;
  }
}
