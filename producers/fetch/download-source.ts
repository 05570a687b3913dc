import { existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileChecksum } from '../../pipeline/base/checksum.ts';
import { BuildError } from '../../pipeline/base/errors.ts';
import { LAYOUTS } from '../../pipeline/layouts/index.ts';
import { discoverUrl, jsonPath } from './discover.ts';
import { readHeader, missingColumns } from './header.ts';
import { downloadFile, fetchText, HttpError, type HttpOptions } from './http.ts';
import { type FetchLog, type FetchRecord, writeFetchLog } from './log.ts';
import { type ByteProgressFactory, formatBytes } from '../../core/progress.ts';
import { expandEnv, redact, type SourceEntry } from './sources.ts';
import { jsonRecordsToCsv, unpackZipMember } from './unpack.ts';

/** What a source contributes to the manifest once its file is on disk and checked. */
export interface FetchedFile {
  key: string;
  /** Absolute path of the file the manifest names. */
  path: string;
  bytes: number;
  sha256: string;
  vintage: string;
  /** Where it came from, for `retrieved_from` (secrets redacted; the zip member named). */
  retrievedFrom: string;
  retrievedAt: string;
}

export interface SourceContext {
  outDir: string;
  sourcesFile: string;
  env: NodeJS.ProcessEnv;
  http: HttpOptions;
  progress: ByteProgressFactory;
  log: (line: string) => void;
  fetchLog: FetchLog;
  now: () => Date;
}

/**
 * Downloads one source (or finds it complete from an earlier run), unpacks it, checks its columns against
 * its layout and records it in fetched.json. Every failure is a BuildError naming the source, the address
 * or file, and the fix.
 */
export async function downloadSource(entry: SourceEntry, context: SourceContext): Promise<FetchedFile> {
  const { outDir, env } = context;
  const secret = (text: string) => redact(text, entry, env);
  const dir = path.join(outDir, entry.key);
  mkdirSync(dir, { recursive: true });
  const headers = Object.fromEntries(Object.entries(entry.headers).map(([name, value]) => [name, expandEnv(value, env).text]));
  const http: HttpOptions = { ...context.http, headers, onRetry: (message) => context.log(`  ${entry.key}: ${secret(message)}`) };
  const rule = entry.discover;
  // The address being asked for, named in any error: the listing or catalogue first, then the file.
  let asking = expandEnv(rule ? (rule.kind === 'json' ? rule.json : rule.listing) : entry.url!, env).text;
  try {
    const url = rule ? await discoverUrl(entry, rule, asking, context.sourcesFile, http) : asking;
    asking = url;
    const shown = secret(url);
    const record = context.fetchLog.records[entry.key];
    const complete = completeFile(record, shown, entry, outDir);
    if (complete) return await upToDate(entry, context, record!, complete);
    if (entry.checkLabels) {
      asking = expandEnv(entry.checkLabels.url, env).text;
      await checkLabels(entry, asking, context, http);
      asking = url;
    }
    let download = earlierDownload(record, shown, outDir);
    if (download) context.log(`  ${entry.key.padEnd(26)} downloaded earlier: ${download.path}`);
    else download = await freshDownload(entry, context, { url, shown, dir, http, secret });
    return await unpackAndRecord(entry, context, { record, shown, download, dir });
  } catch (error) {
    if (error instanceof HttpError) throw httpFailure(entry, secret(asking), error, context);
    if (error instanceof BuildError) error.message = secret(error.message);
    throw error;
  }
}

/** A source whose file is here already and complete: checked, logged, and answered from the fetch log. */
async function upToDate(
  entry: SourceEntry,
  context: SourceContext,
  record: FetchRecord,
  complete: { path: string; bytes: number; sha256: string },
): Promise<FetchedFile> {
  await checkColumns(entry, complete.path, context.sourcesFile);
  context.log(`  ${entry.key.padEnd(26)} up to date (${formatBytes(complete.bytes)}, ${path.relative(context.outDir, complete.path)})`);
  return {
    key: entry.key,
    path: complete.path,
    bytes: complete.bytes,
    sha256: complete.sha256,
    vintage: record.vintage,
    retrievedFrom: retrievedFrom(record),
    retrievedAt: record.download?.retrieved_at ?? '',
  };
}

