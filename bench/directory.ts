/**
 * Directory benchmark: providers (each filter alone and combined, a deep page, name prefixes), facilities,
 * autocomplete and rankings, through the real server with its response cache OFF, so every request does its
 * whole query, against a bare Node `http` server sending a body of the same size. One connection: the
 * latencies are the time to answer one request, not queueing behind 31 others. Each scenario's answers are
 * checked before it is timed; scenarios alternate with the bare server in short rounds and the medians of the
 * rounds are reported, with the server's peak RSS.
 * Stand-alone: node bin/run-ts.js bench/directory.ts --db FILE [--seconds N]
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import autocannon from 'autocannon';
import Database from 'better-sqlite3';
import { BARE_SERVER, fetchBody, fmt, medians, numberOption, option, printTable, runDirectly, startProcess } from './lib.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const CONNECTIONS = 1;
/** Stands for the deep page number in a path until the build's counts are known. */
const DEEP = 'DEEP';

interface Scenario {
  name: string;
  /** Request paths, used in rotation. */
  paths: string[];
  /** Throws when an answer is wrong. */
  check(body: unknown, path: string): void;
}

interface Measured {
  rps: number;
  p50: number;
  p95: number;
  p99: number;
  failed: number;
}

/** Runs the directory benchmark on a build and prints one table. */
export async function benchDirectory(options: { db: string; seconds?: number }): Promise<void> {
  const seconds = options.seconds ?? 6;
  const scenarios = scenariosFor(options.db);
  const api = await startProcess([path.join(ROOT, 'bin/run-ts.js'), path.join(ROOT, 'bench/directory.ts'), '--serve', '--db', options.db]);
  const peak = { rss: 0, anon: 0 };
  const sampleRss = () => {
    const now = memoryMegabytes(api.pid);
    peak.rss = Math.max(peak.rss, now.rss);
    peak.anon = Math.max(peak.anon, now.anon);
  };
  try {
    // Deep pages: page 5,000, or the last page of a smaller build.
    for (const scenario of scenarios) {
      scenario.paths = await Promise.all(
        scenario.paths.map(async (p) => {
          if (!p.includes(DEEP)) return p;
          const first = JSON.parse(
            (await fetchBody(`${api.url}${p.replace(`&page=${DEEP}`, '').replace(`page=${DEEP}`, '')}`)).body.toString(),
          ) as {
            count: number;
          };
          return p.replace(DEEP, String(Math.max(1, Math.min(5000, Math.ceil(first.count / 20)))));
        }),
      );
    }
    for (const scenario of scenarios) {
      for (const p of scenario.paths) {
        const answer = await fetchBody(`${api.url}${p}`);
        if (answer.status !== 200) throw new Error(`${p}: expected 200, got ${answer.status} ${answer.body.toString().slice(0, 200)}`);
        scenario.check(JSON.parse(answer.body.toString()), p);
      }
    }
    sampleRss();
    const sample = await fetchBody(`${api.url}${scenarios[0].paths[0]}`);
    const bare = await startProcess(['-e', BARE_SERVER], { BARE_BODY: sample.body.toString() });
    try {
      const rounds = Math.max(1, Math.floor(seconds / 2));
      const roundSeconds = Math.max(1, Math.round(seconds / rounds));
      const rows: string[][] = [];
      await load(bare.url, ['/'], 1);
      const bareRuns: Measured[] = [];
      for (const scenario of scenarios) {
        await load(api.url, scenario.paths, 1); // warm-up: JIT, SQLite pages, posting lists
        const runs: Measured[] = [];
        for (let round = 0; round < rounds; round++) {
          bareRuns.push(await load(bare.url, ['/'], roundSeconds));
          runs.push(await load(api.url, scenario.paths, roundSeconds));
          sampleRss();
        }
        rows.push(row(scenario.name, scenario.paths.length, medians(runs, ['failed'])));
      }
      rows.unshift(row('bare node:http (same body size as the first)', 1, medians(bareRuns, ['failed'])));
      printTable(['scenario', 'urls', 'req/s', 'p50 ms', 'p95 ms', 'p99 ms', 'failed'], rows);
      console.log(
        `${CONNECTIONS} connection; response cache off (every request runs its query); per scenario ${rounds} rounds of ${roundSeconds} s alternating with the bare server after 1 s warm-up; medians of the rounds`,
      );
      console.log(
        `server peak RSS ${peak.rss} MB (target < 500), of which ${peak.anon} MB private (the rest is the memory-mapped database file, shared and reclaimable)`,
      );
      console.log('targets: providers first pages p95 < 10 ms, autocomplete p95 < 5 ms');
    } finally {
      bare.stop();
    }
  } finally {
    api.stop();
  }
}

