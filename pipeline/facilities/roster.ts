import type { RejectKind } from '../base/errors.ts';
import type { RowOrigin, SourcedFacilityRow } from '../ingest/ingested.ts';
import type { FacilityRow } from '../layouts/facilities.ts';
import { PointIndex } from '../geo/point-index.ts';
import { nameKey, namesAgree } from './names.ts';

/** One facility of the roster: CMS is the record of the hospitals it lists; HIFLD and CovidCareMap add place and beds. */
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
  licensedBeds: number | null;
  emergency: boolean;
  rating: number | null;
  traumaLevel: number | null;
  ccn: string | null;
  sources: string[];
  isHospital: boolean;
}

/** A raw row the roster leaves out, with why (reported in rejects.csv like any other rejected row). */
export interface Withdrawn {
  origin: RowOrigin;
  reason: string;
  kind: RejectKind;
}

export interface RosterStats {
  input_records: number;
  facilities: number;
  hospitals: number;
  health_center_sites: number;
  /** How many hospitals came from where: the CMS roster, or open HIFLD hospitals CMS does not list. */
  roster: Record<string, number>;
  /** Source records joined to a facility, by the rule that joined them. */
  joined: Record<string, number>;
  /** Source records left out, by reason. */
  excluded: Record<string, number>;
  /** Hospitals counted as emergency departments though no source said so, by the rule that says they have one. */
  emergency_inferred: Record<string, number>;
}

/** Options: where a ZIP lies (CMS lists no coordinates), and how far apart two records of one hospital may be. */
export interface RosterOptions {
  zipPoint: (zip: string) => { latitude: number; longitude: number } | null;
  matchMiles: number;
}

/**
 * Serial ranges (digits 3-6 of a CCN) of the hospital types the CMS Hospital General Information file
 * lists: short-term acute 0001-0879, critical access 1300-1399, children's 3300-3399, psychiatric 4000-4499.
 * A record carrying such a CCN that the current file lacks is closed or no longer certified under it.
 * Long-term care (2000-2299) and rehabilitation (3025-3099) hospitals are not in that file.
 */
const CMS_LISTED_SERIALS: Array<[number, number]> = [
  [1, 879],
  [1300, 1399],
  [3300, 3399],
  [4000, 4499],
];

export function cmsListsCcnType(ccn: string): boolean {
  const serial = Number(ccn.slice(2, 6));
  return Number.isInteger(serial) && CMS_LISTED_SERIALS.some(([low, high]) => serial >= low && serial <= high);
}

/** CCN serial ranges that fix a hospital's type whatever a source's TYPE column says (HIFLD calls many long-term acute care hospitals "General Acute Care"). */
const TYPE_OF_SERIAL: Array<[number, number, string]> = [
  [2000, 2299, 'Long-Term Care Hospital'],
  [3025, 3099, 'Rehabilitation Hospital'],
  [4000, 4499, 'Psychiatric Hospital'],
];

function typeFromCcn(ccn: string | null): string | null {
  const serial = ccn ? Number(ccn.slice(2, 6)) : NaN;
  return TYPE_OF_SERIAL.find(([low, high]) => serial >= low && serial <= high)?.[2] ?? null;
}

