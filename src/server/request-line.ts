import type { LogLevel } from './settings.ts';

/**
 * One line of the request log. `key_id` is the id `hcas keys list` shows, never the key; `plan` is the
 * caller's plan id, `anonymous`, or absent when limits are off; `client` is the address the quota is
 * counted for (X-Forwarded-For from a trusted proxy, else the socket peer).
 */
export interface RequestRecord {
  time: string;
  level: LogLevel;
  request_id: string;
  method: string;
  path: string;
  /** The route pattern (`/api/v1/health-scores/:zip/`), or absent for a path no route serves. */
  route?: string;
  status: number;
  duration_ms: number;
  bytes: number;
  client: string;
  key_id?: number;
  plan?: string;
}

/**
 * The most bytes a request's line takes beyond 6 per character of its text: the names, the punctuation and
 * the numbers. JSON.stringify writes a character as at most 6 bytes (`\u001f`, a lone surrogate as `\udXXX`).
 */
const FIXED_BYTES = 320;

/** The most bytes `writeRequestLine` writes for `record`. */
export function requestLineBytes(record: RequestRecord): number {
  const { time, request_id, method, path, route, client, plan } = record;
  const textLength =
    time.length + request_id.length + method.length + path.length + (route?.length ?? 0) + client.length + (plan?.length ?? 0);
  return FIXED_BYTES + 6 * textLength;
}

/**
 * Writes a request's line into `slab` at `at` and returns where it ends: the bytes of `JSON.stringify(record)`
 * and a newline (a test holds them equal over random records), written in one pass without building the line
 * as a string: the fields' order is known, numbers are written digit by digit, and text is escaped only when
 * it needs to be. The log writes one per request, and as a string the line is a rope of some 25 pieces,
 * flattened when the lines are joined, then encoded: work on every request that this pass skips
 * (bench/request-costs.ts times both, "the line alone" and "JSON.stringify of the record"). `slab` must have
 * `requestLineBytes(record)` bytes free.
 */
export function writeRequestLine(slab: Buffer, at: number, record: RequestRecord): number {
  at = head(slab, at, record.time, record.level);
  at = text(slab, at, record.request_id);
  at = ascii(slab, at, ',"method":');
  at = text(slab, at, record.method);
  at = ascii(slab, at, ',"path":');
  at = text(slab, at, record.path);
  if (record.route !== undefined) {
    at = ascii(slab, at, ',"route":');
    at = text(slab, at, record.route);
  }
  at = ascii(slab, at, ',"status":');
  at = integer(slab, at, record.status);
  at = ascii(slab, at, ',"duration_ms":');
  at = milliseconds(slab, at, record.duration_ms);
  at = ascii(slab, at, ',"bytes":');
  at = integer(slab, at, record.bytes);
  at = ascii(slab, at, ',"client":');
  at = text(slab, at, record.client);
  if (record.key_id !== undefined) {
    at = ascii(slab, at, ',"key_id":');
    at = integer(slab, at, record.key_id);
  }
  if (record.plan !== undefined) {
    at = ascii(slab, at, ',"plan":');
    at = text(slab, at, record.plan);
  }
  slab[at++] = 0x7d; // }
  slab[at++] = 0x0a; // \n
  return at;
}

/**
 * The line's first bytes, up to the request id's value: `{"time":...,"level":...,"request_id":`. They change
 * once a millisecond (isoTime), while a busy server writes dozens of lines in one, so they are made once and
 * copied.
 */
let headTime = '';
let headLevel = '';
let headBytes = Buffer.alloc(0);
function head(slab: Buffer, at: number, time: string, level: string): number {
  if (time !== headTime || level !== headLevel || headBytes.length === 0) {
    headTime = time;
    headLevel = level;
    headBytes = Buffer.from(`{"time":${JSON.stringify(time)},"level":${JSON.stringify(level)},"request_id":`, 'utf8');
  }
  slab.set(headBytes, at);
  return at + headBytes.length;
}

/** Text known to be printable ASCII without `"` or `\\` (names, numbers), as it is. */
function ascii(slab: Buffer, at: number, value: string): number {
  for (let i = 0; i < value.length; i++) slab[at++] = value.charCodeAt(i);
  return at;
}

/** A JSON string: quoted as it is when it is printable ASCII without `"` or `\\`, else as JSON.stringify writes it. */
function text(slab: Buffer, at: number, value: string): number {
  const start = at;
  slab[at++] = 0x22;
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code < 0x20 || code > 0x7e || code === 0x22 || code === 0x5c) return start + slab.write(JSON.stringify(value), start);
    slab[at++] = code;
  }
  slab[at++] = 0x22;
  return at;
}

/** A number as JSON.stringify writes it: digit by digit for a safe integer of at least 0 (statuses, sizes, ids). */
function integer(slab: Buffer, at: number, value: number): number {
  if (!(Number.isSafeInteger(value) && value >= 0)) return ascii(slab, at, JSON.stringify(value));
  let end = at + 1;
  for (let rest = value; rest >= 10; rest = Math.floor(rest / 10)) end++;
  for (let i = end - 1, rest = value; i >= at; i--, rest = Math.floor(rest / 10)) slab[i] = 0x30 + (rest % 10);
  return end;
}

/**
 * A duration in milliseconds rounded to the microsecond (server.ts), as JSON.stringify writes it: the whole
 * milliseconds, then up to three decimals without trailing zeros. That is the shortest text that reads back
 * as the same number while doubles are far finer than a microsecond (below 10^12 ms); anything else goes
 * through JSON.stringify. String(number) of a fraction cost about a tenth of a microsecond.
 */
function milliseconds(slab: Buffer, at: number, value: number): number {
  const micros = Math.round(value * 1000);
  if (!(micros >= 0 && micros < 1e15 && micros / 1000 === value)) return ascii(slab, at, JSON.stringify(value));
  at = integer(slab, at, Math.floor(micros / 1000));
  let fraction = micros % 1000;
  if (fraction === 0) return at;
  slab[at++] = 0x2e; // .
  let digits = 3;
  for (; fraction % 10 === 0; digits--) fraction /= 10;
  for (let i = at + digits - 1; i >= at; i--, fraction = Math.floor(fraction / 10)) slab[i] = 0x30 + (fraction % 10);
  return at + digits;
}
