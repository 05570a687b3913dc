import { type ResourceLimits, Worker } from 'node:worker_threads';

/**
 * Starts a worker thread on the module beside `url` named `name` (without extension). Compiled (dist/, as
 * `hcas` runs) the module is JavaScript; run as TypeScript (tests, benchmarks) the thread uses Node's own
 * type stripping where it has it, else first registers the loader this thread runs under (tsx). tsx starts a
 * thread with a little less CPU but holds about 10 MB more memory per thread (its loader runs on a thread of
 * its own), which test/attacks/memory.test.ts's budget counts.
 */
export function startThread(url: string, name: string, workerData: unknown, resourceLimits?: ResourceLimits): Worker {
  if (url.endsWith('.js')) return new Worker(new URL(`./${name}.js`, url), { workerData, resourceLimits });
  const entry = new URL(`./${name}.ts`, url);
  if ((process.features as { typescript?: unknown }).typescript) return new Worker(entry, { workerData, resourceLimits });
  const tsx = import.meta.resolve('tsx/esm/api');
  const bootstrap = `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}); });`;
  return new Worker(bootstrap, { eval: true, workerData, resourceLimits });
}
