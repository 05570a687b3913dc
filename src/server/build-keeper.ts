import { mkdirSync, mkdtempSync, readdirSync, rmSync, watch, type FSWatcher } from 'node:fs';
import path from 'node:path';
import { BadBuildError, checkHeader, fileIdentity, type CheckedBuild } from './build-check.ts';
import type { BuildListener, BuildSource, ReloadRecord } from './build-source.ts';
import type { LineLog } from './log.ts';
import { startThread } from '../../core/threads.ts';

/** Wait after the last change event before reloading: a rename arrives as a burst of events, a copy as a stream. */
export const RELOAD_DEBOUNCE_MS = 250;
/**
 * How long a replaced private copy stays on disk: a worker forked just before the swap opens it within
 * this time. Processes that have it open keep it readable after that (the file is unlinked, not truncated).
 */
export const RETIRED_COPY_MS = 10_000;

export interface KeeperOptions {
  /** The database file the operator names (`--db`). */
  file: string;
  /** Where private copies are made; undefined serves the file itself (`--no-snapshot`). */
  snapshotDir: string | undefined;
  log: LineLog;
}

/**
 * Owns the build a server serves: the database file, checked (build-check.ts) before anything serves it,
 * and by default copied first to a private folder, so that whatever later happens to the file (truncated,
 * copied over in place, half-written by rsync) cannot reach the build being served. When the file changes,
 * the new one is copied and checked off the serving thread; a file that fails is reported (`reload_failed`)
 * and the last good build stays. In a cluster the primary owns the keeper and tells its workers which file
 * to open; a worker restarted after a crash opens the same private copy, never the damaged original.
 */
export class BuildKeeper implements BuildSource {
  readonly file: string;
  readonly first: CheckedBuild;
  current: CheckedBuild;
  lastAttempt: ReloadRecord | undefined;
  /**
   * Without private copies: true once the served file itself changed in place and failed its checks (the
   * build in memory is no longer what is on disk; requests may fail until a good file is back).
   */
  servedFileDamaged = false;
  private readonly listeners: BuildListener[] = [];
  private readonly folder: string | undefined;
  private copies = 0;
  private failedIdentity: string | undefined;
  private running: Promise<boolean> | undefined;
  private again: string | undefined;
  private watcher: FSWatcher | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly retiring = new Set<NodeJS.Timeout>();
  private readonly options: KeeperOptions;

  private constructor(options: KeeperOptions, folder: string | undefined, first: CheckedBuild) {
    this.options = options;
    this.file = options.file;
    this.folder = folder;
    this.first = first;
    this.current = first;
  }

  /** Checks (and copies) the file; throws BadBuildError when the server has no good build to start with. */
  static async open(options: KeeperOptions): Promise<BuildKeeper> {
    const folder = options.snapshotDir === undefined ? undefined : privateFolder(options.snapshotDir);
    try {
      const first = await prepareInThread(options.file, folder && path.join(folder, 'build-0.sqlite'));
      return new BuildKeeper(options, folder, first);
    } catch (error) {
      if (folder) rmSync(folder, { recursive: true, force: true });
      throw error;
    }
  }

  /** Told of every new build and every failed attempt. */
  subscribe(listener: BuildListener): void {
    this.listeners.push(listener);
  }

  /** True while the file served in place (--no-snapshot) has changed in place and failed its checks. */
  damaged(): boolean {
    return this.servedFileDamaged;
  }

  /**
   * Takes the file again if it changed (or always, for a signal): checks it off this thread, then tells the
   * listeners. Attempts do not overlap: one asked for while another runs follows it.
   */
  refresh(reason: string): Promise<boolean> {
    if (this.running) {
      this.again = reason;
      return this.running;
    }
    this.running = this.attempt(reason).finally(() => {
      this.running = undefined;
      const next = this.again;
      this.again = undefined;
      if (next !== undefined) void this.refresh(next);
    });
    return this.running;
  }

  /**
   * Reloads when the file changes. Watches the directory, not the file: a build renames a new file into
   * place, and a watch on the old file would keep following the old inode.
   */
  watch(): void {
    const name = path.basename(this.options.file);
    this.watcher = watch(path.dirname(this.options.file), (_event, changed) => {
      if (changed !== null && changed !== name) return;
      clearTimeout(this.timer);
      this.timer = setTimeout(() => void this.refresh('file-change'), RELOAD_DEBOUNCE_MS);
    });
  }

