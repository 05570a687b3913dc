/** Messages between the threaded reader (read.ts) and its worker (reader-worker.ts). */
import type { StreamPosition } from './open.ts';
import type { ParsedBatch, ParsePlan } from './parse.ts';
import type { PackedRows } from './row-codec.ts';

export interface WorkerInput {
  file: string;
  sourceKey: string;
  /** Batches the worker may send before the main thread has consumed them. */
  inFlight: number;
  /** Which thread parses records (ReadOptions.parseIn). */
  parseIn: 'either' | 'worker' | 'main';
}

/** `columns`: send raw batches of these columns; `plan`: parse them through the layout here and send the outcomes. */
export type ToWorker = { type: 'columns'; columns: number[] } | { type: 'plan'; plan: ParsePlan } | { type: 'ack' };

export type FromWorker =
  | { type: 'header'; header: string[] }
  | { type: 'batch'; bytes: Uint8Array; index: Int32Array; count: number; width: number; position: Position }
  /** A parsed batch; its rows packed by column (row-codec.ts) unless they could not be (then `rows` holds them). */
  | { type: 'parsed'; parsed: ParsedBatch; packed: PackedRows | null; position: Position }
  | { type: 'end' }
  | { type: 'error'; message: string; buildError: boolean };

export type Position = StreamPosition & { textBytesRead: number };
