import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { packageVersion } from '../../core/package.ts';
import type { CountProgressFactory } from '../../core/progress.ts';
import { FixableError } from '../../core/errors.ts';
import type { Api } from '../api/index.ts';
import type { AccessTable } from '../auth/access.ts';
import { blogTime } from '../query/blog.ts';
import { StaticKeyQueries } from '../query/static-keys.ts';
import { AnswerWriter, describeFile, type WrittenFile } from './files.ts';
import { formatHeaders, HEADERS_FILE, headerRules } from './host-headers.ts';
import { MANIFEST_FILE, MANIFEST_FORMAT, ManifestWriter, manifestPaths, readManifestHeader, type ManifestHeader } from './manifest.ts';
import { fileOf, paidReason, SERVER_ONLY, STATIC_ROUTES, urlOf, type KeySource, type StaticRoute } from './targets.ts';

export interface StaticExportOptions {
  /**
   * The build to export, opened with the clock `now` (the blog's answers depend on it) and no response cache
   * (every answer is asked once): `Api.open(file, { cacheBytes: 0, now: () => now })`. The caller retires it.
   */
  api: Api;
  /** The export's folder: created, or replaced as a whole when it holds an earlier export. */
  out: string;
  /** The index document of a folder path (`index.json`; `index.html` for hosts that only know that name). */
  indexName: string;
  /** Also every provider's profile (four million files at national scale). */
  providers: boolean;
  /**
   * The plans in force (`--plans`, HCAS_PLANS): only the routes callers without a key may read under them are
   * written, since anyone who reaches the files reads them with no key and no quota; the paid ones are left to
   * the server, which asks for a key (`paidReason`).
   */
  access: AccessTable;
  /** Also the paid plans' routes (`--publish-paid-answers`), for anyone who can reach the files. */
  paidAnswers?: boolean;
  /** Only the routes this returns true for (`--endpoints`, `--no-lists`); of the above, every route by default. */
  routeFilter?: (routePath: string) => boolean;
  progress: CountProgressFactory;
  /** The time the answers are made at, the clock of `api`: the blog shows the posts published by then. */
  now: Date;
}

export interface StaticExportSummary {
  out: string;
  buildId: string;
  /** Answers written, files written (answers and their .gz and .br, and _headers), bytes of all files. */
  answers: number;
  files: number;
  bytes: number;
  /** Answers with the same bytes in the previous export (kept as they were), and the rest. */
  unchanged: number;
  changed: number;
  added: number;
  /** Files of the previous export that this one has not. */
  removed: number;
  /** Paths the API answers 404 (a ZIP code without TVI, an alias without a list of its own): left to the server. */
  notFound: number;
  /** Routes of paid plans left to the server (none with `paidAnswers`). */
  paidLeft: number;
  validUntil: string | null;
  seconds: number;
}

/**
 * `hcas export-static`: every answer of STATIC_ROUTES, made by the same dispatcher and handlers as the server
 * (so each file is byte for byte the body the server sends for its path), with `.gz` and `.br` beside it and a
 * manifest. Written into a new folder beside `out` and renamed into place at the end, so a failed export leaves
 * the previous one as it was, and nginx (which falls back to the replicas) never serves a half-written one;
 * the folder of one killed midway is removed by the next.
 */
export async function exportStatic(options: StaticExportOptions): Promise<StaticExportSummary> {
  const started = performance.now();
  const out = path.resolve(options.out);
  const previous = previousExport(out);
  const { api, now } = options;
  removeAbandoned(out);
  const staging = `${out}.tmp-${process.pid}`;
  const manifest = new ManifestWriter(ensureFolder(staging));
  try {
    const { routes, paid } = chooseRoutes(options);
    const writer = new AnswerWriter(staging, previous === undefined ? undefined : out);
    const { counts, routeRows } = await writeAnswers(routes, options, writer, manifest);
    const headersFile = writeHostHeaders(staging, routeRows, api.buildId);
    manifest.add([headersFile]);
    counts.files++;
    counts.bytes += headersFile.bytes;
    const removed = previous === undefined ? 0 : await countRemoved(out, staging);
    const next = api.queries.blog.nextPublication(blogTime(now));
    manifest.finish({
      format: MANIFEST_FORMAT,
      build_id: api.buildId,
      built_at: api.queries.meta.built_at,
      hcas_version: packageVersion(),
      exported_at: now.toISOString(),
      index_name: options.indexName,
      providers: options.providers,
      plan: options.paidAnswers ? null : options.access.planSet.anonymous.access.id,
      paid_answers: options.paidAnswers === true,
      valid_until: next ?? null,
      previous_build_id: previous?.build_id ?? null,
      totals: { answers: counts.answers, files: counts.files, bytes: counts.bytes, not_found: counts.notFound },
      routes: routeRows,
      server_only: [
        ...Object.entries(SERVER_ONLY).map(([routePath, reason]) => ({ path: routePath, reason })),
        ...paid.map((route) => ({ path: route.path, reason: paidReason(options.access, route.path)! })),
      ],
    });
    swapInto(staging, out);
    const seconds = (performance.now() - started) / 1000;
    return { out, buildId: api.buildId, ...counts, removed, paidLeft: paid.length, validUntil: next ?? null, seconds };
  } catch (error) {
    manifest.abandon();
    rmSync(staging, { recursive: true, force: true });
    throw error;
  }
}

