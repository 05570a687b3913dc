/**
 * Names, street addresses, phone numbers and postal ZIPs for synthetic facilities and practices, in the
 * styles the official files use (upper-case CMS/HIFLD names, mixed-case HRSA site names).
 */
import type { Geography, Zcta } from './geography.ts';
import { stateInfo } from './states.ts';
import { hashString, type Rng } from './prng.ts';
import { HOSPITAL_PATRONS, LAST_NAMES, STREETS, STREET_TYPES } from './names.ts';

/** Hospital Type values of the CMS Hospital General Information file. */
export type CmsHospitalType =
  | 'Acute Care Hospitals'
  | 'Critical Access Hospitals'
  | 'Childrens'
  | 'Psychiatric'
  | 'Acute Care - Veterans Administration'
  | 'Acute Care - Department of Defense';

const HEALTH_CENTER_ORGS = [
  'Unity Health Care',
  'Family Health Centers',
  'Community Health Services',
  'Primary Health Care',
  'Rural Health Group',
  'Valley Health System',
  'La Clinica de la Comunidad',
  'Health Care for the Homeless',
  'Sunshine Community Health',
  'Mountain Family Health',
  'Tri-County Health Network',
  'Neighborhood Health Association',
  'Lakeshore Community Health',
] as const;
const DIRECTIONS = ['NORTH', 'SOUTH', 'EAST', 'WEST', 'DOWNTOWN', 'MAIN'] as const;

const titleCase = (text: string) => text.toLowerCase().replace(/\b([a-z])/g, (c) => c.toUpperCase());

/** A facility name for a HIFLD type (or 'HEALTH CENTER'); hospital names are kept unique via `used`. */
export function facilityName(rng: Rng, type: string, cmsType: CmsHospitalType | undefined, z: Zcta, used?: Set<string>): string {
  const city = z.city.toUpperCase();
  const patron = rng.pick(HOSPITAL_PATRONS);
  let options: string[];
  if (type === 'HEALTH CENTER') {
    const org = rng.pick(HEALTH_CENTER_ORGS);
    const name = rng.pick([
      `${z.city} Community Health Center`,
      `${z.city} Family Health Center`,
      `${org} - ${z.city}`,
      `${org} ${z.city} Clinic`,
      `${org} Dental Clinic`,
      `${z.city} School-Based Health Center`,
      `${org}, Inc.`,
      `${org} Mobile Unit`,
    ]);
    return rng.chance(0.3) ? name.toUpperCase() : name;
  }
  if (cmsType === 'Acute Care - Veterans Administration') options = [`${city} VA MEDICAL CENTER`, `VA ${city} HEALTHCARE SYSTEM`];
  else if (cmsType === 'Acute Care - Department of Defense' || type === 'MILITARY')
    options = [`NAVAL HOSPITAL ${city}`, `${rng.between(1, 99)}TH MEDICAL GROUP`, `${rng.pick(LAST_NAMES)} ARMY COMMUNITY HOSPITAL`];
  else if (cmsType === 'Critical Access Hospitals')
    options = [
      `${city} COMMUNITY HOSPITAL`,
      `${city} MEMORIAL HOSPITAL`,
      `${city} AREA HOSPITAL`,
      `${city} DISTRICT HOSPITAL`,
      `${city} MEDICAL CENTER`,
    ];
  else if (type === 'PSYCHIATRIC')
    options = [
      `${city} BEHAVIORAL HEALTH HOSPITAL`,
      `${patron} BEHAVIORAL HEALTH`,
      `${stateInfo(z.state).name.toUpperCase()} STATE HOSPITAL`,
    ];
  else if (type === 'CHILDREN') options = [`${city} CHILDREN'S HOSPITAL`, `CHILDREN'S MEDICAL CENTER OF ${city}`];
  else if (type === 'REHABILITATION') options = [`${city} REHABILITATION HOSPITAL`, `ENCOMPASS HEALTH REHABILITATION HOSPITAL OF ${city}`];
  else if (type === 'LONG TERM CARE') options = [`${city} SPECIALTY HOSPITAL`, `KINDRED HOSPITAL - ${city}`];
  else if (type === 'WOMEN') options = [`${city} WOMEN'S HOSPITAL`];
  else if (type === 'SPECIAL' || type === 'CHRONIC DISEASE') options = [`${city} SURGICAL HOSPITAL`, `${city} ORTHOPEDIC HOSPITAL`];
  else
    options = [
      `${city} REGIONAL MEDICAL CENTER`,
      `${patron} HOSPITAL`,
      `${patron} MEDICAL CENTER`,
      `${city} GENERAL HOSPITAL`,
      `${patron} HOSPITAL - ${city}`,
      `${city} MEMORIAL HOSPITAL`,
      `${city} HEALTH SYSTEM, INC`,
      `${patron} REGIONAL HOSPITAL`,
    ];
  let name = rng.pick(options);
  if (used) {
    // Hospitals are matched across files by name and ZIP, so names must not repeat.
    for (let n = 0; used.has(name); n++)
      name = `${name.replace(/ - [A-Z]+ CAMPUS( \d+)?$/, '')} - ${DIRECTIONS[n % DIRECTIONS.length]} CAMPUS${n >= DIRECTIONS.length ? ` ${n}` : ''}`;
    used.add(name);
  }
  return name;
}

/** A street address ("1108 ROSS CLARK CIR"); title case for HRSA-style files. */
export function streetAddress(rng: Rng, upper: boolean): string {
  const text = `${rng.between(1, 9999)} ${rng.pick(STREETS)} ${rng.pick(STREET_TYPES)}`;
  return upper ? text : titleCase(text);
}

/** A phone number "(334) 793-8701" with a real area code of the state (stable per 3-digit ZIP). */
export function phoneNumber(rng: Rng, z: Zcta): string {
  const codes = stateInfo(z.state).areaCodes;
  const area = codes[hashString(z.code.slice(0, 3)) % codes.length]!;
  return `(${area}) ${rng.between(200, 989)}-${rng.digits(4)}`;
}

/** The ZIP a facility or practice uses in a ZCTA: usually the ZCTA's own code, sometimes a PO box/unique ZIP mapped to it. */
export function postalZip(rng: Rng, geo: Geography, z: Zcta, pExtra: number): string {
  const extras = geo.extraZips.get(z.code);
  return extras && rng.chance(pExtra) ? rng.pick(extras) : z.code;
}
