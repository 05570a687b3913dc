import { statSync, watch, type FSWatcher } from 'node:fs';
import path from 'node:path';
import { Api, type ApiOptions } from '../api/index.ts';
import type { LineLog } from './log.ts';

/** Wait after the last change event before reloading: a rename arrives as a burst of events. */
export const RELOAD_DEBOUNCE_MS = 250;

/**
 * The API of the database file being served, replaced when the file is replaced. A reload opens the new
 * file first and only then swaps `current` (one assignment, so every request sees one build or the other);
 * the old build closes its database once its in-flight requests are done. A file that fails to open is
 * reported and the old build stays.
 */
export class LiveApi {
  current: Api;
  private identity: string;
  private watcher: FSWatcher | undefined;
  private timer: NodeJS.Timeout | undefined;

  private readonly file: string;
  private readonly options: ApiOptions;
  private readonly events: LineLog;

  constructor(file: string, options: ApiOptions, events: LineLog) {
    this.file = file;
    this.options = options;
    this.events = events;
    this.identity = fileIdentity(file);
    this.current = Api.open(file, options);
  }

  /** Opens the file again and swaps to it; returns false (and logs why) when it cannot be opened. */
  reload(reason: string): boolean {
    const previous = this.current;
    try {
      const identity = fileIdentity(this.file);
      const next = Api.open(this.file, this.options);
      this.current = next;
      this.identity = identity;
      previous.retire();
      this.events({ time: new Date().toISOString(), event: 'reload', reason, pid: process.pid, build_id: next.buildId, previous_build_id: previous.buildId });
      return true;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.events({ time: new Date().toISOString(), event: 'reload_failed', reason, pid: process.pid, error: message, build_id: previous.buildId });
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

/** What changes when the file is replaced or rewritten. */
function fileIdentity(file: string): string {
  const stat = statSync(file);
  return `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeMs}`;
}
