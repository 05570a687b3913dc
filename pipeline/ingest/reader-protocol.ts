/** Messages between the threaded reader (read.ts) and its worker (reader-worker.ts). */
import type { StreamPosition } from './open.ts';

export interface WorkerInput {
  file: string;
  sourceKey: string;
  /** Batches the worker may send before the main thread has consumed them. */
  inFlight: number;
}

export type ToWorker = { type: 'columns'; columns: number[] } | { type: 'ack' };

export type FromWorker =
  | { type: 'header'; header: string[] }
  | { type: 'batch'; bytes: Uint8Array; index: Int32Array; count: number; width: number; position: StreamPosition & { textBytesRead: number } }
  | { type: 'end' }
  | { type: 'error'; message: string; buildError: boolean };