/** The download the log records for the same address, when its file is still here at its size (an unpack failed after it). */
function earlierDownload(record: FetchRecord | undefined, shown: string, outDir: string): FetchRecord['download'] | null {
  return record?.url === shown &&
    record.download &&
    existsSync(path.join(outDir, record.download.path)) &&
    statSync(path.join(outDir, record.download.path)).size === record.download.bytes
    ? record.download
    : null;
}

/** Downloads the file (resuming a partial one), keeps a redirect's real name, and checks the published checksum. */
async function freshDownload(
  entry: SourceEntry,
  context: SourceContext,
  { url, shown, dir, http, secret }: { url: string; shown: string; dir: string; http: HttpOptions; secret: (text: string) => string },
): Promise<NonNullable<FetchRecord['download']>> {
  const name = entry.filename ?? safeName(url, `${entry.key}.download`);
  let target = path.join(dir, name);
  const started = Date.now();
  const result = await downloadFile(url, target, {
    ...http,
    progress: context.progress(entry.key),
    refuseContentType: (type) =>
      /text\/html/i.test(type) && !/\.html?$/i.test(name)
        ? `answered with an HTML page (${type}), not the data file${envHint(entry)}`
        : null,
  });
  // A redirect may lead to the file's real name (a catalogue's download link); keep that name.
  const finalName = safeName(result.finalUrl, name);
  if (!entry.filename && finalName !== name && /\.[A-Za-z0-9]+$/.test(finalName)) {
    const renamed = path.join(dir, finalName);
    renameSync(target, renamed);
    target = renamed;
  }
  const sum = await fileChecksum(target);
  if (entry.sha256 && sum.sha256 !== entry.sha256.toLowerCase()) {
    rmSync(target, { force: true });
    throw new BuildError(
      `source "${entry.key}": ${shown} gave a file whose SHA-256 is ${sum.sha256}, not the published ${entry.sha256}. The file was deleted; run hcas fetch again. If it differs again, the publisher changed the file: update sources.${entry.key}.sha256 in ${context.sourcesFile} from the publisher's page (${entry.sourceUrl}).`,
    );
  }
  const seconds = (Date.now() - started) / 1000;
  context.log(
    `  ${entry.key.padEnd(26)} downloaded ${formatBytes(sum.bytes)} in ${seconds.toFixed(1)} s${result.resumedFrom > 0 ? ` (resumed at ${formatBytes(result.resumedFrom)})` : ''}${result.attempts > 1 ? ` after ${result.attempts} attempts` : ''}`,
  );
  return {
    path: path.relative(context.outDir, target),
    final_url: secret(result.finalUrl),
    bytes: sum.bytes,
    sha256: sum.sha256,
    published_sha256: entry.sha256 ?? null,
    etag: result.etag,
    last_modified: result.lastModified,
    retrieved_at: context.now().toISOString(),
  };
}

/**
 * Records the download in the fetch log, unpacks it where the source says so (a ZIP member, JSON records to
 * CSV), checks the columns, and removes what it supersedes: the file the build reads.
 */
