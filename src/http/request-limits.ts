import { ApiError, invalidParameter } from './errors.ts';

/** Longest request target (path and query) answered; longer ones get a 414. */
export const MAX_URL_LENGTH = 2_048;
/** Most query parameters in one request; no endpoint takes more than 8. */
export const MAX_QUERY_PARAMETERS = 32;
/** Longest query parameter, name and value as sent (percent-encoded). */
export const MAX_PARAMETER_LENGTH = 512;

/**
 * The error for a request target beyond the limits, checked before anything parses it, so a huge or
 * pathological URL costs a length check instead of a parse.
 */
export function requestLimitError(url: string): ApiError | undefined {
  if (url.length > MAX_URL_LENGTH) {
    return new ApiError(
      'uri_too_long',
      `The request target is ${url.length.toLocaleString('en-US')} characters long; at most ${MAX_URL_LENGTH.toLocaleString('en-US')} are accepted`,
    );
  }
  const queryAt = url.indexOf('?');
  if (queryAt < 0) return undefined;
  const parameters = url
    .slice(queryAt + 1)
    .split('&')
    .filter((part) => part !== '');
  if (parameters.length > MAX_QUERY_PARAMETERS) {
    return invalidParameter(`the query string has ${parameters.length} parameters; at most ${MAX_QUERY_PARAMETERS} are accepted`);
  }
  for (const parameter of parameters) {
    if (parameter.length > MAX_PARAMETER_LENGTH) {
      const name = parameter.split('=')[0];
      const shown = name.length > 40 ? `${name.slice(0, 40)}...` : name;
      return invalidParameter(
        `the query parameter ${shown} is ${parameter.length} characters long; at most ${MAX_PARAMETER_LENGTH} are accepted`,
      );
    }
  }
  return undefined;
}