const VETERANS = /\b(VA|VAMC|VETERANS?|VETERANS')\b/;
const CRITICAL_ACCESS = /critical access/i;

/**
 * Builds the facility roster. Hospitals: the current CMS Hospital General Information file is the roster of
 * record. CovidCareMap rows join it by CCN (HCRIS.ID) and HIFLD rows join through CovidCareMap's HIFLD.ID;
 * rows with no such link join a CMS hospital of an agreeing name within `matchMiles`. A row whose CCN is of
 * a type CMS lists but is missing from the current file is a closed hospital and is left out, as are
 * hospitals HIFLD marks CLOSED. Open HIFLD hospitals that join nothing are added (long-term care,
 * rehabilitation, military and Indian Health Service hospitals CMS does not list). HRSA health centre sites
 * are kept as sites, one per name and point.
 */
export function buildRoster(
  rows: SourcedFacilityRow[],
  options: RosterOptions,
): { facilities: Facility[]; withdrawn: Withdrawn[]; stats: RosterStats } {
  const roster = new Roster(rows);
  const byCcn = cmsHospitals(roster);
  const { candidates } = hifldJoins(roster, covidCareMapJoins(roster, byCcn));
  const added = nameJoins(roster, candidates, options);
  for (const facility of added) facility.type = typeFromCcn(facility.ccn) ?? facility.type;
  const sites = healthCenterSites(roster);
  inferEmergency(roster);
  const { facilities, withdrawn, stats } = roster;
  stats.facilities = facilities.length;
  stats.hospitals = facilities.filter((f) => f.isHospital).length;
  stats.health_center_sites = sites;
  return { facilities, withdrawn, stats };
}

/** The roster being built: its records, the rows withdrawn, and the counts of how each was placed. */
class Roster {
  readonly facilities: Facility[] = [];
  readonly withdrawn: Withdrawn[] = [];
  readonly stats: RosterStats;
  private readonly rows: SourcedFacilityRow[];

  constructor(rows: SourcedFacilityRow[]) {
    this.rows = rows;
    this.stats = {
      input_records: rows.length,
      facilities: 0,
      hospitals: 0,
      health_center_sites: 0,
      roster: {},
      joined: {},
      excluded: {},
      emergency_inferred: {},
    };
  }

  bySource(source: FacilityRow['source']): SourcedFacilityRow[] {
    return this.rows.filter((r) => r.source === source);
  }

  bump(record: Record<string, number>, key: string): void {
    record[key] = (record[key] ?? 0) + 1;
  }

  exclude(row: SourcedFacilityRow, reason: string, group: string): void {
    this.withdrawn.push({ origin: row.origin, reason, kind: 'excluded' });
    this.bump(this.stats.excluded, group);
  }

  add(row: SourcedFacilityRow, rosterSource: string): Facility {
    const facility = create(row, this.facilities.length + 1);
    this.facilities.push(facility);
    this.bump(this.stats.roster, rosterSource);
    return facility;
  }

  join(facility: Facility, row: SourcedFacilityRow, rule: string): void {
    absorb(facility, row);
    this.bump(this.stats.joined, rule);
  }
}

/** What a CovidCareMap row with a HIFLD.ID came to: the hospital it joined, or why it is closed. */
type CovidCareMapOutcome = { facility: Facility | null; closedReason: string | null };

/** 1. The CMS roster, one hospital per CCN. */
function cmsHospitals(roster: Roster): Map<string, Facility> {
  const byCcn = new Map<string, Facility>();
  for (const row of roster.bySource('cms')) {
    if (byCcn.has(row.ccn!)) {
      roster.exclude(row, `CCN ${row.ccn} is listed twice; the first row was kept`, 'duplicate_ccn');
      continue;
    }
    byCcn.set(row.ccn!, roster.add(row, 'cms'));
  }
  return byCcn;
}

/** 2. CovidCareMap joins by CCN; a CCN of a CMS-listed type that CMS no longer lists is a closed hospital. */
function covidCareMapJoins(roster: Roster, byCcn: Map<string, Facility>) {
  const byHifld = new Map<string, CovidCareMapOutcome>();
  const unlinked: SourcedFacilityRow[] = [];
  for (const row of roster.bySource('covidcaremap')) {
    const listed = row.ccn ? byCcn.get(row.ccn) : undefined;
    let outcome: CovidCareMapOutcome = { facility: null, closedReason: null };
    if (listed) {
      roster.join(listed, row, 'covidcaremap_by_ccn');
      outcome = { facility: listed, closedReason: null };
    } else if (row.ccn && byCcn.size > 0 && cmsListsCcnType(row.ccn)) {
      outcome.closedReason = `CCN ${row.ccn} is not in the current CMS hospital list: closed, or no longer certified under it`;
      roster.exclude(row, outcome.closedReason, 'ccn_not_in_current_cms');
    } else {
      unlinked.push(row);
    }
    if (row.hifldId) byHifld.set(row.hifldId, outcome);
  }
  return { byHifld, unlinked };
}

/**
 * 3. HIFLD joins through CovidCareMap's HIFLD.ID; closed hospitals are out. What joins nothing is a candidate
 * (with its CovidCareMap partner, when it has one) for the name match; CovidCareMap rows with no CCN match and
 * no open HIFLD partner are left out: nothing says they are open.
 */
function hifldJoins(roster: Roster, covidCareMap: { byHifld: Map<string, CovidCareMapOutcome>; unlinked: SourcedFacilityRow[] }) {
  const { byHifld, unlinked } = covidCareMap;
  const pairedCcm = new Map<string, SourcedFacilityRow>();
  for (const row of unlinked) if (row.hifldId) pairedCcm.set(row.hifldId, row);
  const candidates: SourcedFacilityRow[][] = [];
  for (const row of roster.bySource('hifld')) {
    const linked = row.hifldId ? byHifld.get(row.hifldId) : undefined;
    if (row.status === 'closed') {
      roster.exclude(row, 'hospital STATUS is CLOSED', 'closed_status');
      const partner = row.hifldId ? pairedCcm.get(row.hifldId) : undefined;
      if (partner) {
        pairedCcm.delete(row.hifldId!);
        roster.exclude(partner, `its HIFLD record ${row.hifldId} is CLOSED`, 'closed_status');
      }
    } else if (linked?.facility) {
      roster.join(linked.facility, row, 'hifld_by_id');
    } else if (linked?.closedReason) {
      roster.exclude(row, linked.closedReason, 'ccn_not_in_current_cms');
    } else {
      const partner = row.hifldId ? pairedCcm.get(row.hifldId) : undefined;
      if (partner) pairedCcm.delete(row.hifldId!);
      candidates.push(partner ? [row, partner] : [row]);
    }
  }
  for (const row of unlinked) {
    if (row.hifldId && !pairedCcm.has(row.hifldId)) continue; // paired, or excluded with its closed partner
    roster.exclude(row, 'no CMS certification number in the current CMS list and no open HIFLD record', 'no_open_record');
  }
  return { candidates };
}

/** 4. Unlinked open records join a CMS hospital of an agreeing name nearby, else are added: the ones added. */
function nameJoins(roster: Roster, candidates: SourcedFacilityRow[][], options: RosterOptions): Facility[] {
  const { facilities } = roster;
  const located = facilities.map((f) => locate(f, options));
  const cmsIndex = new PointIndex(
    Float64Array.from(located, (p) => p?.longitude ?? 0),
    Float64Array.from(located, (p) => p?.latitude ?? 0),
  );
  const cmsByZip = new Map<string, Facility[]>();
  for (const f of facilities) if (f.zip) cmsByZip.set(f.zip, [...(cmsByZip.get(f.zip) ?? []), f]);
  const added: Facility[] = [];
  for (const group of candidates) {
    const [lead] = group;
    // Same ZIP code at any distance (a large rural ZIP's point can be miles from its town), or nearby.
    const near = [
      ...(cmsByZip.get(lead.zip ?? '') ?? []),
      ...cmsIndex.within(lead.longitude!, lead.latitude!, options.matchMiles).map((hit) => facilities[hit.id]),
    ];
    const match =
      near.find((f) => located[f.id - 1] && f.state === lead.state && sameHospital(f.name, lead.name)) ??
      added.find((f) => f.state === lead.state && nearby(f, lead, 0.1) && sameHospital(f.name, lead.name));
    if (match) {
      for (const row of group) roster.join(match, row, match.sources.includes('cms') ? 'by_name_nearby' : 'duplicate_record');
      continue;
    }
    const facility = roster.add(lead, 'open_hifld_not_in_cms');
    for (const row of group.slice(1)) absorb(facility, row);
    added.push(facility);
  }
  return added;
}

/** 5. Health centre sites: one per name and point (an organisation runs many sites under one name); their count. */
function healthCenterSites(roster: Roster): number {
  const sites = new Map<string, Facility>();
  for (const row of roster.bySource('hrsa')) {
    const key = `${nameKey(row.name)}|${row.latitude!.toFixed(4)}|${row.longitude!.toFixed(4)}`;
    const site = sites.get(key);
    if (site) roster.join(site, row, 'health_center_same_site');
    else sites.set(key, roster.add(row, 'hrsa'));
  }
  return sites.size;
}

/**
 * Every critical access hospital keeps a 24-hour emergency department (a CMS Condition of Participation,
 * 42 CFR 485.618) and every trauma centre receives emergencies: a file's "no emergency services" for one is wrong.
 */
function inferEmergency(roster: Roster): void {
  for (const f of roster.facilities) {
    if (!f.isHospital || f.emergency) continue;
    const rule = CRITICAL_ACCESS.test(f.type) ? 'critical_access' : f.traumaLevel !== null ? 'trauma_centre' : null;
    if (rule) {
      f.emergency = true;
      roster.bump(roster.stats.emergency_inferred, rule);
    }
  }
}

/** The same hospital by name: agreeing distinctive words, or both a Veterans Affairs centre (VA names vary most). */
function sameHospital(a: string, b: string): boolean {
  return namesAgree(a, b) || (VETERANS.test(nameKey(a)) && VETERANS.test(nameKey(b)));
}

function nearby(f: Facility, row: FacilityRow, miles: number): boolean {
  if (f.latitude === null || f.longitude === null) return false;
  const degrees = miles / 69;
  return (
    Math.abs(f.latitude - row.latitude!) <= degrees &&
    Math.abs(f.longitude - row.longitude!) <= degrees / Math.cos((row.latitude! * Math.PI) / 180)
  );
}

/** A roster hospital's point for matching: its coordinates once a source gave them, else its ZIP's point. */
function locate(f: Facility, options: RosterOptions): { latitude: number; longitude: number } | null {
  if (f.latitude !== null && f.longitude !== null) return { latitude: f.latitude, longitude: f.longitude };
  return f.zip ? options.zipPoint(f.zip) : null;
}

function create(row: FacilityRow, id: number): Facility {
  return {
    id,
    name: row.name,
    type: row.type || 'Hospital',
    address: row.address,
    city: row.city,
    state: row.state,
    zip: row.zip,
    phone: row.phone,
    website: row.website,
    latitude: row.latitude,
    longitude: row.longitude,
    staffedBeds: row.staffedBeds,
    licensedBeds: row.licensedBeds,
    emergency: row.emergency ?? false,
    rating: row.rating,
    traumaLevel: row.traumaLevel,
    ccn: row.ccn,
    sources: [row.source],
    isHospital: row.source !== 'hrsa',
  };
}

/** Fills what the record lacks from a joined source; the roster's own values win on conflicts. */
function absorb(into: Facility, row: FacilityRow): void {
  if (!into.sources.includes(row.source)) into.sources.push(row.source);
  if (into.latitude === null && row.latitude !== null) [into.latitude, into.longitude] = [row.latitude, row.longitude];
  into.staffedBeds ??= row.staffedBeds;
  into.licensedBeds ??= row.licensedBeds;
  into.traumaLevel ??= row.traumaLevel;
  into.ccn ??= row.ccn;
  into.zip ??= row.zip;
  into.rating ??= row.rating;
  if (!into.address) into.address = row.address;
  if (!into.phone) into.phone = row.phone;
  if (!into.website) into.website = row.website;
}