async function unpackAndRecord(
  entry: SourceEntry,
  context: SourceContext,
  {
    record,
    shown,
    download,
    dir,
  }: { record: FetchRecord | undefined; shown: string; download: NonNullable<FetchRecord['download']>; dir: string },
): Promise<FetchedFile> {
  const { outDir } = context;
  const superseded = record && record.url !== shown ? record : null;
  // `{file}`: the name the file has here (a discovered release names its own month or version).
  const vintage = entry.vintage.replace('{file}', path.basename(download.path));
  const next: FetchRecord = { url: shown, vintage, download, file: null };
  context.fetchLog.records[entry.key] = next;
  writeFetchLog(context.fetchLog);

  const downloaded = path.join(outDir, download.path);
  const where = `source "${entry.key}"`;
  const unpacked =
    entry.unpack?.kind === 'zip_member'
      ? await unpackZipMember(downloaded, entry.unpack.member, dir, where)
      : entry.unpack?.kind === 'json_records'
        ? await jsonRecordsToCsv(downloaded, entry.unpack.path, path.join(dir, entry.unpack.to), where)
        : { file: downloaded, member: null };
  await checkColumns(entry, unpacked.file, context.sourcesFile);
  const sum = unpacked.file === downloaded ? { sha256: download.sha256, bytes: download.bytes } : await fileChecksum(unpacked.file);
  next.file = { path: path.relative(outDir, unpacked.file), bytes: sum.bytes, sha256: sum.sha256, member: unpacked.member };
  // The archive has served its purpose (its checksum stays in the log); an unpacked NPPES zip is 1 GB.
  if (unpacked.file !== downloaded) rmSync(downloaded, { force: true });
  if (superseded) removeSuperseded(superseded, next, outDir, context.log, entry.key);
  writeFetchLog(context.fetchLog);
  if (unpacked.file !== downloaded)
    context.log(
      `  ${''.padEnd(26)} unpacked ${unpacked.member ?? path.basename(unpacked.file)} -> ${next.file.path} (${formatBytes(sum.bytes)})`,
    );
  return {
    key: entry.key,
    path: unpacked.file,
    bytes: sum.bytes,
    sha256: sum.sha256,
    vintage,
    retrievedFrom: retrievedFrom(next),
    retrievedAt: download.retrieved_at,
  };
}

/** The last segment of a URL's path as a local file name: never a path, never hidden; `fallback` when empty. */
export function safeName(url: string, fallback: string): string {
  let segment = new URL(url).pathname.split('/').pop() ?? '';
  try {
    segment = decodeURIComponent(segment);
  } catch {
    // A malformed escape: keep the segment as it is.
  }
  const name = path.basename(segment.replace(/\\/g, '/')).replace(/^\.+/, '');
  return name || fallback;
}

/** The recorded file, when it is still on disk at its recorded size and came from the same address. */
function completeFile(
  record: FetchRecord | undefined,
  shown: string,
  entry: SourceEntry,
  outDir: string,
): { path: string; bytes: number; sha256: string } | null {
  if (!record?.file || record.url !== shown) return null;
  if (entry.sha256 && record.download?.sha256 !== entry.sha256.toLowerCase()) return null;
  const file = path.join(outDir, record.file.path);
  if (!existsSync(file) || statSync(file).size !== record.file.bytes) return null;
  return { path: file, bytes: record.file.bytes, sha256: record.file.sha256 };
}

function retrievedFrom(record: FetchRecord): string {
  const member = record.file?.member;
  return member ? `${record.download?.final_url ?? record.url} (member ${member})` : (record.download?.final_url ?? record.url);
}

function removeSuperseded(old: FetchRecord, next: FetchRecord, outDir: string, log: (line: string) => void, key: string): void {
  const keep = new Set([next.download?.path, next.file?.path]);
  for (const file of [old.download?.path, old.file?.path]) {
    if (file && !keep.has(file) && existsSync(path.join(outDir, file))) {
      rmSync(path.join(outDir, file), { force: true });
      log(`  ${key.padEnd(26)} removed the superseded ${file}`);
    }
  }
}