/** The request paths of every scenario, from values that exist in this build. */
function scenariosFor(file: string): Scenario[] {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const top = (kind: string, n: number) =>
      db.prepare('SELECT key FROM provider_postings WHERE kind = ? ORDER BY count DESC, key LIMIT ?').pluck().all(kind, n) as string[];
    const some = (kind: string, n: number) =>
      db
        .prepare('SELECT key FROM provider_postings WHERE kind = ? ORDER BY (rowid * 2654435761) % 4294967296 LIMIT ?')
        .pluck()
        .all(kind, n) as string[];
    const specialties = db.prepare('SELECT key FROM provider_specialties ORDER BY providers DESC LIMIT 12').pluck().all() as string[];
    const states = [...top('state', 6), ...some('state', 6)];
    const cities = [...top('city', 6), ...some('city', 6)];
    const zips = [...top('zip', 6), ...some('zip', 6)];
    const lastNames = db.prepare('SELECT name_key FROM provider_last_names ORDER BY count DESC LIMIT 8').pluck().all() as string[];
    const firstNames = db.prepare('SELECT name_key FROM provider_first_names ORDER BY count DESC LIMIT 8').pluck().all() as string[];
    const prefixes = [
      ...new Set([...lastNames, ...firstNames].flatMap((n) => [n.slice(0, 1), n.slice(0, 2), n.slice(0, 3), n.slice(0, 5)])),
    ].slice(0, 40);
    const facilityNames = (db.prepare("SELECT data FROM facility_index WHERE name = 'name_keys'").pluck().get() as Buffer)
      .toString('utf8')
      .split('\n');
    const facilityWords = [
      ...new Set(Array.from({ length: 40 }, (_, i) => facilityNames[(i * 2654435761) % facilityNames.length].split(' ')[0])),
    ];
    const cityWords = db.prepare('SELECT city FROM zips ORDER BY population DESC LIMIT 10').pluck().all() as string[];
    const zipCodes = db
      .prepare('SELECT zip_code FROM zips ORDER BY (CAST(zip_code AS INTEGER) * 2654435761) % 4294967296 LIMIT 10')
      .pluck()
      .all() as string[];
    const providers = (query: string[]) => query.map((q) => `/api/v1/providers/?${q}`);
    const enc = encodeURIComponent;
    const isPage = (body: unknown) => {
      const page = body as { count?: unknown; results?: unknown };
      if (typeof page.count !== 'number' || !Array.isArray(page.results))
        throw new Error(`not a page: ${JSON.stringify(body).slice(0, 200)}`);
    };
    // The places with the most providers, by their ZCTA's list.
    const dense = top('zcta', 6);
    const isNear = (radius: number) => (body: unknown, path: string) => {
      isPage(body);
      const miles = (body as { results: Array<{ distance_miles?: number }> }).results.map((r) => r.distance_miles);
      if (miles.some((m) => m === undefined || m > radius))
        throw new Error(`${path}: a record without distance_miles or beyond ${radius} miles`);
      if (!path.includes('sort=') && miles.some((m, i) => i > 0 && m! < miles[i - 1]!)) throw new Error(`${path}: not nearest first`);
    };
    const isList = (max: number) => (body: unknown) => {
      if (!Array.isArray(body) || body.length > max) throw new Error(`not a list of at most ${max}: ${JSON.stringify(body).slice(0, 200)}`);
    };
    return [
      { name: 'providers/ (no filter)', paths: providers(['', 'page_size=100']), check: isPage },
      { name: 'providers/?state=', paths: providers(states.map((s) => `state=${s}`)), check: isPage },
      { name: 'providers/?specialty=', paths: providers(specialties.map((s) => `specialty=${enc(s)}`)), check: isPage },
      { name: 'providers/?city=', paths: providers(cities.map((c) => `city=${enc(c)}`)), check: isPage },
      { name: 'providers/?zip=', paths: providers(zips.map((z) => `zip=${z}`)), check: isPage },
      { name: 'providers/?name= (1-5 letters)', paths: providers(prefixes.map((p) => `name=${enc(p)}`)), check: isPage },
      {
        name: 'providers/ state+specialty',
        paths: providers(states.flatMap((s) => specialties.slice(0, 6).map((p) => `state=${s}&specialty=${enc(p)}`))),
        check: isPage,
      },
      {
        name: 'providers/ state+name',
        paths: providers(states.flatMap((s) => prefixes.slice(0, 8).map((p) => `state=${s}&name=${enc(p)}`))),
        check: isPage,
      },
      {
        name: 'providers/ specialty+name',
        paths: providers(specialties.flatMap((s) => prefixes.slice(0, 6).map((p) => `specialty=${enc(s)}&name=${enc(p)}`))),
        check: isPage,
      },
      {
        name: 'providers/ state+specialty+name',
        paths: providers(
          states
            .slice(0, 6)
            .flatMap((s) =>
              specialties.slice(0, 4).flatMap((p) => prefixes.slice(0, 3).map((n) => `state=${s}&specialty=${enc(p)}&name=${enc(n)}`)),
            ),
        ),
        check: isPage,
      },
      {
        name: 'providers/ city+specialty',
        paths: providers(cities.slice(0, 6).flatMap((c) => specialties.slice(0, 4).map((p) => `city=${enc(c)}&specialty=${enc(p)}`))),
        check: isPage,
      },
      {
        name: 'providers/ page 5,000 (offset 99,980)',
        paths: providers([
          `page=${DEEP}`,
          `state=${states[0]}&page=${DEEP}`,
          `specialty=${enc(specialties[0])}&page=${DEEP}`,
          `name=${enc(prefixes[0])}&page=${DEEP}`,
        ]),
        check: isPage,
      },
      {
        name: 'autocomplete/?q=',
        paths: [
          ...prefixes,
          ...facilityWords.map((w) => w.slice(0, 4)),
          ...cityWords.map((c) => c.slice(0, 5)),
          ...zipCodes.map((z) => z.slice(0, 3)),
          ...zipCodes,
          `${firstNames[0]} ${lastNames[0].slice(0, 2)}`,
        ].map((q) => `/api/v1/autocomplete/?q=${enc(q)}`),
        check: isList(10),
      },
      {
        name: 'facilities/?search= (+filters)',
        paths: [
          ...facilityWords.map((w) => `/api/v1/facilities/?search=${enc(w)}`),
          ...facilityWords.slice(0, 10).map((w) => `/api/v1/facilities/?search=${enc(w.slice(0, 3))}&type=hospital&state=${states[0]}`),
          '/api/v1/facilities/?type=hospital&emergency=true&min_rating=4',
        ],
        check: isPage,
      },
      {
        name: 'providers/?near= (10 and 25 miles of the busiest places)',
        paths: providers(
          dense.flatMap((z) => [`near=${z}`, `near=${z}&radius=25`, `near=${z}&radius=25&specialty=${enc(specialties[0])}`]),
        ),
        check: isNear(25),
      },
      {
        name: 'providers/?near=&radius=100 (busiest places)',
        paths: providers(dense.slice(0, 3).flatMap((z) => [`near=${z}&radius=100`, `near=${z}&radius=100&sort=-last_name&page=50`])),
        check: isNear(100),
      },
      {
        name: 'providers/ sort=-last_name (filters, deep page)',
        paths: providers([
          'sort=-last_name',
          `sort=-last_name&page=${DEEP}`,
          ...states.slice(0, 4).map((s) => `state=${s}&sort=-last_name`),
          ...prefixes.slice(0, 4).map((p) => `name=${enc(p)}&sort=-last_name`),
          ...specialties.slice(0, 4).map((p) => `specialty=${enc(p)}&sort=-last_name&page=3`),
        ]),
        check: isPage,
      },
      {
        name: 'facilities/ sort=-facility_rating (filters)',
        paths: [
          '/api/v1/facilities/?sort=-facility_rating',
          '/api/v1/facilities/?sort=facility_rating&page=500',
          ...states.slice(0, 6).map((s) => `/api/v1/facilities/?state=${s}&type=hospital&sort=-facility_rating`),
        ],
        check: isPage,
      },
      {
        name: 'health-scores/ and tvi/ sorted, near',
        paths: [
          '/api/v1/health-scores/?sort=healthscore',
          '/api/v1/health-scores/?sort=-population&page=300',
          ...states.slice(0, 6).map((s) => `/api/v1/health-scores/?state=${s}&sort=healthscore&min_population=1000&page_size=10`),
          ...dense.slice(0, 4).map((z) => `/api/v1/health-scores/?near=${z}&radius=50&sort=healthscore`),
          '/api/v1/tvi/top-vulnerable/?sort=-zero_vehicle_pct',
          ...states.slice(0, 4).map((s) => `/api/v1/tvi/top-vulnerable/?state=${s}&sort=nearest_hospital_miles`),
        ],
        check: isPage,
      },
      { name: 'rankings/states/', paths: ['/api/v1/rankings/states/'], check: isList(100) },
      {
        name: 'rankings/hospitals/ (national, by state)',
        paths: ['/api/v1/rankings/hospitals/', ...states.map((s) => `/api/v1/rankings/hospitals/?state=${s}`)],
        check: isList(100_000),
      },
    ];
  } finally {
    db.close();
  }
}

