import { statSync, watch, type FSWatcher } from 'node:fs';
import path from 'node:path';
import { Api, type ApiOptions } from '../api/index.ts';
import type { LineLog } from './log.ts';
import { ServingState } from './serving-state.ts';

/** Wait after the last change event before reloading: a rename arrives as a burst of events. */
export const RELOAD_DEBOUNCE_MS = 250;

/** The last reload: when, why, and whether the new file could be opened. */
export interface ReloadRecord {
  time: string;
  reason: string;
  ok: boolean;
  buildId: string;
  error?: string;
}

/**
 * The API of the database file being served, replaced when the file is replaced. A reload opens the new
 * file first and only then swaps `current` (one assignment, so every request sees one build or the other);
 * the old build closes its database once its in-flight requests are done. A file that fails to open is
 * reported and the old build stays. The serving state (`/readyz`) follows: the build served, and a
 * `database` check that is degraded while the last reload has failed.
 */
export class LiveApi {
  current: Api;
  readonly state: ServingState;
  lastReload: ReloadRecord | undefined;
  /** Reloads that swapped the build, and reloads whose file could not be opened. */
  readonly reloads = { ok: 0, failed: 0 };
  /** Response-cache hits and misses of the builds already retired (the metrics count across reloads). */
  private readonly retiredCache = { hits: 0, misses: 0 };
  private identity: string;
  private watcher: FSWatcher | undefined;
  private timer: NodeJS.Timeout | undefined;

  private readonly file: string;
  private readonly options: ApiOptions;
  private readonly events: LineLog;

  constructor(file: string, options: ApiOptions, events: LineLog, state?: ServingState) {
    this.file = file;
    this.options = options;
    this.events = events;
    this.identity = fileIdentity(file);
    this.current = Api.open(file, options);
    this.state = state ?? new ServingState(servedBuild(this.current));
    this.state.build = servedBuild(this.current);
    this.state.setCheck('database', () => this.check());
  }

  /** The `database` check of `/readyz`. */
  check(): { status: 'ok' | 'degraded' | 'failing'; detail?: string; file: string; last_reload?: ReloadRecord } {
    const file = path.basename(this.file);
    const last = this.lastReload && { last_reload: this.lastReload };
    if (!this.current.db.open) return { status: 'failing', detail: 'the database is closed', file, ...last };
    if (this.lastReload && !this.lastReload.ok) {
      return { status: 'degraded', detail: `the replaced file could not be opened (${this.lastReload.error}); serving the previous build`, file, ...last };
    }
    return { status: 'ok', file, ...last };
  }

  /** Response-cache hits and misses across every build this server has served. */
  cacheStats(): { hits: number; misses: number; entries: number; bytes: number } {
    const now = this.current.cacheStats();
    return { ...now, hits: now.hits + this.retiredCache.hits, misses: now.misses + this.retiredCache.misses };
  }

  /** Opens the file again and swaps to it; returns false (and logs why) when it cannot be opened. */
  reload(reason: string): boolean {
    const previous = this.current;
    try {
      const identity = fileIdentity(this.file);
      const next = Api.open(this.file, this.options);
      this.current = next;
      this.identity = identity;
      const { hits, misses } = previous.cacheStats();
      this.retiredCache.hits += hits;
      this.retiredCache.misses += misses;
      previous.retire();
      const time = new Date().toISOString();
      this.state.build = servedBuild(next);
      this.lastReload = { time, reason, ok: true, buildId: next.buildId };
      this.reloads.ok++;
      this.events({ time, level: 'info', event: 'reload', reason, pid: process.pid, build_id: next.buildId, previous_build_id: previous.buildId });
      return true;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const time = new Date().toISOString();
      this.lastReload = { time, reason, ok: false, buildId: previous.buildId, error: message };
      this.reloads.failed++;
      this.events({ time, level: 'error', event: 'reload_failed', reason, pid: process.pid, error: message, build_id: previous.buildId });
      return false;
    }
  }

  /**
   * Reloads when the file is replaced. Watches the directory, not the file: a build renames a new file
   * into place, and a watch on the old file would keep following the old inode.
   */
  watch(): void {
    const name = path.basename(this.file);
    this.watcher = watch(path.dirname(this.file), (_event, changed) => {
      if (changed !== null && changed !== name) return;
      clearTimeout(this.timer);
      this.timer = setTimeout(() => {
        let identity: string;
        try {
          identity = fileIdentity(this.file);
        } catch {
          return; // gone for now; the rename that brings the new file triggers another event
        }
        if (identity !== this.identity) this.reload('file-change');
      }, RELOAD_DEBOUNCE_MS);
    });
  }

  /** Stops watching and closes the current build (after its in-flight requests). */
  close(): void {
    this.watcher?.close();
    clearTimeout(this.timer);
    this.current.retire();
  }
}

function servedBuild(api: Api): { buildId: string; builtAt: string } {
  return { buildId: api.buildId, builtAt: api.queries.meta.built_at };
}

/** What changes when the file is replaced or rewritten. */
function fileIdentity(file: string): string {
  const stat = statSync(file);
  return `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeMs}`;
}
