import { Worker } from 'node:worker_threads';

/**
 * Starts a worker thread on the module beside `url` named `name` (without extension). Compiled (dist/, as
 * `hcas` runs) the module is JavaScript; run as TypeScript (tests, benchmarks) the thread uses Node's own
 * type stripping where it has it, else first registers the loader this thread runs under (tsx).
 */
export function startThread(url: string, name: string, workerData: unknown): Worker {
  if (url.endsWith('.js')) return new Worker(new URL(`./${name}.js`, url), { workerData });
  const entry = new URL(`./${name}.ts`, url);
  if ((process.features as { typescript?: unknown }).typescript) return new Worker(entry, { workerData });
  const tsx = import.meta.resolve('tsx/esm/api');
  const bootstrap = `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}); });`;
  return new Worker(bootstrap, { eval: true, workerData });
}

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
