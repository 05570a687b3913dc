import type { Worker } from 'node:worker_threads';
import type { SqliteStore } from '../auth/sqlite-store.ts';
import type { LineLog } from './log.ts';
import { startThread } from '../../core/threads.ts';
import { endThread } from './threads.ts';

/** How often the thread checkpoints: the WAL then holds about a second of counts (a few hundred KB under a flood). */
export const CHECKPOINT_EVERY_MS = 1_000;

/**
 * The SQLite state's WAL checkpoints, in a thread of their own (checkpoint-worker.ts) rather than in the
 * commit that happens to grow the WAL past 1,000 pages: a checkpoint fsyncs the WAL and the file, which took
 * 10 to 30 ms of the event loop every 2 to 3 s under a flood of 300 requests a second here, and can take
 * hundreds on a busy disk. If the thread cannot run, commits checkpoint as before.
 */
export class StateCheckpoints {
  private readonly thread: Worker;
  private closing = false;

  private constructor(store: SqliteStore, log: LineLog) {
    store.checkpointOnCommit(false);
    this.thread = startThread(import.meta.url, 'checkpoint-worker', { file: store.location, everyMs: CHECKPOINT_EVERY_MS });
    this.thread.unref();
    const fallBack = (error: unknown) => {
      if (this.closing) return;
      this.closing = true;
      store.checkpointOnCommit(true);
      log({
        time: new Date().toISOString(),
        level: 'warn',
        event: 'state_checkpoints_inline',
        pid: process.pid,
        error: error instanceof Error ? error.message : String(error),
        detail: 'the thread that checkpoints the state file stopped: commits checkpoint it again, on the event loop',
      });
    };
    this.thread.on('error', fallBack);
    this.thread.on('exit', (code) => fallBack(new Error(`the checkpoint thread exited with code ${code}`)));
  }

  /** Checkpoints `store` in a thread from now on. */
  static start(store: SqliteStore, log: LineLog): StateCheckpoints {
    return new StateCheckpoints(store, log);
  }

  /**
   * Stops the thread (before the store closes: its own close checkpoints what is left). The thread reads the
   * message once it has loaded its modules, then closes its connection and exits; the process is held open
   * until it has (ended while it loads the SQLite binding, Node would abort the process: threads.ts).
   */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    const exited = new Promise((resolve) => this.thread.once('exit', resolve));
    this.thread.postMessage('close');
    await endThread(this.thread, exited);
  }
}
