/**
 * Worker thread of the state checkpoints (state-checkpoints.ts): copies the SQLite state's WAL into its file
 * every `everyMs`, on a connection of its own, so the fsyncs of a checkpoint never hold the event loop.
 * PASSIVE: it waits for no reader or writer; what it cannot copy now it copies next time.
 */
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

const { file, everyMs } = workerData as { file: string; everyMs: number };
const db = new Database(file, { fileMustExist: true, timeout: 0 });
const timer = setInterval(() => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // Another connection is checkpointing (another worker's thread), or the file is locked a moment: next time.
  }
}, everyMs);
parentPort!.once('message', () => {
  clearInterval(timer);
  db.close();
  parentPort!.close();
});
