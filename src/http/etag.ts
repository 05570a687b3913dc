import { createHash } from 'node:crypto';

/**
 * The strong ETag of a response: the build id (the database never changes under a build id) plus a hash of
 * the request path and query, so two URLs of one build never share a tag. Computed once per cached response.
 */
export function entityTag(buildId: string, url: string): string {
  const urlHash = createHash('sha256').update(url).digest('base64url').slice(0, 16);
  return `"${buildId}-${urlHash}"`;
}

/** The tag of a content-coded variant: a different byte sequence needs a different strong tag (RFC 9110 8.8.3). */
export function variantTag(tag: string, coding: string): string {
  return `${tag.slice(0, -1)}-${coding}"`;
}

/**
 * True when `If-None-Match` names this resource: `*`, its tag, or the tag of any of its content-coded
 * variants (they decode to the same bytes). Weak comparison, as RFC 9110 13.1.2 asks for this header.
 */
export function matchesIfNoneMatch(header: string, tag: string): boolean {
  if (header.trim() === '*') return true;
  const base = tag.slice(1, -1);
  for (const candidate of header.split(',')) {
    const opaque = candidate.trim().replace(/^W\//, '').slice(1, -1);
    if (opaque === base || opaque === `${base}-gzip` || opaque === `${base}-br`) return true;
  }
  return false;
}
