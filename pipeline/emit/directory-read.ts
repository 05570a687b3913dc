import type Database from 'better-sqlite3';
import type { TaxonomyRow } from '../layouts/providers.ts';
import { searchKey } from '../../core/search-key.ts';
import { zipNumberAt } from '../../core/zip-number.ts';
import { specialtyNames, type SpecialtyName } from './specialty-keys.ts';

/** Every provider as small integers: NPI, and the id of each of its keys in the key lists beside. */
export interface ProviderRows {
  npi: Uint32Array;
  last: Uint32Array;
  first: Uint32Array;
  state: Uint32Array;
  city: Uint32Array;
  zip: Uint32Array;
  /** The ZIP code (ZCTA) each practice ZIP lies in, the place `near=` measures from. */
  zcta: Uint32Array;
  group: Uint32Array;
  lastKeys: string[];
  firstKeys: string[];
  stateKeys: string[];
  cityKeys: string[];
  zipKeys: string[];
  zctaKeys: string[];
  /** Specialty names of each taxonomy group (distinct primary taxonomy and specialty text). */
  groupNames: SpecialtyName[][];
}

/**
 * Interns the values of a column to ids: raw text is normalised once per distinct value. The values come as one
 * string per batch, separated by a character; they are hashed where they lie, so a value seen before costs a
 * hash and a comparison, not a new string (millions of short strings made the garbage collector the bottleneck).
 */
class Interner {
  readonly keys: string[] = [];
  private readonly idOfKey = new Map<string, number>();
  /** Distinct raw values, the key id of each, and the first raw value with each hash. */
  private readonly raws: string[] = [];
  private readonly keyOfRaw: number[] = [];
  private readonly rawOfHash = new Map<number, number>();
  /** Raw values whose hash an earlier, different value already has. */
  private readonly collided = new Map<string, number>();

  private readonly normalise: (raw: string) => string;

  constructor(normalise: (raw: string) => string) {
    this.normalise = normalise;
  }

  /** Writes the id of every `separator`-separated value of `text` to `out` from `at`; returns how many values there were. */
  internAll(text: string, separator: number, out: Uint32Array, at: number): number {
    let n = 0;
    let start = 0;
    for (let i = 0; i <= text.length; i++) {
      if (i === text.length || text.charCodeAt(i) === separator) {
        if (at + n >= out.length) return Infinity;
        out[at + n++] = this.internRange(text, start, i);
        start = i + 1;
      }
    }
    return n;
  }

