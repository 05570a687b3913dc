import type { FacilityRow } from '../layouts/facilities.ts';

/** One facility after reconciling its sources: CMS for type, rating and emergency; HIFLD/CovidCareMap for location and beds. */
export interface Facility {
  id: number;
  name: string;
  type: string;
  address: string;
  city: string;
  state: string;
  zip: string | null;
  phone: string;
  website: string;
  latitude: number | null;
  longitude: number | null;
  staffedBeds: number | null;
  emergency: boolean;
  rating: number | null;
  ccn: string | null;
  sources: string[];
  isHospital: boolean;
}

export interface MergeStats {
  input_records: number;
  merged_records: number;
  facilities: number;
  by_rule: Record<string, number>;
}

const NAME_NOISE = /\b(THE|INC|LLC|CORP|CORPORATION|OF|AND|AT|CAMPUS|HOSP)\b|[^A-Z0-9 ]/g;

/** A name key that survives punctuation, "The", "Inc." and "&" vs "and" differences between sources. */
export function nameKey(name: string): string {
  return name.toUpperCase().replace(/&/g, ' AND ').replace(/HOSPITAL/g, 'HOSP').replace(NAME_NOISE, ' ').replace(/\s+/g, ' ').trim();
}

/**
 * Reconciles facility identities across sources so one hospital is one record: first by CMS certification
 * number, then by name key plus ZIP, then by name key plus city and state. HRSA sites are never hospitals
 * and merge only with a site of the same name at the same point.
 */
export function mergeFacilities(rows: FacilityRow[]): { facilities: Facility[]; stats: MergeStats } {
  const byCcn = new Map<string, Facility>();
  const byNameZip = new Map<string, Facility>();
  const byNameCity = new Map<string, Facility>();
  const facilities: Facility[] = [];
  const stats: MergeStats = { input_records: rows.length, merged_records: 0, facilities: 0, by_rule: {} };
  const sourceOrder = { cms: 0, covidcaremap: 1, hifld: 2, hrsa: 3 } as const;
  const ordered = [...rows].sort((a, b) => sourceOrder[a.source] - sourceOrder[b.source]);
  for (const row of ordered) {
    const key = nameKey(row.name);
    // Health-centre organisations run many sites under one name in one city: a site is the same site only
    // at the same point (to about 10 m). Hospitals match on name within a ZIP, or within a city.
    const site = row.source === 'hrsa' && row.latitude !== null ? `H${key}|${row.latitude.toFixed(4)}|${row.longitude!.toFixed(4)}` : null;
    const nameZip = site ?? (row.zip ? `${key}|${row.zip}` : null);
    const nameCity = site ?? `${key}|${row.city.toUpperCase()}|${row.state}`;
    let match: Facility | undefined;
    let rule = '';
    if (row.ccn && byCcn.has(row.ccn)) [match, rule] = [byCcn.get(row.ccn), 'ccn'];
    else if (site && byNameZip.has(site)) [match, rule] = [byNameZip.get(site), 'name+point'];
    else if (!site && nameZip && byNameZip.has(nameZip)) [match, rule] = [byNameZip.get(nameZip), 'name+zip'];
    else if (!site && byNameCity.has(nameCity)) [match, rule] = [byNameCity.get(nameCity), 'name+city+state'];
    if (match) {
      absorb(match, row);
      stats.merged_records++;
      stats.by_rule[rule] = (stats.by_rule[rule] ?? 0) + 1;
    } else {
      match = create(row, facilities.length + 1);
      facilities.push(match);
    }
    if (row.ccn && !byCcn.has(row.ccn)) byCcn.set(row.ccn, match);
    if (nameZip && !byNameZip.has(nameZip)) byNameZip.set(nameZip, match);
    if (!byNameCity.has(nameCity)) byNameCity.set(nameCity, match);
  }
  stats.facilities = facilities.length;
  return { facilities, stats };
}

function create(row: FacilityRow, id: number): Facility {
  return {
    id, name: row.name, type: row.type || 'Hospital', address: row.address, city: row.city, state: row.state, zip: row.zip,
    phone: row.phone, website: row.website, latitude: row.latitude, longitude: row.longitude, staffedBeds: row.staffedBeds,
    emergency: row.emergency ?? false, rating: row.rating, ccn: row.ccn, sources: [row.source], isHospital: row.source !== 'hrsa',
  };
}

/** Fills what the record lacks from a later source; earlier sources (CMS first) win on conflicts. */
function absorb(into: Facility, row: FacilityRow): void {
  if (!into.sources.includes(row.source)) into.sources.push(row.source);
  if (into.latitude === null && row.latitude !== null) [into.latitude, into.longitude] = [row.latitude, row.longitude];
  into.staffedBeds ??= row.staffedBeds;
  into.ccn ??= row.ccn;
  into.zip ??= row.zip;
  into.rating ??= row.rating;
  if (!into.address) into.address = row.address;
  if (!into.phone) into.phone = row.phone;
  if (!into.website) into.website = row.website;
}
