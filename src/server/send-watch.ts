import type http from 'node:http';
import type { Socket } from 'node:net';

/** The least an answer must deliver per send timeout while the client has some of it to read (about 2 KiB/s at 30 s). */
export const MIN_SEND_PROGRESS_BYTES = 64 * 1024;

/** Where one connection's answer stood when it last made progress. */
interface Progress {
  /** When the window began: the last check at which nothing was waiting, or the answer moved on by enough. */
  sinceMs: number;
  /** Bytes the kernel had taken then. */
  delivered: number;
  /** Bytes read and written on the connection at the last check where they had changed, and when that was. */
  moved: number;
  movedMs: number;
}

/**
 * Cuts the connections of clients that stopped reading, and the connections on which nothing moves. Every
 * `checkMs`, each connection is checked:
 * - one with bytes waiting to be sent (in Node's buffers or libuv's write queue) whose client took less than
 *   MIN_SEND_PROGRESS_BYTES of them in `sendMs` is reset;
 * - one on which no byte was read or written for `sendMs` (an answer that never comes, a stream whose
 *   producer stalled) is cut.
 * Its own timer, because Node's socket timeout skips its first firing while a write is pending (a documented
 * 30 s cut came at 60 s), and refreshes a timer on every read and write of every socket, a cost on every
 * request that one sweep of the connections every `checkMs` does not have (bench/request-path.ts). A reset,
 * because a graceful close of a socket with unsent bytes leaves it orphaned in FIN-WAIT-1, holding up to its
 * send buffer (4 MiB here) for as long as the client stays connected, outside every connection cap. A reset
 * frees it at once (`cut`).
 */
export class SendWatch {
  private readonly sockets = new Map<Socket, Progress>();
  private readonly sendMs: number;
  private readonly timer: NodeJS.Timeout;

  constructor(sendMs: number, checkMs: number) {
    this.sendMs = sendMs;
    this.timer = setInterval(() => this.check(), checkMs).unref();
  }

  /** Watches every connection of `server`. */
  attach(server: http.Server): void {
    server.on('connection', (socket: Socket) => {
      const nowMs = performance.now();
      this.sockets.set(socket, { sinceMs: nowMs, delivered: 0, moved: 0, movedMs: nowMs });
      socket.once('close', () => this.sockets.delete(socket));
    });
  }

  /** Stops the checks (the server is closing). */
  close(): void {
    clearInterval(this.timer);
  }

  private check(): void {
    const nowMs = performance.now();
    for (const [socket, progress] of this.sockets) {
      const moved = socket.bytesRead + socket.bytesWritten;
      if (moved !== progress.moved) {
        progress.moved = moved;
        progress.movedMs = nowMs;
      } else if (nowMs - progress.movedMs >= this.sendMs) {
        this.sockets.delete(socket);
        cut(socket);
        continue;
      }
      const waiting = socket.writableLength + queued(socket);
      const delivered = socket.bytesWritten - waiting;
      if (waiting === 0 || delivered - progress.delivered >= MIN_SEND_PROGRESS_BYTES) {
        progress.sinceMs = nowMs;
        progress.delivered = delivered;
      } else if (nowMs - progress.sinceMs >= this.sendMs) {
        this.sockets.delete(socket);
        cut(socket);
      }
    }
  }
}

/** Bytes handed to libuv and not yet taken by the kernel. */
function queued(socket: Socket): number {
  return (socket as Socket & { _handle?: { writeQueueSize?: number } })._handle?.writeQueueSize ?? 0;
}

/**
 * Ends a connection the server gives up on. With bytes still waiting to be sent it is reset: they are dropped
 * at once and the client sees ECONNRESET. With none (an idle connection) it is closed as usual: nothing is
 * left to hold, and a client reusing it sees the end of the connection, not an error.
 */
export function cut(socket: Socket): void {
  if (socket.destroyed) return;
  if (socket.writableLength + queued(socket) > 0 && typeof socket.resetAndDestroy === 'function') socket.resetAndDestroy();
  else socket.destroy();
}