  private internRange(text: string, start: number, end: number): number {
    let hash = 0x811c9dc5;
    for (let i = start; i < end; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
    hash = (hash ^ (end - start)) >>> 0;
    const known = this.rawOfHash.get(hash);
    if (known !== undefined) {
      const raw = this.raws[known];
      if (raw.length === end - start && text.startsWith(raw, start)) return this.keyOfRaw[known];
    }
    const raw = text.slice(start, end);
    const collided = known === undefined ? undefined : this.collided.get(raw);
    if (collided !== undefined) return this.keyOfRaw[collided];
    const key = this.normalise(raw);
    let id = this.idOfKey.get(key);
    if (id === undefined) {
      id = this.keys.length;
      this.keys.push(key);
      this.idOfKey.set(key, id);
    }
    const index = this.raws.length;
    this.raws.push(raw);
    this.keyOfRaw.push(id);
    if (known === undefined) this.rawOfHash.set(hash, index);
    else this.collided.set(raw, index);
    return id;
  }
}

/**
 * Rows per read. better-sqlite3 costs about a microsecond per row returned, so each batch (a rowid range of the
 * providers table, which is a rowid table) comes back as one row: one `group_concat` string per column.
 */
const READ_BATCH_ROWS = 65_536;

/**
 * One batch of providers as one row: how many, then each column's values joined (text columns with U+001F,
 * which no name, city or specialty contains; fixed-width ones without a separator). The columns are NOT NULL
 * but primary_taxonomy (a NULL would drop out of group_concat and fail the counts in internBatch).
 */
const BATCH_SQL = `SELECT COUNT(*), group_concat(npi, ''), group_concat(last_name, char(31)), group_concat(first_name, char(31)),
      group_concat(substr(state || '  ', 1, 2), ''), group_concat(city, char(31)), group_concat(substr(zip_code || '-----', 1, 5), ''),
      group_concat(substr(ifnull(zcta, '') || '-----', 1, 5), ''),
      group_concat(ifnull(primary_taxonomy, '') || char(30) || primary_specialty, char(31))
    FROM providers WHERE rowid > ? AND rowid <= ?`;

type Batch = [
  count: number,
  npis: string,
  lasts: string,
  firsts: string,
  states: string,
  cities: string,
  zips: string,
  zctas: string,
  groups: string,
];

/** The key lists being built: text columns interned by their normalised key, fixed-width codes by their characters. */
interface ColumnKeys {
  last: Interner;
  first: Interner;
  city: Interner;
  groups: Interner;
  states: StateInterner;
  zips: ZipInterner;
  zctas: ZipInterner;
}

type IdColumns = Omit<ProviderRows, `${string}Keys` | 'groupNames'>;

/** Every provider of the providers table as small integers, with the distinct keys they refer to. */
export function readProviders(
  db: Database.Database,
  taxonomy: ReadonlyMap<string, Pick<TaxonomyRow, 'classification' | 'specialization' | 'displayName'>>,
): ProviderRows {
  const total = db.prepare('SELECT COUNT(*) FROM providers').pluck().get() as number;
  const maxRowid = db.prepare('SELECT ifnull(MAX(rowid), 0) FROM providers').pluck().get() as number;
  const ids = (): Uint32Array => new Uint32Array(total);
  const rows: IdColumns = { npi: ids(), last: ids(), first: ids(), state: ids(), city: ids(), zip: ids(), zcta: ids(), group: ids() };
  const keys: ColumnKeys = {
    last: new Interner(searchKey),
    first: new Interner(searchKey),
    city: new Interner(searchKey),
    groups: new Interner((g) => g),
    states: new StateInterner(),
    zips: new ZipInterner(),
    zctas: new ZipInterner(),
  };
  const batch = db.prepare(BATCH_SQL).raw();
  let read = 0;
  for (let from = 0; from < maxRowid; from += READ_BATCH_ROWS) {
    const values = batch.get(from, from + READ_BATCH_ROWS) as Batch;
    if (values[0] === 0) continue;
    if (read + values[0] > total) throw new Error('providers grew while the directory was read');
    internBatch(values, keys, rows, read, from);
    read += values[0];
  }
  if (read !== total) throw new Error(`providers has ${total} rows but ${read} were read`);
  const groupNames = keys.groups.keys.map((g) => {
    const [code, text] = g.split('\x1e');
    return specialtyNames(code || null, text, taxonomy);
  });
  return {
    ...rows,
    lastKeys: keys.last.keys,
    firstKeys: keys.first.keys,
    stateKeys: keys.states.keys,
    cityKeys: keys.city.keys,
    zipKeys: keys.zips.keys,
    zctaKeys: keys.zctas.keys,
    groupNames,
  };
}

/** Writes the ids of one batch's providers into `rows` from `at` (`from`: the batch's first rowid less one, for the error). */
function internBatch(batch: Batch, keys: ColumnKeys, rows: IdColumns, at: number, from: number): void {
  const [count, npis, lasts, firsts, states, cities, zips, zctas, groups] = batch;
  // Every value of a column is accounted for, or a name held the separator and the directory would be wrong.
  const counts = [
    keys.last.internAll(lasts, 31, rows.last, at),
    keys.first.internAll(firsts, 31, rows.first, at),
    keys.city.internAll(cities, 31, rows.city, at),
    keys.groups.internAll(groups, 31, rows.group, at),
  ];
  if (
    counts.some((n) => n !== count) ||
    npis.length !== 10 * count ||
    states.length !== 2 * count ||
    zips.length !== 5 * count ||
    zctas.length !== 5 * count
  ) {
    throw new Error(
      `providers rows ${from + 1}-${from + READ_BATCH_ROWS}: a value contains the control character U+001F, or an NPI is not 10 digits; the directory cannot be built`,
    );
  }
  for (let k = 0, i = at; k < count; k++, i++) {
    let npi = 0;
    for (let d = 10 * k; d < 10 * k + 10; d++) npi = npi * 10 + npis.charCodeAt(d) - 48;
    rows.npi[i] = npi;
    rows.state[i] = keys.states.idAt(states, 2 * k);
    rows.zip[i] = keys.zips.idAt(zips, 5 * k);
    rows.zcta[i] = keys.zctas.idAt(zctas, 5 * k);
  }
}

/** Ids of two-letter state codes read from character codes, without a string per row; the key is trimmed and upper-cased. */
class StateInterner {
  readonly keys: string[] = [];
  private readonly idOfCode = new Int32Array(0x10000).fill(-1);

  /** The id of the code at `at` in `text`. */
  idAt(text: string, at: number): number {
    const code = ((text.charCodeAt(at) << 8) | text.charCodeAt(at + 1)) & 0xffff;
    let id = this.idOfCode[code];
    if (id < 0) {
      const key = text
        .slice(at, at + 2)
        .trim()
        .toUpperCase();
      id = this.keys.indexOf(key);
      if (id < 0) id = this.keys.push(key) - 1;
      this.idOfCode[code] = id;
    }
    return id;
  }
}

/** Ids of five-digit codes read from character codes, without a string or a map lookup per row; '' is the key of no usable code. */
class ZipInterner {
  readonly keys: string[] = [];
  private readonly idOfNumber = new Int32Array(100_001).fill(-1);

  /** The id of the code at `at` in `text`. */
  idAt(text: string, at: number): number {
    const read = zipNumberAt(text, at);
    const number = read < 0 ? 100_000 : read; // 100000: no usable code
    let id = this.idOfNumber[number];
    if (id < 0) {
      id = this.idOfNumber[number] = this.keys.length;
      this.keys.push(number === 100_000 ? '' : text.slice(at, at + 5));
    }
    return id;
  }
}
