import http, { type IncomingHttpHeaders } from 'node:http';
import https from 'node:https';

/** A raw HTTP exchange: nothing decoded, nothing followed, so tests see exactly what the server sent. */
export interface HttpResult {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/**
 * One request on a fresh connection; an `https://` base with the server's certificate as `ca` (and the host
 * name it was made for as `servername`, sent as Host too when no Host header is given).
 */
export function request(
  base: string,
  path: string,
  options: { method?: string; headers?: Record<string, string>; ca?: string; servername?: string } = {},
): Promise<HttpResult> {
  const tls = base.startsWith('https:');
  const headers = options.servername && !options.headers?.Host ? { Host: options.servername, ...options.headers } : options.headers;
  return new Promise((resolve, reject) => {
    const settings = { method: options.method ?? 'GET', headers, agent: false as const, ca: options.ca, servername: options.servername };
    const req = (tls ? https : http).request(`${base}${path}`, settings, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** The parsed JSON body. */
export function bodyJson(result: HttpResult): unknown {
  return JSON.parse(result.body.toString('utf8'));
}
