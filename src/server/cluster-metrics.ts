import cluster from 'node:cluster';
import client from 'prom-client';

const REQUEST = 'hcas:metrics-request';
const RESPONSE = 'hcas:metrics-response';
/** How long a worker waits for the primary's sum before the scrape fails (prom-client waits 5 s for workers). */
const TIMEOUT_MS = 6_000;

type Message = { type?: string; id?: number; text?: string; error?: string };

/**
 * In a cluster worker: lets the primary collect this worker's registry (prom-client's AggregatorRegistry
 * answers its requests), and returns the function that `/metrics` calls, which asks the primary for the sum
 * of every worker. Whichever worker a scrape reaches, it gets the whole server's metrics.
 */
export function workerMetrics(registry: client.Registry): () => Promise<string> {
  client.AggregatorRegistry.setRegistries([registry]);
  new client.AggregatorRegistry(); // installs the listener that answers the primary
  let next = 0;
  const waiting = new Map<number, { resolve: (text: string) => void; reject: (error: Error) => void; timer: NodeJS.Timeout }>();
  process.on('message', (message: Message) => {
    if (message?.type !== RESPONSE || message.id === undefined) return;
    const pending = waiting.get(message.id);
    if (!pending) return;
    waiting.delete(message.id);
    clearTimeout(pending.timer);
    if (message.error !== undefined) pending.reject(new Error(`the cluster primary could not sum the metrics: ${message.error}`));
    else pending.resolve(message.text ?? '');
  });
  return () =>
    new Promise((resolve, reject) => {
      const id = next++;
      const timer = setTimeout(() => {
        waiting.delete(id);
        reject(new Error(`the cluster primary did not answer a metrics request within ${TIMEOUT_MS} ms`));
      }, TIMEOUT_MS);
      waiting.set(id, { resolve, reject, timer });
      process.send?.({ type: REQUEST, id });
    });
}

/** In the cluster primary: answers the workers' metrics requests with the sum over every worker. */
export function primaryMetrics(): void {
  const aggregator = new client.AggregatorRegistry();
  cluster.on('message', (worker, message: Message) => {
    if (message?.type !== REQUEST) return;
    aggregator.clusterMetrics().then(
      (text) => worker.isConnected() && worker.send({ type: RESPONSE, id: message.id, text }),
      (error: Error) => worker.isConnected() && worker.send({ type: RESPONSE, id: message.id, error: error.message }),
    );
  });
}
