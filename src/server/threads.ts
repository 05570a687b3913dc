import type { Worker } from 'node:worker_threads';

/** How long a thread still starting is given to load its modules before it is ended anyway. */
const READY_WAIT_MS = 10_000;

/**
 * Ends a worker thread, but not while it loads its modules: ended then, in the middle of loading a native
 * addon (the SQLite binding), Node aborts the whole process (`FATAL ERROR: Error::New
 * napi_get_last_error_info`, seen when a server was stopped just after it started a thread). So it first
 * waits for `ready` (the thread's word that it has loaded), at most READY_WAIT_MS, holding the process open
 * meanwhile.
 */
export async function endThread(worker: Worker, ready: Promise<unknown>): Promise<void> {
  worker.ref();
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([ready, new Promise((resolve) => (timer = setTimeout(resolve, READY_WAIT_MS)))]);
  clearTimeout(timer);
  await worker.terminate();
}