/** Loads one server for `seconds` and measures every response time. */
async function load(url: string, paths: string[], seconds: number): Promise<Measured> {
  let next = 0;
  const times: number[] = [];
  const tracker = autocannon({
    url,
    connections: CONNECTIONS,
    duration: seconds,
    requests: [{ setupRequest: (request) => ({ ...request, path: paths[next++ % paths.length] }) }],
  }) as unknown as Promise<{ requests: { average: number }; errors: number; timeouts: number; non2xx: number }> & {
    on(event: 'response', listener: (client: unknown, status: number, bytes: number, ms: number) => void): void;
  };
  tracker.on('response', (_client, _status, _bytes, ms) => times.push(ms));
  const result = await tracker;
  times.sort((a, b) => a - b);
  const at = (q: number) => (times.length ? times[Math.min(times.length - 1, Math.floor(q * times.length))] : NaN);
  return {
    rps: result.requests.average,
    p50: at(0.5),
    p95: at(0.95),
    p99: at(0.99),
    failed: result.errors + result.timeouts + result.non2xx,
  };
}

function row(name: string, urls: number, m: Measured): string[] {
  return [name, String(urls), fmt(m.rps, 0), fmt(m.p50, 2), fmt(m.p95, 2), fmt(m.p99, 2), String(m.failed)];
}

/** Resident set size of a process in MB, and its private (anonymous) part (Linux /proc; 0 elsewhere). */
function memoryMegabytes(pid: number): { rss: number; anon: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const megabytes = (field: string) => Math.round(Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) / 1024);
    return { rss: megabytes('VmRSS'), anon: megabytes('RssAnon') };
  } catch {
    return { rss: 0, anon: 0 };
  }
}

/** The server under test: `hcas serve` in one process with the response cache off, quiet, no reload. */
async function serve(db: string): Promise<void> {
  const { startServer } = await import('../src/server/server.ts');
  const server = await startServer({ db, port: 0, host: '127.0.0.1', quiet: true, watch: false, api: { cacheBytes: 0 }, log: () => {} });
  console.log(JSON.stringify({ event: 'listening', url: server.url }));
}

if (runDirectly(import.meta.filename)) {
  const db = option('--db') ?? 'dist-api/hcas.sqlite';
  if (process.argv.includes('--serve')) await serve(db);
  else await benchDirectory({ db, seconds: numberOption('--seconds') });
}
