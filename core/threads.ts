import { type ResourceLimits, Worker } from 'node:worker_threads';

/**
 * Starts a worker thread on the module beside `url` named `name` (without extension). Compiled (dist/, as
 * `hcas` runs) the module is JavaScript; run as TypeScript (tests, benchmarks) the thread first registers
 * tsx, which keeps what it compiled on disk: a thread starts with less CPU than under Node's own type
 * stripping, which strips every module again in every thread, and tests start threads by the hundred.
 */
export function startThread(url: string, name: string, workerData: unknown, resourceLimits?: ResourceLimits): Worker {
  if (url.endsWith('.js')) return new Worker(new URL(`./${name}.js`, url), { workerData, resourceLimits });
  const tsx = import.meta.resolve('tsx/esm/api');
  const entry = new URL(`./${name}.ts`, url).href;
  const bootstrap = `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); });`;
  return new Worker(bootstrap, { eval: true, workerData, resourceLimits });
}
