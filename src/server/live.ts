import path from 'node:path';
import { Api, type ApiOptions } from '../api/index.ts';
import type { CheckedBuild } from './build-check.ts';
import type { BuildSource, ReloadRecord } from './build-source.ts';
import type { LineLog } from './log.ts';
import { ServingState } from './serving-state.ts';

/**
 * The API of the build being served, replaced when a new build is ready. A swap opens the new file first
 * and only then replaces `current` (one assignment, so every request sees one build or the other); the old
 * build closes its database once its in-flight requests are done. The files come checked (BuildKeeper).
 * The serving state (`/readyz`) follows: the build served, and a `database` check that is degraded while
 * the last attempt to take a new file has failed (the previous build still serving).
 */
export class LiveApi {
  current: Api;
  readonly state: ServingState;
  lastReload: ReloadRecord | undefined;
  /** Reloads that swapped the build, and attempts whose file failed its checks. */
  readonly reloads = { ok: 0, failed: 0 };
  /** Response-cache hits and misses of the builds already retired (the metrics count across reloads). */
  private readonly retiredCache = { hits: 0, misses: 0 };

  private readonly source: BuildSource;
  private readonly options: ApiOptions;
  private readonly events: LineLog;

  constructor(source: BuildSource, options: ApiOptions, events: LineLog, state?: ServingState) {
    this.source = source;
    this.options = options;
    this.events = events;
    this.current = Api.open(source.first.file, options);
    this.state = state ?? new ServingState(servedBuild(this.current));
    this.state.build = servedBuild(this.current);
    this.state.setCheck('database', () => this.check());
    source.subscribe({ build: (build, reason) => this.swap(build, reason), failed: (record) => this.failed(record) });
  }

  /** Asks for the database file to be taken again (SIGHUP): checked first, swapped if good. */
  reload(reason: string): void {
    this.source.refresh(reason);
  }

  /** The `database` check of `/readyz`. */
  check(): { status: 'ok' | 'degraded' | 'failing'; detail?: string; file: string; last_reload?: ReloadRecord } {
    const file = path.basename(this.source.file);
    const last = this.lastReload && { last_reload: this.lastReload };
    if (!this.current.db.open) return { status: 'failing', detail: 'the database is closed', file, ...last };
    if (this.source.damaged()) {
      const detail = `${file} was changed in place and is not a valid build (${this.lastReload?.error}); it is served in place (--no-snapshot), so answers may fail until a good file is renamed into place`;
      return { status: 'failing', detail, file, ...last };
    }
    if (this.lastReload && !this.lastReload.ok) {
      return {
        status: 'degraded',
        detail: `${file} changed and is not a valid build (${this.lastReload.error}); serving the last good build, ${this.current.buildId}`,
        file,
        ...last,
      };
    }
    return { status: 'ok', file, ...last };
  }

  /** Response-cache hits and misses across every build this server has served. */
  cacheStats(): { hits: number; misses: number; entries: number; bytes: number } {
    const now = this.current.cacheStats();
    return { ...now, hits: now.hits + this.retiredCache.hits, misses: now.misses + this.retiredCache.misses };
  }

  /** Opens a checked build and swaps to it; returns false (and logs why) when it cannot be opened. */
  swap(build: Pick<CheckedBuild, 'file' | 'buildId'>, reason: string): boolean {
    const previous = this.current;
    const time = new Date().toISOString();
    let next: Api;
    try {
      next = Api.open(build.file, this.options);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.failed({ time, reason, ok: false, buildId: previous.buildId, error: message });
      this.events({ time, level: 'error', event: 'reload_failed', reason, pid: process.pid, error: message, build_id: previous.buildId });
      return false;
    }
    this.current = next;
    const { hits, misses } = previous.cacheStats();
    this.retiredCache.hits += hits;
    this.retiredCache.misses += misses;
    previous.retire();
    this.state.build = servedBuild(next);
    this.lastReload = { time, reason, ok: true, buildId: next.buildId };
    this.reloads.ok++;
    this.events({
      time,
      level: 'info',
      event: 'reload',
      reason,
      pid: process.pid,
      build_id: next.buildId,
      previous_build_id: previous.buildId,
    });
    return true;
  }

  /** Records an attempt whose file failed its checks: the current build stays, `/readyz` says degraded. */
  failed(record: ReloadRecord): void {
    this.lastReload = record;
    this.reloads.failed++;
  }

  /** Stops following the source and closes the current build (after its in-flight requests). */
  close(): void {
    this.source.close();
    this.current.retire();
  }
}

function servedBuild(api: Api): { buildId: string; builtAt: string } {
  return { buildId: api.buildId, builtAt: api.queries.meta.built_at };
}
