import type { RequestHeaders } from '../http/response.ts';

/**
 * An allowed origin as `hcas keys create --origin` takes it: `https://example.org`, `http://localhost:8080`,
 * or `https://*.example.org` (every subdomain, not the domain itself). Returns it normalised (lower case, no
 * default port, no trailing slash); throws a message naming the accepted forms.
 */
export function parseOrigin(text: string): string {
  const fail = (): never => {
    throw new Error(
      `--origin takes a page origin such as https://example.org, http://localhost:8080 or https://*.example.org (scheme and host, no path), got ${text}`,
    );
  };
  const match = /^(https?):\/\/(\*\.)?([^/:?#*]+)(?::(\d{1,5}))?\/?$/i.exec(text.trim());
  if (!match) return fail();
  const [, scheme, wildcard = '', host, port] = match;
  let url: URL;
  try {
    url = new URL(`${scheme}://${host}${port ? `:${port}` : ''}`);
  } catch {
    return fail();
  }
  return `${url.protocol}//${wildcard}${url.host}`;
}

/** The origin of the page that sent a request: `Origin`, else the origin of `Referer`; undefined when neither says. */
export function requestOrigin(headers: RequestHeaders): string | undefined {
  const origin = headers.origin;
  if (typeof origin === 'string' && origin !== 'null') {
    try {
      return new URL(origin).origin;
    } catch {
      return undefined;
    }
  }
  const referer = headers.referer;
  if (typeof referer !== 'string') return undefined;
  try {
    return new URL(referer).origin;
  } catch {
    return undefined;
  }
}

/** True when `origin` (normalised, as `requestOrigin` gives it) is one of `allowed` or under one of its wildcards. */
export function originAllowed(allowed: readonly string[], origin: string | undefined): boolean {
  if (origin === undefined) return false;
  for (const entry of allowed) {
    if (entry === origin) return true;
    const star = entry.indexOf('//*.');
    if (star < 0) continue;
    const scheme = entry.slice(0, star + 2);
    const suffix = entry.slice(star + 3); // ".example.org[:port]"
    if (origin.startsWith(scheme) && origin.endsWith(suffix) && origin.length > scheme.length + suffix.length) return true;
  }
  return false;
}