/** Fails with the missing column, the file, and where to map it, when the file lacks what the build reads. */
export async function checkColumns(entry: SourceEntry, file: string, sourcesFile: string): Promise<void> {
  const layout = LAYOUTS.get(entry.layout)!;
  let header: string[];
  try {
    header = await readHeader(file);
  } catch (error) {
    throw new BuildError(`source "${entry.key}": cannot read the header of ${file}: ${(error as Error).message}`);
  }
  const missing = missingColumns(header, { layout, columns: entry.columns, expectColumns: entry.expectColumns });
  if (missing.length === 0) return;
  const first = missing[0];
  const what =
    first.field === null
      ? `column ${JSON.stringify(first.wanted[0])} (listed in sources.${entry.key}.expect_columns)`
      : `column ${first.wanted.map((name) => JSON.stringify(name)).join(' or ')} for field "${first.field}" of layout ${entry.layout}`;
  const fix =
    first.field === null
      ? `remove it from expect_columns only if the build no longer needs it`
      : `find the column that now holds it and set sources.${entry.key}.columns.${first.field} in ${sourcesFile} (it is copied into the manifest)`;
  const others =
    missing.length > 1
      ? ` Also missing: ${missing
          .slice(1)
          .map((m) => m.wanted[0])
          .join(', ')}.`
      : '';
  throw new BuildError(
    `source "${entry.key}": ${file} has no ${what}: the publisher changed the file's layout. To fix it, ${fix}.${others} ` +
      `Header: ${header.slice(0, 15).join(', ')}${header.length > 15 ? ', ...' : ''}`,
  );
}

/** Census API variable numbers move between vintages: check each one's label before trusting the numbers. */
async function checkLabels(entry: SourceEntry, url: string, context: SourceContext, http: HttpOptions): Promise<void> {
  const answer = await fetchText(url, http);
  let variables: unknown;
  try {
    variables = jsonPath(JSON.parse(answer.text), 'variables');
  } catch {
    throw new BuildError(
      `source "${entry.key}": ${redact(url, entry, context.env)} did not answer JSON (it starts ${JSON.stringify(answer.text.slice(0, 80))})${envHint(entry)}`,
    );
  }
  const wrong: string[] = [];
  for (const [name, expected] of Object.entries(entry.checkLabels!.labels)) {
    const label = jsonPath(variables, `${name}.label`);
    // The label's last part names the measure ("Percent!!...!!No health insurance coverage"); a moved number names another.
    const measure = typeof label === 'string' ? (label.split('!!').pop() ?? '').trim().replace(/:$/, '') : null;
    if (measure === null) wrong.push(`${name} does not exist`);
    else if (!measure.toLowerCase().startsWith(expected.toLowerCase())) wrong.push(`${name} is "${label}", not "${expected}"`);
  }
  if (wrong.length > 0) {
    throw new BuildError(
      `source "${entry.key}": the variables of this vintage are not the ones the source list expects: ${wrong.join('; ')}. ` +
        `Find each measure's variable in ${redact(url, entry, context.env)} and update sources.${entry.key} (its url, columns and check_labels) in ${context.sourcesFile}.`,
    );
  }
}

function envHint(entry: SourceEntry): string {
  const names = Object.keys(entry.env);
  return names.length ? `; check ${names.join(' and ')} (${names.map((n) => entry.env[n]).join('; ')})` : '';
}

function httpFailure(entry: SourceEntry, shown: string, error: HttpError, context: SourceContext): BuildError {
  const { sourcesFile, outDir } = context;
  const field = entry.discover ? 'discover' : 'url';
  let fix: string;
  if (error.status === 404 || error.status === 410) {
    fix = `The file is not at that address any more: find it on ${entry.sourceUrl} and update sources.${entry.key}.${field} in ${sourcesFile}.`;
  } else if (error.status === 401 || error.status === 403) {
    fix = Object.keys(entry.env).length
      ? `The server refused the request${envHint(entry)}.`
      : `The server refused the request: open the address in a browser to see why.`;
  } else if (error.retryable) {
    const part = path.join(outDir, entry.key);
    fix = `Run hcas fetch again: it resumes from the partial file in ${part}.`;
  } else if (error.status === null) {
    fix = '';
  } else {
    fix = `Open the address in a browser to see what it serves, and fix sources.${entry.key} in ${sourcesFile}.`;
  }
  const said = error.body.trim() ? ` The server said: ${JSON.stringify(error.body.trim().slice(0, 200))}.` : '';
  const names = Object.keys(entry.env);
  const instead = entry.fallback && names.length ? ` Or unset ${names.join(' and ')} to use the bundled extract instead.` : '';
  return new BuildError(
    redact(`source "${entry.key}": ${shown} ${error.message}.${said}${fix ? ` ${fix}` : ''}${instead}`, entry, context.env),
  );
}
