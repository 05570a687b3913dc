import client from 'prom-client';
import type { GateStats } from '../auth/gate.ts';
import type { LiveApi } from './live.ts';

/** Latency buckets, seconds: most answers take well under a millisecond, exports and cold caches longer. */
export const LATENCY_BUCKETS_SECONDS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** The route label of a request no route serves (404s, probes of random paths): one series, not one per path. */
export const UNMATCHED_ROUTE = 'unmatched';

/** Requests of one route: counts by plan and status, and the latency histogram. */
class RouteStats {
  /** Per bucket, not cumulative: bucket i counts durations <= LATENCY_BUCKETS_SECONDS[i] and above the one before. */
  readonly buckets = new Float64Array(LATENCY_BUCKETS_SECONDS.length + 1);
  sumSeconds = 0;
  count = 0;
  readonly byPlan = new Map<string, Map<number, number>>();
}

type Value = { labels: Record<string, string | number>; value: number; metricName?: string };

/**
 * A metric whose values are read when Prometheus scrapes, registered in a prom-client registry. The hot
 * path only adds to plain numbers: prom-client's own Counter and Histogram cost one to two microseconds
 * per call with labels, about a tenth of an answer's whole cost.
 */
function collected(
  name: string,
  help: string,
  type: 'counter' | 'gauge' | 'histogram',
  values: () => Value[],
  aggregator: client.Aggregator = 'sum',
) {
  const metric = { name, help, type, aggregator, get: async () => ({ name, help, type, aggregator, values: values() }) };
  return metric as unknown as client.Metric;
}

/**
 * The server's Prometheus metrics (`/metrics`): requests by route, status and plan; latency by route;
 * response-cache hits; quota denials; state-store errors and health; the build served and its age;
 * reloads; and prom-client's process metrics (CPU, memory, event-loop lag, handles). In a cluster, each
 * worker keeps its own and the primary sums them (prom-client's AggregatorRegistry).
 */
export class ServerMetrics {
  readonly registry = new client.Registry();
  private readonly routes = new Map<string, RouteStats>();

  constructor(live: LiveApi, gate: (() => GateStats) | undefined) {
    client.collectDefaultMetrics({ register: this.registry });
    for (const metric of [...this.servingMetrics(live), ...(gate ? gateMetrics(gate) : [])]) this.registry.registerMetric(metric);
  }

  /** The requests, the response cache, the build served and its reloads. */
  private servingMetrics(live: LiveApi): client.Metric[] {
    return [
      collected(
        'hcas_http_requests_total',
        'Requests answered, by route pattern, HTTP status and plan (anonymous, a plan id, invalid for bad credentials, none when limits are off).',
        'counter',
        () => this.requestValues(),
      ),
      collected(
        'hcas_http_request_duration_seconds',
        'Time from the request to the last byte of the answer handed to the socket, by route pattern.',
        'histogram',
        () => this.latencyValues(),
      ),
      collected(
        'hcas_response_cache_requests_total',
        'Lookups in the response cache of the builds served, by result (hit or miss).',
        'counter',
        () => {
          const { hits, misses } = live.cacheStats();
          return [
            { labels: { result: 'hit' }, value: hits },
            { labels: { result: 'miss' }, value: misses },
          ];
        },
      ),
      collected('hcas_response_cache_bytes', 'Bytes held by the response cache of the current build.', 'gauge', () => [
        { labels: {}, value: live.cacheStats().bytes },
      ]),
      collected(
        'hcas_build_info',
        'The build served: 1, labelled with its id and build time.',
        'gauge',
        () => {
          const { buildId, builtAt } = live.state.build;
          return [{ labels: { build_id: buildId, built_at: builtAt }, value: 1 }];
        },
        'max',
      ),
      collected(
        'hcas_build_age_seconds',
        'Seconds since the build served was made.',
        'gauge',
        () => [{ labels: {}, value: live.state.buildAgeSeconds() ?? Number.NaN }],
        'max',
      ),
      collected(
        'hcas_reloads_total',
        'Reloads of the database file, by result (ok, or failed: the previous build kept serving).',
        'counter',
        () => [
          { labels: { result: 'ok' }, value: live.reloads.ok },
          { labels: { result: 'failed' }, value: live.reloads.failed },
        ],
      ),
    ];
  }

  /** Counts one answered request. `route` is the route pattern (undefined: none matched). */
  record(route: string | undefined, status: number, plan: string, seconds: number): void {
    const name = route ?? UNMATCHED_ROUTE;
    let stats = this.routes.get(name);
    if (stats === undefined) {
      stats = new RouteStats();
      this.routes.set(name, stats);
    }
    let byStatus = stats.byPlan.get(plan);
    if (byStatus === undefined) {
      byStatus = new Map();
      stats.byPlan.set(plan, byStatus);
    }
    byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
    let bucket = 0;
    while (bucket < LATENCY_BUCKETS_SECONDS.length && seconds > LATENCY_BUCKETS_SECONDS[bucket]) bucket++;
    stats.buckets[bucket]++;
    stats.sumSeconds += seconds;
    stats.count++;
  }

  /** The metrics in Prometheus text format (this process only; a cluster worker asks the primary instead). */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  private requestValues(): Value[] {
    const values: Value[] = [];
    for (const [route, stats] of this.routes) {
      for (const [plan, byStatus] of stats.byPlan) {
        for (const [status, value] of byStatus) values.push({ labels: { route, status, plan }, value });
      }
    }
    return values;
  }

  private latencyValues(): Value[] {
    const values: Value[] = [];
    const name = 'hcas_http_request_duration_seconds';
    for (const [route, stats] of this.routes) {
      let cumulative = 0;
      for (let i = 0; i < LATENCY_BUCKETS_SECONDS.length; i++) {
        cumulative += stats.buckets[i];
        values.push({ labels: { route, le: LATENCY_BUCKETS_SECONDS[i] }, value: cumulative, metricName: `${name}_bucket` });
      }
      values.push({ labels: { route, le: '+Inf' }, value: stats.count, metricName: `${name}_bucket` });
      values.push({ labels: { route }, value: stats.sumSeconds, metricName: `${name}_sum` });
      values.push({ labels: { route }, value: stats.count, metricName: `${name}_count` });
    }
    return values;
  }
}

/** The content type of the Prometheus text format. */
export const METRICS_CONTENT_TYPE = client.Registry.PROMETHEUS_CONTENT_TYPE;

/** The gate's: quota denials and the key and counter state's errors and health. */
function gateMetrics(gate: () => GateStats): client.Metric[] {
  return [
    collected('hcas_quota_denials_total', 'Calls refused with 429 rate_limited, by plan.', 'counter', () =>
      [...gate().quotaDenials].map(([plan, value]) => ({ labels: { plan }, value })),
    ),
    collected(
      'hcas_state_errors_total',
      'Failed operations of the key and counter state (Redis or the state file), by backend.',
      'counter',
      () => {
        const stats = gate();
        return [{ labels: { backend: stats.backend }, value: stats.stateErrors }];
      },
    ),
    collected(
      'hcas_state_degraded',
      '1 while the key and counter state is unreachable and calls are served uncounted (fail open), else 0.',
      'gauge',
      () => {
        const stats = gate();
        return [{ labels: { backend: stats.backend }, value: stats.degraded ? 1 : 0 }];
      },
      'max',
    ),
  ];
}
