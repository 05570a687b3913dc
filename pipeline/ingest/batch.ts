/** Buffer's internal decoders (what toString(encoding, start, end) calls after checking its arguments). */
interface Decoders {
  utf8Slice(start: number, end: number): string;
  latin1Slice(start: number, end: number): string;
}
const internal = Buffer.prototype as Partial<Decoders>;
const hasDecoders = typeof internal.utf8Slice === 'function' && typeof internal.latin1Slice === 'function';

/** Index entries per record before its spans: line, field count, first byte, end of the last selected field, ASCII flag. */
export const RECORD_HEADER = 5;

/**
 * Records of a delimited file, as the splitter found them: the raw bytes, and per record its physical
 * line, its field count and the byte span of each selected column. Values are decoded only when read,
 * so the 300 columns of a wide file that no layout reads are never turned into strings.
 */
export class RecordBatch {
  private readonly text: Buffer & Decoders;
  private readonly stride: number;
  /** The ASCII text of one record up to its last selected field, decoded once and sliced per field. */
  private cachedRecord = -1;
  private cachedText = '';
  private cachedStart = 0;

  private readonly index: Int32Array;
  readonly count: number;
  readonly width: number;

  constructor(bytes: Uint8Array, index: Int32Array, count: number, width: number) {
    this.index = index;
    this.count = count;
    this.width = width;
    const text = (Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)) as Buffer &
      Partial<Decoders>;
    if (!hasDecoders) {
      text.utf8Slice = (start, end) => text.toString('utf8', start, end);
      text.latin1Slice = (start, end) => text.toString('latin1', start, end);
    }
    this.text = text as Buffer & Decoders;
    this.stride = RECORD_HEADER + 2 * width;
  }

  /** The 1-based line record `i` starts on (quoted newlines in earlier records counted). */
  line(i: number): number {
    return this.index[i * this.stride];
  }

  /** How many fields record `i` has in the file, selected or not. */
  fieldCount(i: number): number {
    return this.index[i * this.stride + 1];
  }

  /** The text of selected column `slot` of record `i`, unquoted; '' when the record is shorter. */
  value(i: number, slot: number): string {
    const base = i * this.stride;
    const at = base + RECORD_HEADER + 2 * slot;
    const start = this.index[at];
    const end = this.index[at + 1];
    if (start < 0) return unquote(this.text.utf8Slice(-start - 1, end));
    if (start === end) return '';
    if (this.index[base + 4] === 0) return this.text.utf8Slice(start, end);
    // One native decode per record, then string slices: far cheaper than a decode per field.
    if (this.cachedRecord !== i) {
      this.cachedRecord = i;
      this.cachedStart = this.index[base + 2];
      this.cachedText = this.text.latin1Slice(this.cachedStart, this.index[base + 3]);
    }
    return this.cachedText.slice(start - this.cachedStart, end - this.cachedStart);
  }

  /** The bytes the spans point into and the index, for handing the batch to another thread. */
  get parts(): { bytes: Uint8Array; index: Int32Array } {
    return { bytes: this.text, index: this.index };
  }
}

/** A quoted field with doubled quotes or text after its closing quote: `"a ""b"" c"d` -> `a "b" cd`. */
function unquote(raw: string): string {
  let close = 1;
  for (;;) {
    close = raw.indexOf('"', close);
    if (close === -1 || raw.charCodeAt(close + 1) !== 34) break;
    close += 2;
  }
  if (close === -1) return raw.slice(1);
  return raw.slice(1, close).replaceAll('""', '"') + raw.slice(close + 1);
}

/** A batch over values already decoded (Census API JSON, the reference reader): the same interface. */
export class ValueBatch {
  private readonly rows: ReadonlyArray<{ line: number; values: string[]; fieldCount: number }>;
  private readonly columns: readonly number[];

  constructor(rows: ReadonlyArray<{ line: number; values: string[]; fieldCount: number }>, columns: readonly number[]) {
    this.rows = rows;
    this.columns = columns;
  }

  get count(): number {
    return this.rows.length;
  }

  line(i: number): number {
    return this.rows[i].line;
  }

  fieldCount(i: number): number {
    return this.rows[i].fieldCount;
  }

  value(i: number, slot: number): string {
    return this.rows[i].values[this.columns[slot]] ?? '';
  }
}

/** What ingest reads from a batch of either kind. */
export interface Records {
  readonly count: number;
  line(i: number): number;
  fieldCount(i: number): number;
  value(i: number, slot: number): string;
}
