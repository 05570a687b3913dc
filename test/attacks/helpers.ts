import { copyFileSync, readFileSync } from 'node:fs';
import net from 'node:net';
import v8 from 'node:v8';
import vm from 'node:vm';
import Database from 'better-sqlite3';
import KDBush from 'kdbush';
import { hcas } from '../helpers/cli.ts';
import { request, type HttpResult } from '../helpers/http.ts';

/**
 * Shared pieces of the attack suite (test/attacks/): what a hostile client or a careless operator does,
 * bounded (every loop has a fixed count, every wait a deadline) and on loopback only.
 */

/**
 * Makes a key as an operator does, `hcas keys create`, in the state file `stateFile` (in this process, as
 * command tests run: test/helpers/cli.ts); returns the key. The command's note on stderr ("created key N ...
 * store it now") stays off the test run's output; a failure throws with it.
 */
export async function createKey(stateFile: string, plan: string, name: string): Promise<string> {
  const run = await hcas(['keys', 'create', '--plan', plan, '--name', name, '--state-file', stateFile]);
  if (run.code !== 0) throw new Error(`hcas keys create --plan ${plan} failed (${run.code}): ${run.stderr}`);
  return run.stdout.trim();
}

/** Resident memory of one process, in MiB (Linux: /proc). */
export function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN);
  return kb / 1024;
}

/** The process and its descendants (a cluster primary and its workers). */
export function processTree(pid: number): number[] {
  let children: number[] = [];
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    // gone, or a kernel without the children file: the process alone
  }
  return [pid, ...children.flatMap(processTree)];
}

/** Resident memory of a process and its descendants, in MiB. */
export function treeRssMb(pid: number): number {
  return processTree(pid).reduce((sum, p) => {
    try {
      return sum + rssMb(p);
    } catch {
      return sum; // exited while we looked
    }
  }, 0);
}

/** The heap and buffers this process holds after a full collection, in MiB (precise where RSS is noisy). */
export function heldMb(): number {
  collectGarbage();
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return (heapUsed + arrayBuffers) / 2 ** 20;
}

let gc: (() => void) | undefined;
/** A full garbage collection, without starting the test process with --expose-gc. */
export function collectGarbage(): void {
  if (!gc) {
    // The flag makes `gc` a global of contexts created after it is set.
    v8.setFlagsFromString('--expose-gc');
    gc = vm.runInNewContext('gc') as () => void;
  }
  gc();
  gc();
}

/** Outcome of one request: its status, or the network error that replaced it. */
export type Outcome = { status: number; result?: HttpResult } | { status: 0; error: string };

/** One request, its failure recorded instead of thrown. */
export async function attempt(base: string, path: string, headers: Record<string, string> = {}): Promise<Outcome> {
  try {
    const result = await request(base, path, { headers });
    return { status: result.status, result };
  } catch (error) {
    return { status: 0, error: (error as NodeJS.ErrnoException).code ?? String(error) };
  }
}

/**
 * `clients` loops of `perClient` requests each, one after another within a loop, all loops at once: a
 * bounded load. `pathOf(client, i)` picks each path; `between(done)` runs after every request (a test
 * sabotages the server at a chosen count).
 */
export async function load(
  base: string,
  clients: number,
  perClient: number,
  pathOf: (client: number, i: number) => string,
  between: (done: number) => void | Promise<void> = () => {},
  headers: Record<string, string> = {},
): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  await Promise.all(
    Array.from({ length: clients }, async (_, client) => {
      for (let i = 0; i < perClient; i++) {
        outcomes.push(await attempt(base, pathOf(client, i), headers));
        await between(outcomes.length);
      }
    }),
  );
  return outcomes;
}

/** Count of each status (0: a network error) in outcomes, for readable assertions. */
export function tally(outcomes: ReadonlyArray<{ status: number }>): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const outcome of outcomes) counts[outcome.status] = (counts[outcome.status] ?? 0) + 1;
  return counts;
}

/** A copy of `fixture` at `to` with another build id (as a new build would be). */
export function rebuiltCopy(fixture: string, to: string, buildId: string): string {
  copyFileSync(fixture, to);
  const db = new Database(to);
  db.pragma('journal_mode = DELETE');
  db.prepare("UPDATE meta SET value = ? WHERE key = 'build_id'").run(JSON.stringify(buildId));
  db.close();
  return to;
}

/** Polls `check` every `everyMs` until it returns true; fails with `what` after `timeoutMs`. */
export async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 20_000, everyMs = 100): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** A raw TCP connection to the server, for clients that misbehave below HTTP. */
export function connect(port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => resolve(socket));
    socket.once('error', reject);
  });
}

/** A TCP port free on loopback now (for a server that must keep its port across restarts of its workers). */
export { freePort } from '../helpers/nginx.ts';

/**
 * A copy of the fixture grown to national size for the overall score: its 297 ZIPs 120 times over (about
 * 36,000, as many as the country has), under new ZIP codes from 30301, so `health-scores/geojson/` is as
 * large as on a national build (about 6 MB), with a KD-tree of every point.
 */
