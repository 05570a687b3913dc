import { existsSync } from 'node:fs';
import { Api, API_BASE } from '../api/index.ts';
import type { ApiRequest } from '../http/dispatcher.ts';
import type { ApiResponse } from '../http/response.ts';
import { CliError } from './errors.ts';

export { DEFAULT_DATABASE } from '../../core/dataset.ts';

/** Opens the database for a command; a missing file or a non-API file is a CliError that names the fix. */
export function openApi(file: string): Api {
  if (!existsSync(file)) {
    throw new CliError(`no database at ${file}: run \`hcas sample && hcas build\` to create it, or pass --db FILE`);
  }
  try {
    return Api.open(file);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new CliError(`cannot read ${file} as an hcas database (${reason}); rebuild it with \`hcas build\``);
  }
}

/** `/api/v1/states/`, `states/` and `http://host:8000/api/v1/states/` all name the same request. */
export function requestTarget(path: string): string {
  if (/^https?:\/\//i.test(path)) {
    const url = new URL(path);
    return `${url.pathname}${url.search}`;
  }
  return path.startsWith('/') ? path : `${API_BASE}${path}`;
}

/** The response the server would send to a GET of `path`. */
export async function get(api: Api, path: string): Promise<ApiResponse> {
  const request: ApiRequest = { method: 'GET', url: requestTarget(path) };
  return api.respond(request);
}

/**
 * The parsed body of a successful GET. Otherwise a CliError with the API's message, its parameter names
 * translated to the command's options (`page_size` -> `--page-size`).
 */
export async function getJson<T>(api: Api, path: string, options: Record<string, string> = {}): Promise<T> {
  const response = await get(api, path);
  const body = JSON.parse(response.body.toString('utf8')) as T & { message?: string };
  if (response.status !== 200) {
    let message = body.message ?? `the API answered ${response.status}`;
    for (const [param, flag] of Object.entries(options)) message = message.replace(new RegExp(`\\b${param}\\b`, 'g'), flag);
    throw new CliError(message);
  }
  return body;
}
