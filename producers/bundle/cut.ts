import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { openRecords } from '../../pipeline/ingest/read.ts';
import type { KeptColumn } from './columns.ts';

/** One original file cut down to the columns the build reads, as gzip-compressed CSV. */
export interface CutFile {
  /** The bundle's header: the kept columns' names as the original spells them. */
  columns: string[];
  /** The original's header, for the record of what was dropped. */
  originalColumns: string[];
  gzip: Buffer;
  /** SHA-256 of the uncompressed CSV: the same on every platform, whatever zlib compresses it to. */
  csvSha256: string;
  rows: number;
  /** Rows with fewer fields than the original's header, kept short so the build still rejects them. */
  shortRows: number;
  /** Rows that start on another line in the bundle than in the original (only a dropped multi-line value can cause it). */
  movedRows: number;
}

/**
 * Copies every data row of `file`, read with the build's own reader, keeping the columns `choose` picks.
 * Values lose their surrounding blanks (the build trims every value it reads); nothing else changes, so
 * codes keep their leading zeros, or lack them, exactly as the original has them.
 */
export async function cutFile(file: string, sourceKey: string, choose: (header: string[]) => KeptColumn[]): Promise<CutFile> {
  const source = await openRecords(file, sourceKey);
  const kept = choose(source.header);
  // The reader decodes only the selected columns; each kept column reads its slot.
  const columns = [...new Set(kept.map((c) => c.index))];
  source.select(columns);
  const slotOf = new Map(kept.map((c) => [c, columns.indexOf(c.index)]));
  const lines = [kept.map((c) => csvField(c.name)).join(',')];
  let rows = 0;
  let shortRows = 0;
  let movedRows = 0;
  let nextLine = 2;
  for await (const batch of source.batches) {
    for (let i = 0; i < batch.count; i++) {
      rows++;
      const fieldCount = batch.fieldCount(i);
      let present = kept.filter((c) => c.index < fieldCount);
      if (fieldCount < source.header.length) {
        shortRows++;
        // A cut-off row whose missing fields were all dropped columns would look whole in the bundle; the
        // build rejects it in the original, so it must stay short here too.
        if (present.length === kept.length) present = present.slice(0, -1);
      }
      // An empty line is skipped by the reader; a lone empty quoted field keeps the row (and its rejection).
      const line = present.map((c) => csvField(batch.value(i, slotOf.get(c)!).trim())).join(',') || '""';
      if (batch.line(i) !== nextLine) movedRows++;
      nextLine += 1 + countNewlines(line);
      lines.push(line);
    }
  }
  const csv = Buffer.from(`${lines.join('\n')}\n`, 'utf8');
  return {
    columns: kept.map((c) => c.name),
    originalColumns: source.header,
    gzip: deterministicGzip(csv),
    csvSha256: createHash('sha256').update(csv).digest('hex'),
    rows,
    shortRows,
    movedRows,
  };
}

/**
 * zlib level 9 with a fixed header: no file name, modification time 0 and operating system "unknown"
 * (zlib writes the build platform's code there), so the same CSV gives the same bytes on any machine
 * whose zlib compresses alike.
 */
export function deterministicGzip(data: Buffer): Buffer {
  const gzip = gzipSync(data, { level: 9 });
  gzip.fill(0, 4, 8);
  gzip[9] = 255;
  return gzip;
}

/** RFC 4180 quoting, only where a value needs it. */
function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

function countNewlines(text: string): number {
  let count = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) count++;
  return count;
}
