import { StringDecoder } from 'node:string_decoder';
/** One data row: its 1-based physical line, its fields (possibly only the first few) and its field count in the file. */
export interface RawRecord {
  line: number;
  values: string[];
  fieldCount: number;
}

export interface SplitOptions {
  delimiter: string;
  /** false for formats that never quote (tab-separated Census files), so a stray `"` stays literal. */
  quote: boolean;
  /** Fields past this many are skipped without being copied (the wide NPPES file needs its first 107 of 330). */
  maxFields?: number;
}

const QUOTE = 34;
const LF = 10;
const CR = 13;

/**
 * Splits delimited text (RFC 4180: quoted fields, doubled quotes, newlines inside quotes, CRLF or LF) into
 * records, streaming, in batches. The build's reader was this string splitter until the byte splitter
 * (pipeline/ingest/split.ts) replaced it; it stays here, under test/, as the reference reader's splitter
 * (reference-reader.ts), checked against csv-parse (test/fast-csv.test.ts), so tests can check the byte
 * splitter and whole ingests against it.
 * Lines are counted physically, so a record's `line` is the line it starts on.
 */
export async function* splitRecords(stream: AsyncIterable<Buffer | string>, options: SplitOptions): AsyncGenerator<RawRecord[]> {
  const decoder = new StringDecoder('utf8');
  const delimiter = options.delimiter.charCodeAt(0);
  let carry = '';
  let line = 1;
  let first = true;
  const parse = (text: string, final: boolean): RawRecord[] => {
    const records: RawRecord[] = [];
    // Position of the next LF at or after the field being read: found once per line, not once per field.
    let nextLf = -1;
    const newlinesIn = (from: number, to: number): number => {
      if (nextLf < from) nextLf = indexOrEnd(text, from);
      let count = 0;
      while (nextLf < to) {
        count++;
        nextLf = indexOrEnd(text, nextLf + 1);
      }
      return count;
    };
    const length = text.length;
    // Read per chunk: the caller narrows it once it has seen the header.
    const maxFields = options.maxFields ?? Infinity;
    let pos = 0;
    while (pos < length) {
      const start = pos;
      const startLine = line;
      const values: string[] = [];
      let newlines = 0;
      let fieldCount = 0;
      let complete = false;
      for (;;) {
        if (values.length >= maxFields) {
          // Past the last wanted field: jump to the end of the line when the rest of it has balanced quotes
          // (no quoted newline), instead of walking the remaining fields one by one.
          const lineEnd = text.indexOf('\n', pos);
          const skipped = lineEnd === -1 ? -1 : fieldsIfBalanced(text, pos, lineEnd, delimiter, options.quote);
          if (skipped >= 0) {
            fieldCount += skipped;
            pos = lineEnd;
            if (pos > start && text.charCodeAt(pos - 1) === CR) pos--;
          }
        }
        let value: string | null = null;
        if (options.quote && text.charCodeAt(pos) === QUOTE) {
          // Quoted field: jump from quote to quote; a doubled quote is an escaped one.
          let from = pos + 1;
          let escaped = false;
          let close = -1;
          for (;;) {
            const q = text.indexOf('"', from);
            if (q === -1 || (q + 1 === length && !final)) break;
            if (text.charCodeAt(q + 1) === QUOTE) {
              escaped = true;
              from = q + 2;
              continue;
            }
            close = q;
            break;
          }
          if (close === -1 && final) {
            // An unclosed quote at the end of the file: keep the rest as the field so the row is reported, not lost.
            if (values.length < maxFields) values.push(text.slice(pos + 1));
            fieldCount++;
            pos = length;
            complete = true;
            break;
          }
          if (close === -1) break; // the record continues in the next chunk
          if (values.length < maxFields) {
            const raw = text.slice(pos + 1, close);
            value = escaped ? raw.replaceAll('""', '"') : raw;
          }
          newlines += newlinesIn(pos + 1, close);
          pos = close + 1;
          // Tolerate text between the closing quote and the delimiter (`"abc"def`), keeping it, as csv-parse's relax_quotes does.
          let end = pos;
          while (end < length && text.charCodeAt(end) !== delimiter && text.charCodeAt(end) !== LF && text.charCodeAt(end) !== CR) end++;
          if (end > pos && value !== null) value += text.slice(pos, end);
          pos = end;
        } else {
          let end = pos;
          while (end < length) {
            const c = text.charCodeAt(end);
            if (c === delimiter || c === LF || c === CR) break;
            end++;
          }
          if (values.length < maxFields) value = text.slice(pos, end);
          pos = end;
        }
        if (value !== null) values.push(value);
        fieldCount++;
        if (pos >= length) {
          if (final) complete = true;
          break;
        }
        const c = text.charCodeAt(pos);
        if (c === delimiter) {
          pos++;
          if (pos < length) continue;
          if (!final) break;
          if (values.length < maxFields) values.push('');
          fieldCount++;
          complete = true;
          break;
        }
        // End of line: LF, CRLF, or a lone CR.
        if (c === CR) {
          if (pos + 1 >= length && !final) break;
          pos += text.charCodeAt(pos + 1) === LF ? 2 : 1;
        } else {
          pos++;
        }
        newlines++;
        complete = true;
        break;
      }
      if (!complete) {
        carry = text.slice(start);
        return records;
      }
      line = startLine + newlines;
      // Blank lines are skipped, as csv-parse's skip_empty_lines does.
      const firstChar = text.charCodeAt(start);
      if (!(firstChar === LF || firstChar === CR || start === length)) records.push({ line: startLine, values, fieldCount });
    }
    carry = '';
    return records;
  };
  for await (const chunk of stream) {
    let text = carry + decoder.write(chunk as Buffer);
    if (first) {
      text = text.replace(/^\uFEFF/, '');
      first = false;
    }
    const records = parse(text, false);
    if (records.length) yield records;
  }
  const rest = carry + decoder.end();
  if (rest.length) {
    const records = parse(first ? rest.replace(/^\uFEFF/, '') : rest, true);
    if (records.length) yield records;
  }
}

/**
 * The number of delimiters outside quotes in text[from, to), or -1 when the quotes there do not balance
 * (a quoted field runs past the line end, so the caller must walk the fields one by one).
 */
function fieldsIfBalanced(text: string, from: number, to: number, delimiter: number, quoting: boolean): number {
  let quoted = false;
  let delimiters = 0;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE && quoting) quoted = !quoted;
    else if (c === delimiter && !quoted) delimiters++;
  }
  return quoted ? -1 : delimiters;
}

function indexOrEnd(text: string, from: number): number {
  const index = text.indexOf('\n', from);
  return index === -1 ? text.length : index;
}
