import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { crc32, deflateRawSync } from 'node:zlib';

/** How the loopback server answers one path. */
export interface FixtureRoute {
  body?: Buffer | string;
  status?: number;
  headers?: Record<string, string>;
  /** Answer 302 to this location (relative or absolute). */
  redirect?: string;
  /** The first `drops` requests get the headers and `dropAfter` bytes, then the connection is cut. */
  dropAfter?: number;
  drops?: number;
  /** The first `stalls` requests get `stallAfter` bytes, then nothing (the client's idle timeout must fire). */
  stallAfter?: number;
  stalls?: number;
  /** Ignore Range requests (a server that cannot resume). */
  noRanges?: boolean;
  /** Computed per request (the query string, a header) instead of a fixed answer. */
  handle?: (request: http.IncomingMessage) => FixtureRoute;
}

export interface SeenRequest {
  path: string;
  range: string | null;
  ifRange: string | null;
  authorization: string | null;
}

/**
 * A static file server on 127.0.0.1:0 for the fetch tests: ranges, If-Range, redirects, dropped and stalled
 * connections, error statuses, all from a route table built by the test.
 */
export class FixtureServer {
  readonly requests: SeenRequest[] = [];
  private readonly server: http.Server;
  private readonly served = new Map<string, number>();
  private readonly stalled = new Set<http.ServerResponse>();
  readonly routes: Record<string, FixtureRoute>;

  constructor(routes: Record<string, FixtureRoute>) {
    this.routes = routes;
    this.server = http.createServer((request, response) => this.answer(request, response));
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return this;
  }

  /** The absolute URL of a path on this server. */
  url(path: string): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${path}`;
  }

  /** Requests made for a path (ignoring the query string). */
  hits(path: string): SeenRequest[] {
    return this.requests.filter((r) => r.path === path);
  }

  async close(): Promise<void> {
    for (const response of this.stalled) response.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private answer(request: http.IncomingMessage, response: http.ServerResponse): void {
    const path = new URL(request.url ?? '/', 'http://x').pathname;
    this.requests.push({
      path,
      range: request.headers.range ?? null,
      ifRange: (request.headers['if-range'] as string) ?? null,
      authorization: request.headers.authorization ?? null,
    });
    const count = (this.served.get(path) ?? 0) + 1;
    this.served.set(path, count);
    let route = this.routes[path];
    if (route?.handle) route = route.handle(request);
    if (!route) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end(`no such file: ${path}`);
      return;
    }
    if (route.redirect) {
      response.writeHead(302, { location: route.redirect }).end();
      return;
    }
    const body = Buffer.isBuffer(route.body) ? route.body : Buffer.from(route.body ?? '');
    const etag = `"${createHash('sha256').update(body).digest('hex').slice(0, 16)}"`;
    const headers: Record<string, string | number> = {
      etag,
      'accept-ranges': route.noRanges ? 'none' : 'bytes',
      'content-type': 'application/octet-stream',
      ...route.headers,
    };
    const status = route.status ?? 200;
    if (status !== 200) {
      response.writeHead(status, headers).end(body);
      return;
    }
    let start = 0;
    const range = /^bytes=(\d+)-$/.exec(request.headers.range ?? '');
    const ifRange = request.headers['if-range'];
    if (range && !route.noRanges && (ifRange === undefined || ifRange === etag)) {
      start = Number(range[1]);
      if (start >= body.length) {
        response.writeHead(416, { 'content-range': `bytes */${body.length}` }).end();
        return;
      }
      response.writeHead(206, {
        ...headers,
        'content-length': body.length - start,
        'content-range': `bytes ${start}-${body.length - 1}/${body.length}`,
      });
    } else {
      response.writeHead(200, { ...headers, 'content-length': body.length });
    }
    const rest = body.subarray(start);
    if (route.dropAfter !== undefined && count <= (route.drops ?? 1)) {
      // Send part of the body, let it reach the client, then cut the connection mid-file.
      response.write(rest.subarray(0, route.dropAfter), () => setTimeout(() => response.socket?.destroy(), 20));
      return;
    }
    if (route.stallAfter !== undefined && count <= (route.stalls ?? 1)) {
      this.stalled.add(response);
      response.write(rest.subarray(0, route.stallAfter));
      return;
    }
    response.end(rest);
  }
}

/** A zip archive of the given members, deflated unless `stored`, enough to test unpacking without a zip library. */
export function zipArchive(members: Array<{ name: string; data: Buffer | string; stored?: boolean }>): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const member of members) {
    const data = Buffer.isBuffer(member.data) ? member.data : Buffer.from(member.data, 'utf8');
    const packed = member.stored ? data : deflateRawSync(data);
    const name = Buffer.from(member.name);
    const crc = crc32(data) >>> 0;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(member.stored ? 0 : 8, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(packed.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(member.stored ? 0 : 8, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(packed.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, packed);
    centrals.push(central, name);
    offset += local.length + name.length + packed.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(members.length, 8);
  end.writeUInt16LE(members.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}
