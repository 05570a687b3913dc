import type { JsonSchema } from '../http/json-schema.ts';
import type { Route } from '../http/route.ts';
import { RoutedApi, type RoutedApiOptions, withQueries } from './api.ts';
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

export interface ApiOptions extends Omit<RoutedApiOptions, 'routes'> {
  /** The route table (default ALL_ROUTES); tests add routes to it. */
  routes?: readonly Route[];
}

/** The API over one build of the database, answering every route (ALL_ROUTES) unless told otherwise. */
export class Api extends RoutedApi {
  /** Opens a database file read-only; throws when it is missing or not an API database. */
  static override open(file: string, options: ApiOptions = {}): Api {
    return withQueries(file, (db, queries) => new Api(db, queries, { ...options, routes: options.routes ?? ALL_ROUTES }));
  }
}
