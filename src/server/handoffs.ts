import cluster, { type Worker } from 'node:cluster';
import type { LineLog } from './log.ts';

/** A connection as the primary holds it: libuv's TCP handle, which Node's cluster hands to a worker. */
interface Handle {
  close(): void;
}

/**
 * Node's message giving a worker a connection (lib/internal/cluster/round_robin_handle.js, unchanged since
 * Node 0.12): the worker answers `{ ack: seq, accepted }`, and only then does the primary close its copy.
 */
interface NewConnection {
  cmd: 'NODE_CLUSTER';
  act: 'newconn';
  key: string;
  seq: number;
}

/** A connection handed to a worker and not yet taken, with when the primary first handed it out. */
interface Handed {
  handle: Handle;
  key: string;
  firstMs: number;
  sentMs: number;
}

type Send = (message: unknown, handle?: unknown, options?: unknown, callback?: (error: Error | null) => void) => boolean;

const isNewConnection = (message: unknown): message is NewConnection =>
  (message as NewConnection | undefined)?.cmd === 'NODE_CLUSTER' && (message as NewConnection).act === 'newconn';

/**
 * The connections the cluster primary has handed to each worker that the worker has not yet said it took.
 * Node's primary keeps its copy of such a connection until the worker answers, and a worker killed before it
 * read the hand-over never answers: the connection stayed open in the primary, its request unread, until the
 * primary stopped. So when a worker exits, what it never took is handed to another worker that listens
 * (the bytes are still unread in the kernel), or, with none up, kept for one until the send timeout and
 * then closed. A worker that has not taken a connection for the send timeout is hung (its event loop never
 * read its channel): it is killed, and its connections handed on the same way. No connection is held in
 * the primary longer than the send timeout.
 */
export class Handoffs {
  private readonly handed = new Map<Worker, Map<number, Handed>>();
  private readonly listening = new Set<Worker>();
  /** Connections of a worker gone, waiting for one that listens. */
  private waiting: Handed[] = [];
  /** Sequence numbers of this module's hand-overs: negative, so never one of Node's (which count up from 0). */
  private nextSeq = -1;
  private turn = 0;
  private stopping = false;
  private readonly sweep: NodeJS.Timeout;
  private readonly log: LineLog;
  private readonly sendTimeoutMs: number;

  constructor(log: LineLog, sendTimeoutMs: number) {
    this.log = log;
    this.sendTimeoutMs = sendTimeoutMs;
    cluster.on('listening', this.listened);
    this.sweep = setInterval(() => this.check(), Math.min(1_000, sendTimeoutMs)).unref();
  }

  /** Follows what the primary hands `worker`, from its fork on. */
  watch(worker: Worker): void {
    const handed = new Map<number, Handed>();
    this.handed.set(worker, handed);
    const child = worker.process as unknown as { send: Send; on(event: 'internalMessage', listener: (message: unknown) => void): void };
    const send = child.send.bind(child);
    child.send = (message, handle, options, callback) => {
      if (handle !== undefined && isNewConnection(message)) {
        const now = Date.now();
        handed.set(message.seq, { handle: handle as Handle, key: message.key, firstMs: now, sentMs: now });
      }
      return send(message, handle, options, callback);
    };
    child.on('internalMessage', (message) => {
      const { cmd, ack, accepted } = (message ?? {}) as { cmd?: string; ack?: unknown; accepted?: boolean };
      if (cmd !== 'NODE_CLUSTER' || typeof ack !== 'number') return;
      const entry = handed.get(ack);
      if (entry === undefined) return;
      handed.delete(ack);
      // Node's own hand-overs are closed (or handed on) by Node when the worker answers; this module's here.
      if (ack >= 0) return;
      if (accepted) entry.handle.close();
      else this.handOn(entry);
    });
    worker.once('exit', () => this.exited(worker));
  }

  /** The server is stopping: what a worker leaves untaken is closed, not handed on. */
  stop(): void {
    this.stopping = true;
    clearInterval(this.sweep);
    cluster.off('listening', this.listened);
  }

  private readonly listened = (worker: Worker): void => {
    this.listening.add(worker);
    const waiting = this.waiting;
    this.waiting = [];
    for (const entry of waiting) this.handOn(entry);
  };

  private exited(worker: Worker): void {
    this.listening.delete(worker);
    const handed = [...(this.handed.get(worker)?.values() ?? [])];
    this.handed.delete(worker);
    if (handed.length === 0) return;
    for (const entry of handed) this.handOn(entry);
    this.log({
      time: new Date().toISOString(),
      level: 'warn',
      event: 'connections_redispatched',
      pid: worker.process.pid,
      connections: handed.length,
      detail: this.stopping
        ? 'connections the worker never took were closed (the server is stopping)'
        : 'connections the worker never took were handed to another worker',
    });
  }

  /** Hands a connection to the next worker that listens, or keeps it for one (closed once the send timeout has passed). */
  private handOn(entry: Handed): void {
    const target = this.stopping ? undefined : this.nextListening();
    if (target === undefined) {
      if (this.stopping) entry.handle.close();
      else this.waiting.push(entry);
      return;
    }
    const seq = this.nextSeq--;
    const message: NewConnection = { cmd: 'NODE_CLUSTER', act: 'newconn', key: entry.key, seq };
    (target.process as unknown as { send: Send }).send(message, entry.handle, undefined, (error) => {
      // The worker went away as it was handed the connection: it goes to the next one (unless the worker's
      // exit, seen first, handed it on already).
      if (error && this.handed.get(target)?.delete(seq)) this.handOn(entry);
    });
    const recorded = this.handed.get(target)?.get(seq);
    if (recorded) recorded.firstMs = entry.firstMs;
  }

  private nextListening(): Worker | undefined {
    const up = [...this.listening].filter((worker) => worker.isConnected() && !worker.isDead());
    if (up.length === 0) return undefined;
    return up[this.turn++ % up.length];
  }

  /** Every second: closes what waited the send timeout for a worker, and kills a worker that took nothing for as long. */
  private check(): void {
    const now = Date.now();
    const expired = this.waiting.filter((entry) => now - entry.firstMs >= this.sendTimeoutMs);
    if (expired.length > 0) {
      this.waiting = this.waiting.filter((entry) => now - entry.firstMs < this.sendTimeoutMs);
      for (const entry of expired) entry.handle.close();
    }
    for (const [worker, handed] of this.handed) {
      let oldest = now;
      for (const entry of handed.values()) oldest = Math.min(oldest, entry.sentMs);
      if (now - oldest < this.sendTimeoutMs || worker.isDead()) continue;
      this.log({
        time: new Date().toISOString(),
        level: 'error',
        event: 'worker_unresponsive',
        pid: worker.process.pid,
        detail: `the worker has not taken a connection handed to it ${this.sendTimeoutMs / 1000} s ago: it was killed, and its connections handed to another`,
      });
      worker.process.kill('SIGKILL');
    }
  }
}