  /**
   * True when the build being handed out still looks whole (its header against its size: a cheap check).
   * A private copy fails only if someone tampered with the keeper's own folder.
   */
  currentLooksWhole(): boolean {
    try {
      checkHeader(this.current.file);
      return true;
    } catch {
      return false;
    }
  }

  /** Stops watching and removes the private copies (processes that have one open can still read it). */
  close(): void {
    this.watcher?.close();
    clearTimeout(this.timer);
    for (const timer of this.retiring) clearTimeout(timer);
    if (this.folder) rmSync(this.folder, { recursive: true, force: true });
  }

  private async attempt(reason: string): Promise<boolean> {
    let identity: string | undefined;
    try {
      identity = fileIdentity(this.options.file);
    } catch {
      // Gone for now (a rename that brings the new file triggers another event); a signal reports it.
      if (reason !== 'signal') return false;
    }
    const unchanged = identity === this.current.identity || identity === this.failedIdentity;
    if (reason !== 'signal' && reason !== 'recover' && unchanged) return false;
    const target = this.folder && path.join(this.folder, `build-${++this.copies}.sqlite`);
    const time = new Date().toISOString();
    let build: CheckedBuild;
    try {
      build = await prepareInThread(this.options.file, target);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.failedIdentity = identity;
      // Served in place, the file that failed is the one being served.
      if (
        !this.folder &&
        (identity === undefined || identity.split(':').slice(0, 2).join(':') === this.current.identity.split(':').slice(0, 2).join(':'))
      ) {
        this.servedFileDamaged = true;
      }
      this.lastAttempt = { time, reason, ok: false, buildId: this.current.buildId, error: message };
      this.options.log({
        time,
        level: 'error',
        event: 'reload_failed',
        reason,
        pid: process.pid,
        error: message,
        build_id: this.current.buildId,
      });
      for (const listener of this.listeners) listener.failed(this.lastAttempt);
      return false;
    }
    const previous = this.current;
    this.current = build;
    this.failedIdentity = undefined;
    this.servedFileDamaged = false;
    this.lastAttempt = { time, reason, ok: true, buildId: build.buildId };
    for (const listener of this.listeners) listener.build(build, reason);
    if (this.folder && previous.file !== build.file) {
      const timer = setTimeout(() => {
        this.retiring.delete(timer);
        rmSync(previous.file, { force: true });
      }, RETIRED_COPY_MS).unref();
      this.retiring.add(timer);
    }
    return true;
  }
}

/** Copies and checks the file in a worker thread; resolves with the checked build, rejects with BadBuildError. */
function prepareInThread(source: string, target: string | undefined): Promise<CheckedBuild> {
  return new Promise((resolve, reject) => {
    const thread = startThread(import.meta.url, 'build-worker', { source, target });
    let settled = false;
    thread.once('message', (message: { ok: true; build: CheckedBuild } | { ok: false; bad: boolean; error: string }) => {
      settled = true;
      if (message.ok) resolve(message.build);
      else reject(message.bad ? new BadBuildError(message.error) : new Error(message.error));
    });
    thread.once('error', (error) => {
      settled = true;
      reject(error);
    });
    thread.once('exit', (code) => {
      if (!settled) reject(new Error(`the build check stopped (exit code ${code})`));
    });
  });
}

/** Prefix of each server's private folder under the snapshot directory. */
const FOLDER_PREFIX = 'hcas-serving-';

/**
 * A folder only this user can read, for this server's copies. Folders left by servers that are gone (killed
 * with SIGKILL, a power cut) are removed first, so copies never pile up.
 */
function privateFolder(parent: string): string {
  mkdirSync(parent, { recursive: true });
  for (const name of readdirSync(parent)) {
    const pid = Number(/^hcas-serving-(\d+)-/.exec(name)?.[1]);
    if (Number.isInteger(pid) && pid > 0 && !alive(pid)) rmSync(path.join(parent, name), { recursive: true, force: true });
  }
  return mkdtempSync(path.join(parent, `${FOLDER_PREFIX}${process.pid}-`));
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export { BadBuildError };
