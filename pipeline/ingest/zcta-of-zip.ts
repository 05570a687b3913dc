import { zipNumber } from '../../core/zip-number.ts';

/**
 * The ZCTA a provider's ZIP lies in: the HUD/UDS crosswalk's answer, else the ZIP itself when it is a ZCTA,
 * else none. Provider files ask once per row, 5.7 million times in a national build, so the answer for every
 * five-digit ZIP is looked up once, here, and kept in a table indexed by the ZIP's number: two Map lookups a
 * row (their hash tables, key strings and crosswalk rows scattered through memory) were a tenth of the main
 * thread's time while NPPES was read. The ZCTA strings returned are the very strings the maps hold.
 */
export class ZctaOfZip {
  /** Per ZIP number: 0 = no ZCTA, else 1 + the index of its ZCTA in `names`. */
  private readonly ids = new Int32Array(100_000);
  private readonly names: string[] = [];
  private readonly byMaps: (zip: string) => string | null;

  constructor(zipToZcta: ReadonlyMap<string, { zcta: string }>, zctas: ReadonlyMap<string, unknown>) {
    this.byMaps = (zip) => zipToZcta.get(zip)?.zcta ?? (zctas.has(zip) ? zip : null);
    const nameIds = new Map<string, number>();
    for (const zip of [...zipToZcta.keys(), ...zctas.keys()]) {
      const number = zipNumber(zip);
      if (number < 0) continue;
      const zcta = this.byMaps(zip);
      if (zcta === null) continue;
      let id = nameIds.get(zcta);
      if (id === undefined) nameIds.set(zcta, (id = this.names.push(zcta)));
      this.ids[number] = id;
    }
  }

  of(zip: string): string | null {
    const number = zipNumber(zip);
    // Anything but five ASCII digits (a layout passing some other form) is asked of the maps themselves.
    if (number < 0) return this.byMaps(zip);
    const id = this.ids[number];
    return id === 0 ? null : this.names[id - 1];
  }
}
