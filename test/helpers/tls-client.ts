import https from 'node:https';

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

export interface Planned {
  path: string;
  headers: Record<string, string>;
  /** The statuses that count as answered; anything else (or no answer) is a failure. */
  ok: number[];
  onAnswer?: (answer: Answer) => void;
}

/** An HTTPS client of nginx: keep-alive connections, the throwaway certificate trusted, the server name sent. */
export class TlsClient {
  private readonly agent: https.Agent;
  private readonly port: number;
  private readonly hostName: string;

  constructor(port: number, ca: string, hostName: string) {
    this.port = port;
    this.hostName = hostName;
    this.agent = new https.Agent({ keepAlive: true, maxSockets: 16, ca });
  }

  get(target: string, headers: Record<string, string> = {}): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const req = https.request(
        {
          host: '127.0.0.1',
          port: this.port,
          path: target,
          servername: this.hostName,
          headers: { Host: this.hostName, ...headers },
          agent: this.agent,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
          res.on('error', reject);
        },
      );
      req.setTimeout(15_000, () => req.destroy(new Error('no answer within 15 s')));
      req.on('error', reject);
      req.end();
    });
  }

  /**
   * Bounded load: `concurrency` loops, each sending the next planned request when its last one is answered,
   * until `until()` says stop or `maxRequests` have been sent. Failures are kept, not thrown.
   */
  load(options: { concurrency: number; maxRequests: number; until: () => boolean; next: (i: number) => Planned }) {
    const stats = { sent: 0, answered: 0, failures: [] as Array<{ path: string; status?: number; error?: string }> };
    const loop = async () => {
      while (!options.until() && stats.sent < options.maxRequests) {
        const planned = options.next(stats.sent++);
        try {
          const answer = await this.get(planned.path, planned.headers);
          if (!planned.ok.includes(answer.status)) stats.failures.push({ path: planned.path, status: answer.status });
          else stats.answered++;
          planned.onAnswer?.(answer);
        } catch (error) {
          stats.failures.push({ path: planned.path, error: (error as Error).message });
        }
      }
    };
    const done = Promise.all(Array.from({ length: options.concurrency }, loop)).then(() => ({ ...stats }));
    return Object.assign(stats, { done });
  }

  close(): void {
    this.agent.destroy();
  }
}
