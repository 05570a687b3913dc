/**
 * Rows of the CMS Doctors and Clinicians national downloadable file (current layout). Physicians, NPs and
 * PAs enrolled in Medicare appear with the NPI, names and practice location they have in NPPES, one row
 * per practice address; "Facility Name" is a hospital of the sample so affiliations can be counted.
 */
import type { Geography } from './geography.ts';
import type { Facilities } from './facilities.ts';
import type { Location, Practitioner } from './people.ts';
import { practiceLocation } from './people.ts';
import { PROVIDER_KINDS } from './provider-mix.ts';
import { MED_SCHOOLS } from './names.ts';
import type { Rng } from './prng.ts';
import { csvLine } from './writer.ts';

/** The current official header. */
export const DAC_HEADER =
  'NPI,Ind_PAC_ID,Ind_enrl_ID,Provider Last Name,Provider First Name,Provider Middle Name,suff,gndr,Cred,Med_sch,Grd_yr,pri_spec,sec_spec_1,sec_spec_2,sec_spec_3,sec_spec_4,sec_spec_all,Telehlth,Facility Name,org_pac_id,num_org_mem,adr_ln_1,adr_ln_2,ln_2_sprs,City/Town,State,ZIP Code,Telephone Number,ind_assgn,grp_assgn,adrs_id';

const SPEC_BY_TAXONOMY = new Map(PROVIDER_KINDS.filter((k) => k.dac).map((k) => [k.taxonomy, k.dac!.spec]));

/** Share of eligible providers (physicians, NPs, PAs) enrolled in Medicare and listed. */
export const DAC_SHARE = 0.55;

/** The CMS address id: state, ZIP+4, then letters and digits of the address, padded with X (25 characters). */
function addressId(loc: Location): string {
  const zip9 = loc.zip.padEnd(9, '0');
  const number = (loc.address1.match(/^\d+/)?.[0] ?? '').padEnd(4, 'X').slice(0, 4);
  const street = loc.address1
    .replace(/^[\d\s]+/, '')
    .replace(/[^A-Z]/g, '')
    .padEnd(6, 'X')
    .slice(0, 6);
  return `${loc.state}${zip9}${loc.city
    .replace(/[^A-Z]/g, '')
    .padEnd(2, 'X')
    .slice(0, 2)}${number}${street}00`
    .padEnd(25, 'X')
    .slice(0, 25);
}

/** The DAC lines of one practitioner (1, sometimes 2 practice addresses); none when not enrolled. */
export function dacLines(rng: Rng, geo: Geography, facilities: Facilities, p: Practitioner): string[] {
  const dac = p.kind.dac;
  if (!dac || !rng.chance(DAC_SHARE)) return [];
  const physician = dac.cred === 'MD';
  const cred = physician ? (p.credential.startsWith('D') ? 'DO' : 'MD') : dac.cred;
  const school = physician && rng.chance(0.85) ? rng.pick(MED_SCHOOLS) : 'OTHER';
  // Graduation years skew to mid-career; NPs and PAs are a younger workforce.
  const year = Math.round(Math.min(2022, Math.max(1965, (physician ? 1999 : 2010) + (physician ? 11 : 7) * rng.normal())));
  const secondary = [
    ...new Set(
      p.taxonomies
        .slice(1)
        .map((t) => SPEC_BY_TAXONOMY.get(t))
        .filter((s): s is string => !!s && s !== dac.spec),
    ),
  ].slice(0, 4);
  const pacId = rng.between(1, 9) + rng.digits(9);
  const enrolment = `I${rng.between(Math.max(2004, Math.min(2023, year + 1)), 2023)}${String(rng.between(1, 12)).padStart(2, '0')}${String(rng.between(1, 28)).padStart(2, '0')}${rng.digits(6)}`;
  const telehealth = rng.chance(0.3) ? 'Y' : '';

  const locations: Location[] = [p.practice];
  if (rng.chance(0.2)) {
    // A second practice site nearby (another office of the group, or a hospital clinic).
    const nearby = geo.nearest(p.practice.zcta.lon, p.practice.zcta.lat, 8, 20);
    locations.push(practiceLocation(rng, geo, nearby.length ? rng.pick(nearby) : p.practice.zcta, false));
  }
  return locations.map((loc) => {
    const z = loc.zcta;
    const hospital = rng.chance(0.75) ? facilities.nearestCmsHospital(z.lon, z.lat, 40) : undefined;
    const zip9 = loc.zip.length === 9 ? loc.zip : loc.zip + rng.digits(4);
    return csvLine([
      p.npi,
      pacId,
      enrolment,
      p.last,
      p.first,
      p.middle,
      p.suffix,
      p.sex,
      cred,
      school,
      year,
      dac.spec,
      secondary[0] ?? '',
      secondary[1] ?? '',
      secondary[2] ?? '',
      secondary[3] ?? '',
      secondary.join('|'),
      telehealth,
      hospital?.name ?? '',
      hospital?.pacId ?? '',
      hospital ? Math.max(5, Math.round(hospital.beds * 1.5)) : '',
      loc.address1,
      loc.address2,
      loc.address2 && rng.chance(0.02) ? 'Y' : '',
      loc.city,
      loc.state,
      zip9,
      loc.phone,
      rng.chance(0.85) ? 'Y' : 'M',
      hospital ? (rng.chance(0.6) ? 'Y' : 'M') : '',
      addressId({ ...loc, zip: zip9 }),
    ]);
  });
}
