/** The contract between where a server's builds come from (its own BuildKeeper, or a cluster primary) and the API that serves them. */
import type { CheckedBuild } from './build-check.ts';

/** The last attempt to take a new build: when, why, and whether the file passed its checks. */
export interface ReloadRecord {
  time: string;
  reason: string;
  ok: boolean;
  /** The build served after the attempt (the new one, or the one kept). */
  buildId: string;
  error?: string;
}

/** Told of each new build and each attempt whose file failed its checks. */
export interface BuildListener {
  build(build: CheckedBuild, reason: string): void;
  failed(record: ReloadRecord): void;
}

/** Where a server's builds come from: its own keeper (BuildKeeper), or a cluster worker's primary (over IPC). */
export interface BuildSource {
  /** The database file the operator named, for `/readyz`. */
  readonly file: string;
  /** The build to serve first. */
  readonly first: CheckedBuild;
  /** True while the file served in place (no private copy) has been damaged in place. */
  damaged(): boolean;
  subscribe(listener: BuildListener): void;
  /** Asks for the file to be taken again (SIGHUP). */
  refresh(reason: string): void;
  close(): void;
}
