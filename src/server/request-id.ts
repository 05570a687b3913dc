import { randomBytes } from 'node:crypto';
import type { RequestHeaders } from '../http/response.ts';

/** What a request id from a proxy may look like: nginx's `$request_id` (32 hex digits), a UUID, and the like. */
const PROXY_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Request ids for the log and the `X-Request-Id` header: a random prefix per process and a counter, so
 * they are unique across workers and restarts and cost no randomness per request.
 */
export class RequestIds {
  private readonly prefix = randomBytes(6).toString('hex');
  private count = 0;

  next(): string {
    this.count++;
    return `${this.prefix}${this.count.toString(36).padStart(6, '0')}`;
  }
}

/** The request id a proxy sent, when it has the shape of one (the caller decides whether the proxy is trusted). */
export function proxyRequestId(headers: RequestHeaders): string | undefined {
  const id = headers['x-request-id'];
  return typeof id === 'string' && PROXY_ID.test(id) ? id : undefined;
}
