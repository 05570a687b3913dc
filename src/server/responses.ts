import type { ServerResponse } from 'node:http';
import { pipeline, type Readable } from 'node:stream';
import { withHeaders } from '../auth/answers.ts';
import { clientAddress, type TrustedProxies } from '../auth/client-ip.ts';
import type { CallFacts, GateRequest } from '../auth/gate.ts';
import { redactKeys } from '../auth/keys.ts';
import type { ApiResponse } from '../http/response.ts';
import { isoTime, logs, type LevelledLog, type LineLog } from './log.ts';
import type { ServerMetrics } from './metrics.ts';
import type { RequestRecord } from './request-line.ts';

/** One request on its way out: where its answer goes, and what its log line and metrics need. */
export interface Pending {
  res: ServerResponse;
  request: GateRequest;
  requestId: string;
  /** performance.now() when the request came in. */
  started: number;
  /** `debug` for the operator endpoints (probes), logged only at that level; `info` for every other. */
  level: 'info' | 'debug';
  /** The route pattern, where the server knows it itself (the operator endpoints). */
  route?: string;
}

/** An answer, and what the gate found out about the call (none without a gate, or for what the server answers itself). */
export interface Answer {
  response: ApiResponse;
  call?: CallFacts;
}

export interface ResponseWriterOptions {
  log: LineLog;
  metrics: ServerMetrics;
  proxies: TrustedProxies;
  /** No request log lines (`hcas serve --quiet`). */
  quiet: boolean;
  reportError: (error: unknown, request: GateRequest) => void;
  /** The route pattern of a request target, for a request no gate has routed (the metrics' and the log's `route`). */
  routeOf?: (url: string) => string | undefined;
}

/** The plan label of requests served with limits off, and of the operator endpoints. */
export const NO_PLAN = 'none';

/**
 * The last stages of every request: its answer written (at once, at the end of the event-loop turn, or as a
 * stream the client reads), then its log line and its metrics.
 */
export class ResponseWriter {
  /** Set once the server is stopping: every answer then closes its connection. */
  closing = false;
  // Answers ready at once are written together at the end of the event-loop turn, as the ones that wait for
  // a count are: the server then wakes its clients once per turn rather than once per answer, and the kernel's
  // loopback work is most of a request's CPU (bench/request-path.ts, the bare server's row).
  private queued: Array<{ pending: Pending; answer: Answer }> = [];
  private readonly logRequests: boolean;
  private readonly logProbes: boolean;

  private readonly options: ResponseWriterOptions;

  constructor(options: ResponseWriterOptions) {
    this.options = options;
    this.logRequests = !options.quiet && logs(options.log, 'info');
    this.logProbes = logs(options.log, 'debug');
  }

  /** Writes the answer at the end of this event-loop turn, with the other answers ready in it. */
  queue(pending: Pending, answer: Answer): void {
    if (this.queued.length === 0) setImmediate(this.writeQueued);
    this.queued.push({ pending, answer });
  }

  /** Writes the answer now. The hot path allocates little: a synchronous write, then the log line. */
  send(pending: Pending, { response, call }: Answer): void {
    const { res, request } = pending;
    // Requests the HTTP layer refuses end their connection (docs/api.md, "Errors"): a repeated Host may mean two
    // proxies read two different requests, so nothing more is read from that connection.
    if (this.closing || response.status === 414 || request.invalid?.code === 'bad_request') res.setHeader('Connection', 'close');
    // The gate adds X-Request-Id to every answer it makes; anything else gets it here.
    const headers = 'X-Request-Id' in response.headers ? response.headers : withHeaders(response, request.responseHeaders!).headers;
    res.writeHead(response.status, headers);
    if (response.stream) {
      this.sendStream(pending, response.stream, call);
      return;
    }
    // A small cached answer goes as text: with the headers, one string and one write (response.ts, `text`).
    if (response.text !== undefined) res.end(response.text, 'latin1');
    else res.end(response.body);
    this.finished(pending, call, response.status, response.body.length);
  }

  private readonly writeQueued = (): void => {
    const batch = this.queued;
    this.queued = [];
    for (const { pending, answer } of batch) this.send(pending, answer);
  };

  // A streamed body (exports) is written as the client reads it; a client that goes away stops the producer,
  // and one that stops reading (or reads a trickle) is cut by the send watch, releasing the build its answer holds.
  private sendStream(pending: Pending, stream: Readable, call: CallFacts | undefined): void {
    let bytes = 0;
    stream.on('data', (chunk: Buffer) => (bytes += chunk.length));
    pipeline(stream, pending.res, (error) => {
      if (error && (error as NodeJS.ErrnoException).code !== 'ERR_STREAM_PREMATURE_CLOSE') this.options.reportError(error, pending.request);
      this.finished(pending, call, 200, bytes);
    });
  }

  /** The request's metrics and, at its level, its log line. */
  private finished(
    { request, requestId, started, level, route: known }: Pending,
    call: CallFacts | undefined,
    status: number,
    bytes: number,
  ): void {
    const { log, metrics, proxies, routeOf } = this.options;
    const seconds = (performance.now() - started) / 1000;
    const route = call ? call.route : (known ?? (routeOf && level === 'info' ? routeOf(request.url) : undefined));
    const plan = call?.plan;
    metrics.record(route, status, plan ?? NO_PLAN, seconds);
    if (level === 'info' ? !this.logRequests : !this.logProbes) return;
    const record: RequestRecord = {
      time: isoTime(),
      level,
      request_id: requestId,
      method: request.method,
      // API keys are never logged: they travel in headers, and one sent in the query by mistake is redacted.
      path: redactKeys(request.url),
      route,
      status,
      duration_ms: Math.round(seconds * 1e6) / 1000,
      bytes,
      client: call?.client ?? clientAddress(request.remoteAddress, request.headers?.['x-forwarded-for'], proxies),
      key_id: call?.keyId,
      plan,
    };
    if (level === 'info' && 'request' in log) (log as LevelledLog).request(record);
    else log(record);
  }
}
