import http from 'node:http';

/** One request of an open-loop load: where it goes and with which headers. */
export interface Shot {
  path: string;
  headers?: Record<string, string>;
  /** The connections it goes out on (a client's keep-alive agent); default: a fresh connection. */
  agent?: http.Agent;
  /** The server it goes to, when not the load's `base` (a load spread over replicas). */
  base?: string;
}

/** What one request of the load got: its status (0: a network error) and its latency from when it was due, in ms. */
export interface Landed {
  status: number;
  latencyMs: number;
  retryAfter?: string;
  /** A network error's code (ECONNRESET, ...), for status 0. */
  error?: string;
}

/** How often the generator wakes to send the requests that are due. */
const TICK_MS = 2;

/**
 * Open-loop load: `count` requests at `perSecond`, each sent when it is due whatever is still outstanding
 * (a slow server gets more requests in flight, as from real clients, instead of fewer as from a closed loop),
 * each timed from when it was due, so the generator's own delays count against the server, never for it
 * (no coordinated omission). Bounded: it stops after `count` requests and waits for their answers.
 */
export async function openLoop(base: string, perSecond: number, count: number, shot: (i: number) => Shot): Promise<Landed[]> {
  const landed: Array<Promise<Landed>> = [];
  const start = performance.now();
  const intervalMs = 1000 / perSecond;
  while (landed.length < count) {
    const now = performance.now();
    while (landed.length < count && start + landed.length * intervalMs <= now) {
      landed.push(send(base, shot(landed.length), start + landed.length * intervalMs));
    }
    await new Promise((resolve) => setTimeout(resolve, TICK_MS));
  }
  return Promise.all(landed);
}

function send(base: string, { path, headers, agent, ...shot }: Shot, dueMs: number): Promise<Landed> {
  return new Promise((resolve) => {
    const req = http.get(`${shot.base ?? base}${path}`, { headers, agent: agent ?? false }, (res) => {
      res.resume();
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, latencyMs: performance.now() - dueMs, retryAfter: res.headers['retry-after'] }),
      );
      res.on('error', (error) => resolve(failed(error, dueMs)));
    });
    req.on('error', (error) => resolve(failed(error, dueMs)));
  });
}

function failed(error: Error & { code?: string }, dueMs: number): Landed {
  return { status: 0, latencyMs: performance.now() - dueMs, error: error.code ?? error.message };
}

/** The `p`-th percentile (0-100) of latencies, nearest rank. */
export function percentile(latencies: readonly number[], p: number): number {
  const sorted = [...latencies].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/**
 * Distinct uncached requests to every list and search endpoint, as a flood of anonymous clients sends them:
 * the `i`-th of a seeded sequence (each combination of filters, page and size differs). `zips` are ZIP codes
 * of the build, for `nearby/`.
 */
export function anonymousFloodPath(i: number, random: () => number, zips: readonly string[]): string {
  const n = (max: number) => Math.floor(random() * max);
  const word = () => String.fromCharCode(97 + n(26), 97 + n(26), ...(random() < 0.5 ? [97 + n(26)] : []));
  const pick = <T>(values: readonly T[]) => values[n(values.length)];
  switch (i % 10) {
    case 0:
      return `/api/v1/health-scores/?min_score=${n(40)}&max_score=${60 + n(41)}&page=${1 + n(150)}&page_size=${50 + n(51)}`;
    case 1:
      return `/api/v1/health-scores/?score_type=${1 + n(11)}&min_score=${n(90)}&page_size=${1 + n(100)}`;
    case 2:
      return `/api/v1/health-scores/?city=${word()}${i}&state=${pick(['NY', 'CA', 'DE', 'TX'])}`;
    case 3:
      return `/api/v1/providers/?name=${word()}&page=${1 + n(3)}&page_size=${1 + n(100)}`;
    case 4:
      return `/api/v1/providers/?specialty=${pick(['family medicine', 'cardiology', 'internal medicine', 'nurse practitioner'])}&page=${1 + n(40)}&page_size=${1 + n(100)}`;
    case 5:
      return `/api/v1/facilities/?search=${word()}&page_size=${1 + n(100)}`;
    case 6:
      return `/api/v1/facilities/?type=hospital&min_rating=${1 + n(5)}&page=${1 + n(5)}&page_size=${1 + n(100)}`;
    case 7:
      return `/api/v1/autocomplete/?q=${word()}${random() < 0.3 ? `,${pick(['n', 'c', 'd'])}` : ''}`;
    case 8:
      return `/api/v1/blog/?page=1&page_size=${1 + n(100)}`;
    default:
      return `/api/v1/health-scores/${pick(zips)}/nearby/?radius=${1 + n(100)}&limit=${1 + n(50)}`;
  }
}

/** The same for the endpoints of the paid plans (a Business key): rankings, TVI lists, comparisons, GeoJSON. */
export function keyedFloodPath(i: number, random: () => number, zips: readonly string[]): string {
  const n = (max: number) => Math.floor(random() * max);
  switch (i % 5) {
    case 0:
      return `/api/v1/tvi/top-vulnerable/?tier=${['CRITICAL', 'HIGH', 'MODERATE', 'LOW', 'MINIMAL'][n(5)]}&page=${1 + n(50)}&page_size=${1 + n(100)}`;
    case 1:
      return random() < 0.5
        ? `/api/v1/tvi/rankings/?limit=${1 + n(1000)}`
        : `/api/v1/rankings/hospitals/?state=${String.fromCharCode(65 + n(26), 65 + n(26))}`;
    case 2:
      return `/api/v1/compare/?zips=${Array.from({ length: 2 + n(9) }, () => zips[n(zips.length)])
        .filter((z, at, all) => all.indexOf(z) === at)
        .join(',')}`;
    case 3:
      return `/api/v1/health-scores/geojson/?min_score=${n(101)}`;
    default:
      return `/api/v1/health-scores/?page=${1 + n(300)}&page_size=100&max_score=${n(101)}`;
  }
}
