import type Database from 'better-sqlite3';
import { encodeUint32, PROVIDER_ARRAYS, type PostingKind } from '../../core/directory-format.ts';
import type { TaxonomyRow } from '../layouts/providers.ts';
import { readProviders, type ProviderRows } from './directory-read.ts';
import { emitFacilityIndex } from './facility-index.ts';
import type { SpecialtyName } from './specialty-keys.ts';

/**
 * The provider directory index (docs/schema.md, "Provider directory"): every provider gets a rank, its
 * position in the directory order (last name, first name, NPI, on search keys), and each filter value gets
 * the sorted list of the ranks it matches, stored as a little-endian uint32 BLOB. The API answers a query by
 * intersecting a few of these lists in memory, so `count` is exact and any page costs the same, with no
 * SQL `COUNT(*)` or `OFFSET` over millions of rows.
 *
 * Last names need no list: ranks are in last-name order, so a last-name prefix is one interval of ranks
 * (`provider_last_names`). First names get an id in key order (`provider_first_names`), so a first-name prefix
 * is a range of ids, whose ranks are one slice of `first_order` (all ranks grouped by first name).
 *
 * One pass reads the providers table; everything else is counting sorts over typed arrays. The facilities get
 * their list-order index too (`facility_index`, pipeline/emit/facility-index.ts).
 */
