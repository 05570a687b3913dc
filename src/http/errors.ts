/** Error codes of decisions.md ("Errors") and the HTTP status each one is sent with. */
export const ERROR_STATUS = {
  invalid_parameter: 400,
  conflicting_credentials: 400,
  invalid_api_key: 401,
  plan_upgrade_required: 403,
  // Beyond decisions.md: widget keys limited to page origins and to the widget endpoint, and /metrics.
  origin_not_allowed: 403,
  endpoint_not_allowed: 403,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  rate_limited: 429,
  internal_error: 500,
  // Beyond decisions.md: a client over its share of connections, a server process at its limit of
  // connections or of expensive answers in progress (docs/api.md, "Limits and failure behaviour").
  too_many_connections: 429,
  server_busy: 503,
  // Beyond decisions.md: requests the HTTP layer cannot take (malformed, too slow, too long, headers too big).
  bad_request: 400,
  request_timeout: 408,
  uri_too_long: 414,
  headers_too_large: 431,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** The one error body of the API (interface specification 2.18). */
export interface ErrorBody {
  error: ErrorCode;
  message: string;
  status: number;
}

/** An error a handler throws to answer with an error body; `headers` are added to the response (e.g. Allow). */
export class ApiError extends Error {
  override name = 'ApiError';
  readonly status: number;

  readonly code: ErrorCode;
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.code = code;
    this.headers = headers;
    this.status = ERROR_STATUS[code];
  }

  /** The response body for this error. */
  toBody(): ErrorBody {
    return errorBody(this.code, this.message);
  }
}

/** Builds every error body the API sends. */
export function errorBody(code: ErrorCode, message: string): ErrorBody {
  return { error: code, message, status: ERROR_STATUS[code] };
}

/** 400 for a parameter; the message must name the parameter and what it accepts. */
export function invalidParameter(message: string): ApiError {
  return new ApiError('invalid_parameter', message);
}

/** 404 naming the thing looked up. */
export function notFound(message: string): ApiError {
  return new ApiError('not_found', message);
}