export function nationalCopy(fixture: string, to: string): string {
  copyFileSync(fixture, to);
  const db = new Database(to);
  const copies = `json_each('[${Array.from({ length: 120 }, (_, i) => i + 1).join(',')}]')`;
  db.exec(`
    CREATE TEMP TABLE base AS SELECT row_number() OVER (ORDER BY zip_code) AS r, * FROM zips;
    INSERT INTO zips SELECT printf('%05d', 30000 + c.value * 300 + b.r), state, state_name, city, county_fips, cbsa_code, urban_rural_code,
      latitude + c.value * 0.001, longitude, land_sqmi, population, kd_index + 100000 * c.value, small_population, road_times, imputed,
      point_source, gazetteer_latitude, gazetteer_longitude, clinician_basis
      FROM base b, ${copies} c;
    INSERT INTO health_scores (zip_code, score_type_id, state, healthscore, people_score, provider_score, hospital_score, travel_score, label, grade, color, prevalence_used)
      SELECT printf('%05d', 30000 + c.value * 300 + b.r), h.score_type_id, h.state, (h.healthscore + c.value) % 101, h.people_score, h.provider_score,
        h.hospital_score, h.travel_score, h.label, h.grade, h.color, h.prevalence_used
      FROM health_scores h JOIN base b ON b.zip_code = h.zip_code, ${copies} c WHERE h.score_type_id = 1;`);
  // The KD-tree of every point, in ZIP order, so nearby/ answers on the copy too.
  const points = db.prepare('SELECT zip_code, longitude, latitude FROM zips ORDER BY zip_code').all() as Array<{
    zip_code: string;
    longitude: number;
    latitude: number;
  }>;
  const tree = new KDBush(points.length);
  const renumber = db.prepare('UPDATE zips SET kd_index = ? WHERE zip_code = ?');
  db.transaction(() => {
    db.exec('UPDATE zips SET kd_index = -1 - kd_index');
    points.forEach((point, i) => {
      tree.add(point.longitude, point.latitude);
      renumber.run(i, point.zip_code);
    });
  })();
  tree.finish();
  db.prepare("UPDATE kdtree SET data = ? WHERE name = 'zips'").run(Buffer.from(tree.data as ArrayBuffer));
  db.close();
  return to;
}

/** A copy of `fixture` at `to` with `times` times its providers (new NPIs): exports far larger than socket buffers hold. */
export function manyProvidersCopy(fixture: string, to: string, times: number): string {
  copyFileSync(fixture, to);
  const grow = new Database(to);
  grow.exec(`INSERT INTO providers SELECT printf('9%09d', p.rowid * 100 + n.value), first_name, last_name, credential, gender, primary_taxonomy,
    primary_specialty, telehealth, address, city, state, zip_code, zcta, phone, medical_school, residency, graduation_year, facility_names
    FROM providers p, json_each('[${Array.from({ length: times }, (_, i) => i + 1).join(',')}]') n`);
  grow.close();
  return to;
}

/** CPU time (jiffies) the whole machine spent busy, and the time spent by the given processes. */
function cpuTicks(pids: number[]): { busy: number; ours: number } {
  const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).map(Number);
  // user nice system idle iowait irq softirq steal: busy is all but idle and iowait.
  const busy = fields.slice(0, 8).reduce((sum, value, i) => (i === 3 || i === 4 ? sum : sum + value), 0);
  let ours = 0;
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const after = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ours += Number(after[11]) + Number(after[12]); // utime, stime
    } catch {
      // exited while we looked
    }
  }
  return { busy, ours };
}

/**
 * Runs `work` and measures how many cores other processes of the machine kept busy meanwhile (busy CPU time
 * of the whole machine minus that of `pids`, this process and their children, over the wall time): a timing
 * measured while others held the cores says nothing about the code under test.
 */
export async function othersCores<T>(
  pids: () => number[],
  work: () => Promise<T>,
): Promise<{ result: T; othersCores: number; ioStalled: number }> {
  const tree = () => [...new Set([process.pid, ...pids()].flatMap(processTree))];
  const startedAt = Date.now();
  const start = cpuTicks(tree());
  const stalledBefore = ioStallMicroseconds();
  const result = await work();
  const end = cpuTicks(tree());
  const ticksPerSecond = 100; // USER_HZ on Linux
  const seconds = (Date.now() - startedAt) / 1000;
  const others = end.busy - start.busy - (end.ours - start.ours);
  const ioStalled = (ioStallMicroseconds() - stalledBefore) / 1e6 / seconds;
  return { result, othersCores: Math.max(0, others / ticksPerSecond / seconds), ioStalled };
}

/**
 * Microseconds in which some task of the machine waited for the disk, so far (Linux pressure stall
 * information, `some`; NaN where the kernel has none): other processes writing many files make the server's
 * own small writes wait, which no count of their CPU shows.
 */
function ioStallMicroseconds(): number {
  try {
    return Number(/^some .*total=(\d+)/m.exec(readFileSync('/proc/pressure/io', 'utf8'))?.[1] ?? Number.NaN);
  } catch {
    return Number.NaN;
  }
}
