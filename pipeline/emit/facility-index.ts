import type Database from 'better-sqlite3';
import { encodeUint32, FACILITY_INDEX, KEY_SEPARATOR, stateNumber } from '../../core/directory-format.ts';
import { searchKey } from '../../core/search-key.ts';

/**
 * The facilities in list order (name search key, then id) with the columns the facilities list filters on,
 * as a few arrays in `facility_index` (docs/schema.md), so the API loads all 85,000 in a few milliseconds
 * instead of normalising and sorting them on its first request.
 */
export function emitFacilityIndex(db: Database.Database): number {
  const rows = (
    db
      .prepare('SELECT id, facility_name, facility_type, state_code, emergency_services, facility_rating FROM facilities')
      .raw()
      .all() as Array<[number, string, string, string, number, number | null]>
  )
    .map((row) => ({ row, name: searchKey(row[1]) }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.row[0] - b.row[0]));
  const typeKeys: string[] = [];
  const typeIdOf = new Map<string, number>();
  const typeIds = Uint32Array.from(rows, ({ row }) => {
    const key = searchKey(row[2]);
    let id = typeIdOf.get(key);
    if (id === undefined) typeIdOf.set(key, (id = typeKeys.push(key) - 1));
    return id;
  });
  const arrays: Record<string, Uint32Array | string> = {
    [FACILITY_INDEX.id]: Uint32Array.from(rows, ({ row }) => row[0]),
    [FACILITY_INDEX.type]: typeIds,
    [FACILITY_INDEX.state]: Uint32Array.from(rows, ({ row }) => stateNumber(row[3])),
    [FACILITY_INDEX.emergency]: Uint32Array.from(rows, ({ row }) => row[4]),
    [FACILITY_INDEX.rating]: Uint32Array.from(rows, ({ row }) => row[5] ?? 0),
    [FACILITY_INDEX.nameKeys]: rows.map(({ name }) => name).join(KEY_SEPARATOR),
    [FACILITY_INDEX.typeKeys]: typeKeys.join(KEY_SEPARATOR),
  };
  const insert = db.prepare('INSERT INTO facility_index (name, data) VALUES (?, ?)');
  db.transaction(() => {
    for (const [name, data] of Object.entries(arrays)) {
      insert.run(name, typeof data === 'string' ? Buffer.from(data, 'utf8') : encodeUint32(data));
    }
  })();
  return rows.length;
}
