import { RoutedApi, type RoutedApiOptions } from '../api/api.ts';
import { API_BASE } from '../api/paths.ts';
import type { ApiRequest } from '../http/dispatcher.ts';
import type { Route } from '../http/route.ts';
import type { ApiResponse } from '../http/response.ts';
import { DEFAULT_DATABASE, databaseFile } from '../../core/dataset.ts';
import { absentDatabase } from './absent-database.ts';
import { CliError, dataError, exitCodeOfStatus, withRebuildAdvice } from './errors.ts';

/**
 * Opens the database of a command (`--db`, else `$HCAS_DB`, else the default beside the package) over the
 * routes the command reads: a one-shot lookup names its endpoint group's (`hcas score`: src/api/health-scores),
 * so it loads that group's code alone; a command that may read any passes ALL_ROUTES (src/api/index.ts). A
 * missing file or a non-API file is a data error (exit 3) that names the fix.
 */
export function openApi(
  flag: string | undefined,
  env: NodeJS.ProcessEnv,
  routes: readonly Route[],
  options: Omit<RoutedApiOptions, 'routes'> = {},
): RoutedApi {
  const file = databaseFile(flag, env);
  const absent = absentDatabase(file);
  if (absent?.missing) {
    throw dataError(
      `no database at ${file}: run \`hcas sample && hcas build\` to create it (npm start does), or name one with --db FILE or HCAS_DB`,
    );
  }
  if (absent) throw dataError(absent.why);
  try {
    return RoutedApi.open(file, { ...options, routes });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw dataError(withRebuildAdvice(`cannot read ${file} as an hcas database: ${reason}`));
  }
}

/** The help text of every `--db` option. */
export const DB_HELP = `database to read (default: $HCAS_DB, else ${DEFAULT_DATABASE} in the hcas folder)`;

/** `/api/v1/states/`, `states/` and `http://host:8000/api/v1/states/` all name the same request. */
export function requestTarget(path: string): string {
  if (/^https?:\/\//i.test(path)) {
    const url = new URL(path);
    return `${url.pathname}${url.search}`;
  }
  return path.startsWith('/') ? path : `${API_BASE}${path}`;
}

/** The response the server would send to a GET of `path`. */
export async function get(api: RoutedApi, path: string): Promise<ApiResponse> {
  const request: ApiRequest = { method: 'GET', url: requestTarget(path) };
  return api.respond(request);
}

/**
 * Opens the build (`--db`, else HCAS_DB, else the default) over `routes` (see openApi), hands its API to `use`,
 * and retires it whatever `use` does.
 */
export async function withApi<T>(
  flag: string | undefined,
  env: NodeJS.ProcessEnv,
  routes: readonly Route[],
  use: (api: RoutedApi) => Promise<T>,
): Promise<T> {
  const api = openApi(flag, env, routes);
  try {
    return await use(api);
  } finally {
    api.retire();
  }
}

/**
 * The parsed body of a successful GET. Otherwise a CliError with the API's message, its parameter names
 * translated to the command's options (`page_size` -> `--page-size`), exiting as the status says (404: 1,
 * 400: 2).
 */
export async function getJson<T>(api: RoutedApi, path: string, options: Record<string, string> = {}): Promise<T> {
  const response = await get(api, path);
  const body = JSON.parse(response.body.toString('utf8')) as T & { message?: string };
  if (response.status !== 200) throw apiError(response.status, body.message, options);
  return body;
}

/** The CliError of an API error answer, its parameter names translated to the command's options. */
export function apiError(status: number, apiMessage: string | undefined, options: Record<string, string>): CliError {
  let message = apiMessage ?? `the API answered ${status}`;
  // A parameter is named where it starts a clause, follows a word that points at one, or is given a value
  // (`state must be ...`, `give near=ZIP`, `at most max_score`); in prose (`a USPS state code`) it stays a word.
  for (const [param, flag] of Object.entries(options)) {
    message = message.replace(
      new RegExp(`(^|[;,(] |\\b(?:give|and|most|least|than) )${param}\\b|\\b${param}(?==)`, 'g'),
      (_, before) => `${before ?? ''}${flag}`,
    );
  }
  return new CliError(message, exitCodeOfStatus(status));
}
