import type Database from 'better-sqlite3';
import { Dispatcher, type DispatcherOptions } from '../http/dispatcher.ts';
import type { JsonSchema } from '../http/json-schema.ts';
import type { Route } from '../http/route.ts';
import type { QueryRunner } from '../http/work.ts';
import { openReadOnly } from '../query/database.ts';
import { Queries } from '../query/index.ts';
import * as autocomplete from './autocomplete.ts';
import * as blog from './blog.ts';
import * as census from './census.ts';
import * as compare from './compare.ts';
import * as exports from './exports.ts';
import * as facilities from './facilities.ts';
import * as healthScores from './health-scores.ts';
import * as map from './map.ts';
import { withOpenApi } from './openapi.ts';
import * as providers from './providers.ts';
import * as rankings from './rankings.ts';
import * as reference from './reference.ts';
import * as root from './root.ts';
import * as tvi from './tvi.ts';
import * as widget from './widget.ts';
import * as widgetScript from './widget-script.ts';

export { API_BASE } from './paths.ts';

/** An endpoint group: one module with its routes and the shared schemas its answers use. */
interface EndpointGroup {
  routes: readonly Route[];
  schemas?: Record<string, JsonSchema>;
}

/** The groups in the order openapi.json and docs/api.md list them. */
const GROUPS: readonly EndpointGroup[] = [
  healthScores,
  reference,
  census,
  tvi,
  widget,
  compare,
  blog,
  providers,
  facilities,
  autocomplete,
  rankings,
  exports,
];

/**
 * The JSON API: its root (/api/v1/) first, every endpoint under it, one row each (path, parameters, handler,
 * docs), and openapi.json last. The server, `hcas get`, the plan check, the docs test and the route-walking error test
 * all read this table.
 */
const ROOT = root.rootRoutes(() => ROUTES);

export const ROUTES: readonly Route[] = withOpenApi(
  [ROOT.api, ...GROUPS.flatMap((group) => group.routes)],
  Object.assign({}, root.schemas, ...GROUPS.map((group) => group.schemas ?? {})),
);

/** Everything a server answers: the JSON API, its root at the site's root, the widget's embed script and the map. */
export const ALL_ROUTES: readonly Route[] = [...ROUTES, ROOT.site, ...widgetScript.routes, ...map.routes];

export interface ApiOptions extends Omit<DispatcherOptions<Queries>, 'routes' | 'data' | 'dataTag' | 'close' | 'queryRunner'> {
  /** The route table (default ALL_ROUTES); tests add routes to it. */
  routes?: readonly Route[];
  /** Query workers (the server's): each build gets its runner, so lists and searches are made off the event loop. */
  queryPool?: { forBuild(file: string, buildId: string): QueryRunner };
}

/**
 * The API over one build of the database: the route table answered from the build's queries. Its ETags
 * derive from the build id, and retiring it closes the database once its requests are done.
 */
export class Api extends Dispatcher<Queries> {
  readonly queries: Queries;
  readonly buildId: string;
  /** The build's read-only handle; closed once the API is retired and its requests are done. */
  readonly db: Database.Database;

  private constructor(db: Database.Database, queries: Queries, options: ApiOptions) {
    super({
      ...options,
      routes: options.routes ?? ALL_ROUTES,
      data: queries,
      dataTag: queries.meta.build_id,
      close: () => db.close(),
      queryRunner: options.queryPool?.forBuild(db.name, queries.meta.build_id),
    });
    this.db = db;
    this.queries = queries;
    this.buildId = queries.meta.build_id;
  }

  /** Opens a database file read-only; throws when it is missing or not an API database. */
  static open(file: string, options: ApiOptions = {}): Api {
    const db = openReadOnly(file);
    try {
      return new Api(db, new Queries(db), options);
    } catch (error) {
      db.close();
      throw error;
    }
  }
}