export function emitDirectory(
  db: Database.Database,
  taxonomy: ReadonlyMap<string, Pick<TaxonomyRow, 'classification' | 'specialization' | 'displayName'>>,
  log: (line: string) => void = () => {},
): DirectoryStats {
  const started = Date.now();
  const rows = readProviders(db, taxonomy);
  const read = Date.now();
  const lastPosition = sortedPositions(rows.lastKeys);
  const firstPosition = sortedPositions(rows.firstKeys);
  const order = directoryOrder(rows, lastPosition, firstPosition);
  const size = order.length;
  const npiByRank = new Uint32Array(size);
  const firstIdByRank = new Uint32Array(size); // only to group the ranks by first name below
  for (let rank = 0; rank < size; rank++) {
    const row = order[rank];
    npiByRank[rank] = rows.npi[row];
    firstIdByRank[rank] = firstPosition[rows.first[row]];
  }
  const ordered = Date.now();

  const insertPosting = db.prepare('INSERT INTO provider_postings (kind, key, count, ranks) VALUES (?, ?, ?, ?)');
  const insertArray = db.prepare('INSERT INTO provider_arrays (name, length, data) VALUES (?, ?, ?)');
  const insertLast = db.prepare('INSERT INTO provider_last_names (name_key, first_rank, count) VALUES (?, ?, ?)');
  const insertFirst = db.prepare('INSERT INTO provider_first_names (name_key, first_id, start, count) VALUES (?, ?, ?, ?)');
  const insertSpecialty = db.prepare('INSERT INTO provider_specialties (key, name, sources, providers) VALUES (?, ?, ?, ?)');
  emitFacilityIndex(db);
  db.transaction(() => {
    insertArray.run(PROVIDER_ARRAYS.npiByRank, size, encodeUint32(npiByRank));

    // Last names: ranks are in last-name order, so each name is a run starting at its first rank.
    const lastCounts = new Uint32Array(rows.lastKeys.length);
    for (let row = 0; row < size; row++) lastCounts[lastPosition[rows.last[row]]]++;
    const lastByPosition = byPosition(rows.lastKeys, lastPosition);
    for (let position = 0, start = 0; position < lastByPosition.length; start += lastCounts[position++]) {
      if (lastCounts[position] > 0) insertLast.run(lastByPosition[position], start, lastCounts[position]);
    }

    // First names: the ranks of each first name, in rank order, one run per name.
    const firstGroups = groupRanks(firstIdByRank, rows.firstKeys.length);
    insertArray.run(PROVIDER_ARRAYS.firstOrder, size, encodeUint32(firstGroups.ranks));
    const firstByPosition = byPosition(rows.firstKeys, firstPosition);
    for (let position = 0; position < firstByPosition.length; position++) {
      insertFirst.run(
        firstByPosition[position],
        position,
        firstGroups.starts[position],
        firstGroups.starts[position + 1] - firstGroups.starts[position],
      );
    }

    const postings = (kind: PostingKind, keys: readonly string[], keyOfRow: Uint32Array) => {
      const groups = groupRanks(keyOfRow, keys.length, order);
      for (let id = 0; id < keys.length; id++) {
        const ranks = groups.ranks.subarray(groups.starts[id], groups.starts[id + 1]);
        if (ranks.length > 0 && keys[id] !== '') insertPosting.run(kind, keys[id], ranks.length, encodeUint32(ranks));
      }
    };
    postings('state', rows.stateKeys, rows.state);
    postings('city', rows.cityKeys, rows.city);
    postings('zip', rows.zipKeys, rows.zip);
    postings('zcta', rows.zctaKeys, rows.zcta);

    // Specialties: a provider is in the list of each name its taxonomy group answers to.
    const { keys: specialtyKeys, names: specialtyInfo, ofGroup } = specialtyIndex(rows.groupNames);
    // The key ids of each group, flattened: group g has ids[offsets[g]..offsets[g + 1]).
    const offsets = new Uint32Array(ofGroup.length + 1);
    ofGroup.forEach((ids, g) => (offsets[g + 1] = offsets[g] + ids.length));
    const ids = Uint32Array.from(ofGroup.flat());
    const counts = new Uint32Array(specialtyKeys.length + 1);
    for (let row = 0; row < size; row++) {
      const g = rows.group[row];
      for (let k = offsets[g]; k < offsets[g + 1]; k++) counts[ids[k] + 1]++;
    }
    for (let id = 0; id < specialtyKeys.length; id++) counts[id + 1] += counts[id];
    const starts = counts.slice();
    const specialtyRanks = new Uint32Array(counts[specialtyKeys.length]);
    for (let rank = 0; rank < size; rank++) {
      const g = rows.group[order[rank]];
      for (let k = offsets[g]; k < offsets[g + 1]; k++) specialtyRanks[counts[ids[k]]++] = rank;
    }
    for (let id = 0; id < specialtyKeys.length; id++) {
      const ranks = specialtyRanks.subarray(starts[id], starts[id + 1]);
      if (ranks.length === 0) continue;
      insertPosting.run('specialty' satisfies PostingKind, specialtyKeys[id], ranks.length, encodeUint32(ranks));
      insertSpecialty.run(specialtyKeys[id], specialtyInfo[id].name, [...specialtyInfo[id].sources].sort().join(','), ranks.length);
    }
  })();
  const stats: DirectoryStats = {
    providers: size,
    last_names: rows.lastKeys.length,
    first_names: rows.firstKeys.length,
    states: rows.stateKeys.length,
    cities: rows.cityKeys.length,
    zips: rows.zipKeys.length,
    zctas: rows.zctaKeys.length,
    specialty_groups: rows.groupNames.length,
    read_seconds: (read - started) / 1000,
    order_seconds: (ordered - read) / 1000,
    seconds: (Date.now() - started) / 1000,
  };
  log(
    `  directory: ${size} providers ranked; ${stats.last_names} last and ${stats.first_names} first names, ${stats.cities} cities, ${stats.zips} ZIPs (${stats.seconds.toFixed(1)} s: read ${stats.read_seconds.toFixed(1)}, order ${stats.order_seconds.toFixed(1)}, write ${(stats.seconds - stats.read_seconds - stats.order_seconds).toFixed(1)})`,
  );
  return stats;
}

export interface DirectoryStats {
  providers: number;
  last_names: number;
  first_names: number;
  states: number;
  cities: number;
  zips: number;
  zctas: number;
  specialty_groups: number;
  read_seconds: number;
  order_seconds: number;
  seconds: number;
}

