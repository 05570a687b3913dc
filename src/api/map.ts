import { packageVersion } from '../../core/package.ts';
import { IGNORED_QUERY } from '../http/params.ts';
import { type HandlerResult, NO_PARAMS, type NoParams, ONCE, route, type Route } from '../http/route.ts';
import type { BuildMap } from '../map/data.ts';
import { BINARY_TYPE, DATA_PATHS } from '../map/data-paths.ts';
import { MAP_CSP, PAGE_FILES, pageFile } from '../map/page.ts';
import type { Context } from './context.ts';
import { scoreType } from './params.ts';

/**
 * The map (`/map/`): its page, served as the widget's script is (outside the API's base path, so not in
 * openapi.json; `asset`, so loading it never spends a visitor's quota), and its data files, made from the
 * build being served on first request and cached with the build (a new build makes them anew).
 *
 * The data files are made on the event loop, in slices that give it back (src/map/slices.ts), not in a query
 * worker: they are made once per build and kept, and a worker's job is stopped after 10 s and its thread
 * replaced, which on a loaded machine (load average 16 on two cores, the test suite's) stopped the map's
 * first making every time, with all it had made. `heavy`: made one at a time, a second request waiting for
 * the first's answer.
 */

/** The page's headers: its policy (MAP_CSP), and no referrer sent with the links it opens. */
const PAGE_HEADERS = { 'Content-Security-Policy': MAP_CSP, 'Referrer-Policy': 'no-referrer' };

const pageRoutes: Route[] = PAGE_FILES.map(({ path, file, type }) =>
  route({
    path,
    exported: file === 'index.html' ? { write: 'once', index: file } : ONCE,
    kind: 'asset',
    summary: `The map's ${file}`,
    pathParams: NO_PARAMS,
    query: IGNORED_QUERY,
    handle: (): HandlerResult => {
      const { body, etag } = pageFile(file);
      return { status: 200, body, etag, headers: { 'Content-Type': type, ...(file === 'index.html' ? PAGE_HEADERS : {}) } };
    },
  }),
);

/**
 * The code that makes the data files (d3-geo, topojson, the build's shapes), loaded at the first data request:
 * a one-shot `hcas get` of another path never loads it (bench/cli.ts).
 */
type MapFiles = typeof import('../map/files.ts');
async function mapOf(queries: Context<NoParams, NoParams>['queries']): Promise<{ map: BuildMap; files: MapFiles }> {
  const [{ buildMap }, files] = await Promise.all([import('../map/data.ts'), import('../map/files.ts')]);
  return { map: await buildMap(queries), files };
}

/** A data file of the map: made from the build once (see above), then cached by the dispatcher. */
function dataRoute(path: string, summary: string, make: (files: MapFiles, map: BuildMap) => object): Route {
  return route({
    path,
    exported: ONCE,
    kind: 'asset',
    heavy: true,
    summary,
    pathParams: NO_PARAMS,
    query: IGNORED_QUERY,
    handle: async ({ queries }: Context<NoParams, NoParams>): Promise<HandlerResult> => {
      const { map, files } = await mapOf(queries);
      return dataAnswer(make(files, map));
    },
  });
}

/** A data file's answer: the bytes of a binary file (src/map/columns.ts), or a value sent as JSON. */
function dataAnswer(body: object): HandlerResult {
  return Buffer.isBuffer(body) ? { status: 200, body, headers: { 'Content-Type': BINARY_TYPE } } : { status: 200, body };
}

const scoresPath = { type: scoreType };

export const routes: readonly Route[] = [
  ...pageRoutes,
  dataRoute(DATA_PATHS.meta, "The map's build, bands, score types, states and insets", (files, map) =>
    files.metaFile(map, packageVersion()),
  ),
  dataRoute(DATA_PATHS.national, "The map's land, state and coast lines as SVG path data, for the first paint", (files, map) =>
    files.nationalFile(map),
  ),
  dataRoute(DATA_PATHS.outlines, "The map's borders: the nation, the states, the counties", (files, map) => files.outlinesFile(map)),
  dataRoute(DATA_PATHS.counties, "The map's counties: codes, names and rings", (files, map) => files.countiesFile(map)),
  dataRoute(DATA_PATHS.zips, "The map's ZIP codes: points, states, counties, residents, cities", (files, map) => files.zipsFile(map)),
  route({
    path: DATA_PATHS.scores.replace('{slug}', ':type'),
    exported: { write: 'per-key', keys: 'score-types' },
    kind: 'asset',
    heavy: true,
    summary: "The map's scores of one score type, with the county and state means",
    pathParams: scoresPath,
    query: IGNORED_QUERY,
    handle: async ({ params, queries }: Context<typeof scoresPath, NoParams>): Promise<HandlerResult> => {
      const { map, files } = await mapOf(queries);
      return dataAnswer(files.scoresFile(map, params.type, await map.scores(params.type)));
    },
  }),
];