/** The routes to write (those the options name, less the paid ones unless `paidAnswers`), and the paid ones left out. */
function chooseRoutes(options: StaticExportOptions): { routes: StaticRoute[]; paid: StaticRoute[] } {
  const chosen = STATIC_ROUTES.filter((route) => (options.providers || !route.providers) && (options.routeFilter?.(route.path) ?? true));
  const paid = options.paidAnswers ? [] : chosen.filter((route) => paidReason(options.access, route.path) !== undefined);
  return { routes: chosen.filter((route) => !paid.includes(route)), paid };
}

/** Asks the dispatcher for every answer of the routes and writes each with its .gz and .br; counts and the routes' rows. */
async function writeAnswers(routes: readonly StaticRoute[], options: StaticExportOptions, writer: AnswerWriter, manifest: ManifestWriter) {
  const { api, now } = options;
  const source: KeySource = { queries: api.queries, keys: new StaticKeyQueries(api.db), now };
  const plans = routes.map((route) => ({ route, keys: route.keys?.(source) }));
  const total = plans.reduce((sum, { route, keys }) => sum + keyCount(route, keys, source), 0);
  const progress = options.progress('export-static');
  const counts = { answers: 0, files: 0, bytes: 0, unchanged: 0, changed: 0, added: 0, notFound: 0 };
  const routeRows: ManifestHeader['routes'] = [];
  let asked = 0;
  try {
    for (const { route, keys } of plans) {
      const row = { path: route.path, answers: 0, not_found: 0, headers: {} as Record<string, string> };
      routeRows.push(row);
      for (const key of keys ?? [undefined]) {
        const url = urlOf(route.path, key);
        const response = await api.respond({ method: 'GET', url });
        progress.update(++asked, total);
        if (response.status === 404) {
          row.not_found++;
          counts.notFound++;
          continue;
        }
        if (response.status !== 200 || response.stream) {
          response.stream?.destroy();
          throw new Error(`GET ${url} answered ${response.status}, not a 200 with a body: ${response.body.toString('utf8').slice(0, 300)}`);
        }
        if (row.answers++ === 0) row.headers = headersOf(response.headers);
        counts.answers++;
        const written = writer.write(fileOf(url, route.index ?? options.indexName), response.body);
        manifest.add(written.files);
        counts[written.state]++;
        counts.files += written.files.length;
        for (const file of written.files) counts.bytes += file.bytes;
      }
    }
  } finally {
    progress.done();
  }
  return { counts, routeRows };
}

/** `_headers` (src/static/host-headers.ts): the headers of the routes written, for Netlify and Cloudflare Pages. */
function writeHostHeaders(folder: string, routes: ManifestHeader['routes'], buildId: string): WrittenFile {
  const text = formatHeaders(headerRules(routes), [
    `The headers hcas serve sends with these files (build ${buildId}), for hosts that read a ${HEADERS_FILE} file:`,
    'Netlify and Cloudflare Pages (export with --index-name index.html for them). Written by hcas export-static.',
  ]);
  const body = Buffer.from(text);
  writeFileSync(path.join(folder, HEADERS_FILE), body);
  return describeFile(HEADERS_FILE, body);
}

/** The earlier export in `out`, if any; a folder that is neither empty nor an export is refused, never replaced. */
function previousExport(out: string): ManifestHeader | undefined {
  if (!existsSync(out)) return undefined;
  const header = readManifestHeader(out);
  if (header === undefined && readdirSync(out).length > 0) {
    throw new FixableError(
      `${out} is not an hcas static export (it has no ${MANIFEST_FILE}) and is not empty: name a new or empty folder with --out, since an export replaces its folder as a whole`,
    );
  }
  return header;
}

/**
 * Removes the folders an export killed midway left beside `out` (its `.tmp-PID` staging folder, and the
 * `.old-PID` of one killed between its two renames): a killed national export leaves hundreds of thousands
 * of files. Only those of processes that are gone: an export running now into the same folder keeps its own.
 */
function removeAbandoned(out: string): void {
  const parent = path.dirname(out);
  const prefix = `${path.basename(out)}.`;
  let names: string[];
  try {
    names = readdirSync(parent);
  } catch {
    return; // no parent folder yet: nothing was left there
  }
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const pid = /^(?:tmp|old)-(\d+)$/.exec(name.slice(prefix.length))?.[1];
    if (pid !== undefined && Number(pid) !== process.pid && !processRuns(Number(pid)))
      rmSync(path.join(parent, name), { recursive: true, force: true });
  }
}

/** Whether a process of that id exists (signal 0 checks without sending; EPERM: it exists, another user's). */
function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A new, empty folder. */
function ensureFolder(folder: string): string {
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(folder, { recursive: true });
  return folder;
}

function keyCount(route: StaticRoute, keys: Iterable<unknown> | undefined, source: KeySource): number {
  if (keys === undefined) return 1;
  return route.count?.(source) ?? (Array.isArray(keys) ? keys.length : 0);
}

/** A route's headers as the server sends them, less those that differ by file (length, tag). */
function headersOf(headers: Readonly<Record<string, string | number>>): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (name !== 'Content-Length' && name !== 'ETag') kept[name] = String(value);
  return kept;
}

/** Files of the previous export that the new one has not (a ZIP code retired, a facility closed). */
async function countRemoved(out: string, staging: string): Promise<number> {
  let removed = 0;
  for await (const file of manifestPaths(out)) if (!existsSync(path.join(staging, file))) removed++;
  return removed;
}

/** Renames the new export into place and removes the old one; between the two renames the folder is briefly absent. */
function swapInto(staging: string, out: string): void {
  if (!existsSync(out)) {
    renameSync(staging, out);
    return;
  }
  const old = `${out}.old-${process.pid}`;
  rmSync(old, { recursive: true, force: true });
  renameSync(out, old);
  renameSync(staging, out);
  rmSync(old, { recursive: true, force: true });
}