/** The position of each key (by id) in the sorted list of keys; JavaScript string order, which is SQLite's on search keys. */
function sortedPositions(keys: readonly string[]): Uint32Array {
  const ids = Array.from(keys.keys()).sort((a, b) => (keys[a] < keys[b] ? -1 : keys[a] > keys[b] ? 1 : 0));
  const position = new Uint32Array(keys.length);
  ids.forEach((id, p) => (position[id] = p));
  return position;
}

function byPosition(keys: readonly string[], position: Uint32Array): string[] {
  const sorted = new Array<string>(keys.length);
  keys.forEach((key, id) => (sorted[position[id]] = key));
  return sorted;
}

/** Rows in directory order (last name, first name, NPI): stable counting sorts from the least significant key. */
function directoryOrder(rows: ProviderRows, lastPosition: Uint32Array, firstPosition: Uint32Array): Uint32Array {
  const size = rows.npi.length;
  const bucket = new Uint32Array(size);
  let order: Uint32Array = new Uint32Array(size);
  let npiOrder = true;
  for (let i = 0; i < size; i++) {
    order[i] = i;
    if (i > 0 && rows.npi[i] < rows.npi[i - 1]) npiOrder = false;
  }
  if (!npiOrder) {
    for (let i = 0; i < size; i++) bucket[i] = rows.npi[i] & 0xffff;
    order = countingSort(order, bucket, 0x10000);
    for (let i = 0; i < size; i++) bucket[i] = rows.npi[i] >>> 16;
    order = countingSort(order, bucket, 0x10000);
  }
  for (let i = 0; i < size; i++) bucket[i] = firstPosition[rows.first[i]];
  order = countingSort(order, bucket, firstPosition.length);
  for (let i = 0; i < size; i++) bucket[i] = lastPosition[rows.last[i]];
  return countingSort(order, bucket, lastPosition.length);
}

/** `items` stably sorted by `bucketOf[item]`, which is below `buckets`. */
function countingSort(items: Uint32Array, bucketOf: Uint32Array, buckets: number): Uint32Array {
  const starts = new Uint32Array(buckets + 1);
  for (let i = 0; i < items.length; i++) starts[bucketOf[items[i]] + 1]++;
  for (let b = 0; b < buckets; b++) starts[b + 1] += starts[b];
  const sorted = new Uint32Array(items.length);
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    sorted[starts[bucketOf[item]]++] = item;
  }
  return sorted;
}

/**
 * All ranks grouped by key, ascending within each group; group `k` is `ranks[starts[k]..starts[k + 1])`.
 * `keyOfRow` is indexed by row, `order` maps ranks to rows (absent: the key array is indexed by rank).
 */
function groupRanks(keyOfRow: Uint32Array, keys: number, order?: Uint32Array): { ranks: Uint32Array; starts: Uint32Array } {
  const size = keyOfRow.length;
  const keyOfRank = order ? new Uint32Array(size) : keyOfRow;
  if (order) for (let rank = 0; rank < size; rank++) keyOfRank[rank] = keyOfRow[order[rank]];
  const starts = new Uint32Array(keys + 1);
  for (let rank = 0; rank < size; rank++) starts[keyOfRank[rank] + 1]++;
  for (let k = 0; k < keys; k++) starts[k + 1] += starts[k];
  const next = starts.slice();
  const ranks = new Uint32Array(size);
  for (let rank = 0; rank < size; rank++) ranks[next[keyOfRank[rank]]++] = rank;
  return { ranks, starts };
}

/** Specialty keys by id, with a display name and sources each, and the key ids of every taxonomy group. */
function specialtyIndex(groupNames: SpecialtyName[][]) {
  const idOf = new Map<string, number>();
  const keys: string[] = [];
  const names: Array<{ name: string; sources: Set<string> }> = [];
  const ofGroup = groupNames.map((list) =>
    list.map(({ key, name, source }) => {
      let id = idOf.get(key);
      if (id === undefined) {
        id = keys.length;
        idOf.set(key, id);
        keys.push(key);
        names.push({ name: source === 'alias' ? key : name, sources: new Set() });
      }
      names[id].sources.add(source);
      return id;
    }),
  );
  return { keys, names, ofGroup };
}
