import http, { type IncomingHttpHeaders } from 'node:http';

/** A raw HTTP exchange: nothing decoded, nothing followed, so tests see exactly what the server sent. */
export interface HttpResult {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** One request on a fresh connection. */
export function request(
  base: string,
  path: string,
  options: { method?: string; headers?: Record<string, string> } = {},
): Promise<HttpResult> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}${path}`, { method: options.method ?? 'GET', headers: options.headers, agent: false }, (res) => {
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
