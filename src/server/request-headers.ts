import { ApiError } from '../http/errors.ts';

/**
 * The error for a request the HTTP parser let through that is not valid HTTP/1.1 or 1.0, or that repeats a
 * header it may send only once; undefined for nearly every request (one pass over the raw header names, no
 * allocation). Node keeps the first `Host` and the first `Authorization` of a request and silently drops the
 * others, so the repeat is found in the raw headers:
 * - another HTTP version (an HTTP/0.9 line without one, `HTTP/2.0` in text): a 400, never an answer the
 *   client cannot read;
 * - `Host` missing from HTTP/1.1, or more than once: RFC 9112, section 3.2, requires a 400 (two proxies may
 *   read two different hosts; Node's own answer to a missing one is a bare 400 without the API's body);
 * - `Authorization` or `X-API-Key` more than once: the request names two credentials and the server will
 *   not pick one for the client (as for X-API-Key and Authorization carrying different keys).
 */
export function requestError(rawHeaders: readonly string[], versionMajor: number, versionMinor: number): ApiError | undefined {
  if (versionMajor !== 1)
    return new ApiError(
      'bad_request',
      `HTTP/${versionMajor}.${versionMinor} requests are not served; send an HTTP/1.1 request line (GET /api/v1/ HTTP/1.1) and a Host header`,
    );
  let host = 0;
  let authorization = 0;
  let apiKey = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i];
    // Lengths first: most names are none of the three, and cost one comparison. Then the usual spellings,
    // before a lower-cased copy (an allocation) for the others.
    if (name.length === 4) {
      if (name === 'Host' || name === 'host' || name.toLowerCase() === 'host') host++;
    } else if (name.length === 13) {
      if (name === 'Authorization' || name === 'authorization' || name.toLowerCase() === 'authorization') authorization++;
    } else if (name.length === 9 && (name === 'X-API-Key' || name === 'x-api-key' || name.toLowerCase() === 'x-api-key')) apiKey++;
  }
  if (host > 1) return new ApiError('bad_request', `The request has ${host} Host headers; send exactly one (RFC 9112, section 3.2)`);
  if (host === 0 && versionMinor === 1)
    return new ApiError('bad_request', 'An HTTP/1.1 request must carry a Host header (RFC 9112, section 3.2); add one');
  if (authorization > 1 || apiKey > 1) {
    const [name, count] = authorization > 1 ? ['Authorization', authorization] : ['X-API-Key', apiKey];
    return new ApiError('conflicting_credentials', `The request has ${count} ${name} headers; send one API key, in one header`);
  }
  return undefined;
}
