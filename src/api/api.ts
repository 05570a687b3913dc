import type Database from 'better-sqlite3';
import { Dispatcher, type DispatcherOptions } from '../http/dispatcher.ts';
import type { QueryRunner } from '../http/work.ts';
import { openReadOnly } from '../query/database.ts';
import { Queries } from '../query/index.ts';

export interface RoutedApiOptions extends Omit<DispatcherOptions<Queries>, 'data' | 'dataTag' | 'close' | 'queryRunner'> {
  /** Query workers (the server's): each build gets its runner, so lists and searches are made off the event loop. */
  queryPool?: { forBuild(file: string, buildId: string): QueryRunner };
}

/**
 * The API over one build of the database: a route table answered from the build's queries. Its ETags
 * derive from the build id, and retiring it closes the database once its requests are done. It lives apart
 * from the route table (./index.ts, whose Api answers every route) so that a one-shot command that reads one
 * group of routes (`hcas score`) loads that group alone, not every endpoint's code.
 */
export class RoutedApi extends Dispatcher<Queries> {
  readonly queries: Queries;
  readonly buildId: string;
  /** The build's read-only handle; closed once the API is retired and its requests are done. */
  readonly db: Database.Database;

  protected constructor(db: Database.Database, queries: Queries, options: RoutedApiOptions) {
    super({
      ...options,
      data: queries,
      dataTag: queries.meta.build_id,
      close: () => db.close(),
      queryRunner: options.queryPool?.forBuild(db.name, queries.meta.build_id),
    });
    this.db = db;
    this.queries = queries;
    this.buildId = queries.meta.build_id;
  }

  /** Opens a database file read-only over `options.routes`; throws when it is missing or not an API database. */
  static open(file: string, options: RoutedApiOptions): RoutedApi {
    return withQueries(file, (db, queries) => new RoutedApi(db, queries, options));
  }
}

/** Opens a database file read-only and makes something of it and its queries; closes it if that throws. */
export function withQueries<T>(file: string, make: (db: Database.Database, queries: Queries) => T): T {
  const db = openReadOnly(file);
  try {
    return make(db, new Queries(db));
  } catch (error) {
    db.close();
    throw error;
  }
}
