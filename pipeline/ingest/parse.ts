import { RowReject, type RejectKind } from '../base/errors.ts';
import type { Layout } from '../layouts/types.ts';
import type { Records } from './batch.ts';

/** What parsing a source's records needs besides the layout itself; plain data, so it can go to a worker thread. */
export interface ParsePlan {
  /** The layout's name in LAYOUTS (a worker looks it up there). */
  layout: string;
  header: string[];
  options: Record<string, unknown>;
  /** Header columns the batches carry, in slot order. */
  columns: number[];
  /** Layout field -> slot in `columns`. */
  slots: Array<[string, number]>;
  /** Highest header index of a required column: a row with no more fields than this is cut off. */
  maxRequired: number;
}

/** The outcome of each record of a batch, in order: the rows that parsed, and the rejected records with why. */
export interface ParsedBatch<Row = unknown> {
  count: number;
  lines: Int32Array;
  /** Parsed rows, in record order, for the records not in `rejects`. */
  rows: Row[];
  /** Rejected records by index in the batch, ascending. */
  rejects: Array<{ record: number; reason: string; kind: RejectKind; code: string | undefined }>;
}

/**
 * Parses one batch through a layout: a row shorter than the header is rejected (it was cut off, even if the
 * fields we need are there), the rest go through `layout.parse`, whose RowReject becomes a reject.
 */
export function parseBatch<Row>(batch: Records, layout: Layout<Row>, plan: ParsePlan): ParsedBatch<Row> {
  const slotOf = new Map(plan.slots);
  const { header, options, maxRequired } = plan;
  const lines = new Int32Array(batch.count);
  const rows: Row[] = [];
  const rejects: ParsedBatch['rejects'] = [];
  let i = 0;
  const read = (field: string): string => {
    const slot = slotOf.get(field);
    return slot === undefined ? '' : batch.value(i, slot).trim();
  };
  for (i = 0; i < batch.count; i++) {
    lines[i] = batch.line(i);
    const fieldCount = batch.fieldCount(i);
    try {
      if (fieldCount < header.length || fieldCount <= maxRequired) {
        throw new RowReject(`row has ${fieldCount} fields, the header has ${header.length}`, 'invalid', 'field_count');
      }
      rows.push(layout.parse(read, header, options));
    } catch (error) {
      if (!(error instanceof RowReject)) throw error;
      rejects.push({ record: i, reason: error.message, kind: error.kind, code: error.code });
    }
  }
  return { count: batch.count, lines, rows, rejects };
}
