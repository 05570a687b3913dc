import { nameKey } from './names.ts';
import type { Facility } from './roster.ts';

/**
 * Distinct clinicians affiliated with each facility (Doctors and Clinicians facility and hospital names, same
 * state), from the (clinician, state, name) rows in table order (store/providers.ts): each facility keeps the
 * set of NPIs it has counted. A DISTINCT ... ORDER BY npi over the national file took 7-10 s (a sort, and a
 * seek per row through the NPI index); this reads its million rows in under 2 s, and the sets hold one entry
 * per distinct pair.
 */
export function facilityProviderCounts(
  rows: Iterable<[npi: string, state: string, name: string]>,
  facilities: ReadonlyArray<Pick<Facility, 'id' | 'name' | 'state'>>,
): Map<number, number> {
  const byKey = new Map<string, number>();
  for (const f of facilities) byKey.set(`${nameKey(f.name)}|${f.state}`, f.id);
  const keyOf = new Map<string, number | null>();
  const clinicians = new Map<number, Set<string>>();
  for (const [npi, state, name] of rows) {
    const lookup = `${name}|${state}`;
    let id = keyOf.get(lookup);
    if (id === undefined) {
      id = byKey.get(`${nameKey(name)}|${state}`) ?? null;
      keyOf.set(lookup, id);
    }
    if (id === null) continue;
    let npis = clinicians.get(id);
    if (npis === undefined) clinicians.set(id, (npis = new Set()));
    npis.add(npi);
  }
  return new Map([...clinicians].map(([id, npis]) => [id, npis.size]));
}
