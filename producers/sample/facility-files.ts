/**
 * Facility files in their official layouts: CMS Hospital General Information, DHS HIFLD Hospitals (with
 * its byte order mark and Web Mercator X/Y) and HRSA health center sites.
 */
import { join } from 'node:path';
import type { Facilities, Hospital } from './facilities.ts';
import type { CmsHospitalType } from './facility-names.ts';
import type { County } from './counties.ts';
import { stateInfo } from './states.ts';
import { Rng, pickWeighted } from './prng.ts';
import { csvLine, writeLines } from './writer.ts';

/** CMS Hospital General Information header (38 columns). */
export const HGI_HEADER =
  'Facility ID,Facility Name,Address,City/Town,State,ZIP Code,County/Parish,Telephone Number,Hospital Type,Hospital Ownership,Emergency Services,Meets criteria for birthing friendly designation,Hospital overall rating,Hospital overall rating footnote,MORT Group Measure Count,Count of Facility MORT Measures,Count of MORT Measures Better,Count of MORT Measures No Different,Count of MORT Measures Worse,MORT Group Footnote,Safety Group Measure Count,Count of Facility Safety Measures,Count of Safety Measures Better,Count of Safety Measures No Different,Count of Safety Measures Worse,Safety Group Footnote,READM Group Measure Count,Count of Facility READM Measures,Count of READM Measures Better,Count of READM Measures No Different,Count of READM Measures Worse,READM Group Footnote,Pt Exp Group Measure Count,Count of Facility Pt Exp Measures,Pt Exp Group Footnote,TE Group Measure Count,Count of Facility TE Measures,TE Group Footnote';
/** HIFLD Hospitals header (the file starts with a UTF-8 BOM before it). */
export const HIFLD_HEADER =
  'X,Y,FID,ID,NAME,ADDRESS,CITY,STATE,ZIP,ZIP4,TELEPHONE,TYPE,STATUS,POPULATION,COUNTY,COUNTYFIPS,COUNTRY,LATITUDE,LONGITUDE,NAICS_CODE,NAICS_DESC,SOURCE,SOURCEDATE,VAL_METHOD,VAL_DATE,WEBSITE,STATE_ID,ALT_NAME,ST_FIPS,OWNER,TTL_STAFF,BEDS,TRAUMA,HELIPAD';
/** HRSA health center sites header. */
export const HRSA_HEADER = 'name,st_abbr,city,address,phone,testing_status,lon,lat';

const NA = 'Not Available';
const OWNERSHIP: Record<string, [string, number][]> = {
  acute: [
    ['Voluntary non-profit - Private', 45],
    ['Proprietary', 22],
    ['Voluntary non-profit - Other', 8],
    ['Voluntary non-profit - Church', 6],
    ['Government - Hospital District or Authority', 8],
    ['Government - Local', 6],
    ['Government - State', 2],
    ['Physician', 2],
    ['Tribal', 0.5],
  ],
  cah: [
    ['Voluntary non-profit - Private', 40],
    ['Government - Hospital District or Authority', 25],
    ['Government - Local', 20],
    ['Proprietary', 8],
    ['Voluntary non-profit - Church', 5],
    ['Tribal', 1],
  ],
  psych: [
    ['Proprietary', 50],
    ['Government - State', 30],
    ['Voluntary non-profit - Private', 20],
  ],
};
const HIFLD_OWNER: Record<string, string> = {
  Proprietary: 'PROPRIETARY',
  Physician: 'PROPRIETARY',
  'Government - Hospital District or Authority': 'GOVERNMENT - DISTRICT/AUTHORITY',
  'Government - Local': 'GOVERNMENT - LOCAL',
  'Government - State': 'GOVERNMENT - STATE',
  'Government - Federal': 'GOVERNMENT - FEDERAL',
  'Veterans Health Administration': 'GOVERNMENT - FEDERAL',
  'Department of Defense': 'GOVERNMENT - FEDERAL',
  Tribal: 'GOVERNMENT - FEDERAL',
};
const NAICS: Record<string, [string, string]> = {
  PSYCHIATRIC: ['622210', 'PSYCHIATRIC AND SUBSTANCE ABUSE HOSPITALS'],
  REHABILITATION: ['622310', 'REHABILITATION HOSPITALS (EXCEPT ALCOHOLISM, DRUG ADDICTION)'],
  'LONG TERM CARE': ['622310', 'EXTENDED CARE HOSPITALS (EXCEPT MENTAL, SUBSTANCE ABUSE)'],
  SPECIAL: ['622310', 'SPECIALTY (EXCEPT PSYCHIATRIC AND SUBSTANCE ABUSE) HOSPITALS'],
  'CHRONIC DISEASE': ['622310', 'CHRONIC DISEASE HOSPITALS'],
  WOMEN: ['622310', 'MATERNITY HOSPITALS'],
  CHILDREN: ['622110', "CHILDREN'S HOSPITALS, GENERAL"],
};
const COUNTRY: Record<string, string> = { PR: 'PRI', GU: 'GUM', VI: 'VIR', AS: 'ASM', MP: 'MNP' };

/** Ownership of a CMS hospital (kept per hospital so HGI and HIFLD agree). */
function ownership(rng: Rng, type: CmsHospitalType | undefined): string {
  if (type === 'Acute Care - Veterans Administration') return 'Veterans Health Administration';
  if (type === 'Acute Care - Department of Defense') return 'Department of Defense';
  const table = type === 'Critical Access Hospitals' ? OWNERSHIP.cah! : type === 'Psychiatric' ? OWNERSHIP.psych! : OWNERSHIP.acute!;
  return pickWeighted(rng, table);
}

/** Quality-measure columns: counts for rated hospitals, "Not Available" with footnotes for others. */
function measures(rng: Rng, type: CmsHospitalType): { rating: string; footnote: string; cells: (string | number)[] } {
  if (type === 'Psychiatric' || type === 'Childrens' || type === 'Acute Care - Department of Defense') {
    const group = [NA, NA, NA, NA, NA, '19'];
    return { rating: NA, footnote: '19', cells: [...group, ...group, ...group, NA, NA, '19', NA, NA, '19'] };
  }
  const rated = rng.chance(type === 'Critical Access Hospitals' ? 0.5 : 0.88);
  const group = (size: number) => {
    const facility = rated ? rng.between(Math.ceil(size / 2), size) : rng.int(3);
    if (!rated && facility === 0) return [size, NA, NA, NA, NA, '5'];
    const worse = rng.chance(0.2) ? 1 : 0;
    const better = Math.min(facility - worse, rng.int(3));
    return [size, facility, better, facility - better - worse, worse, ''];
  };
  const rating = rated
    ? String(
        pickWeighted(rng, [
          [1, 8],
          [2, 22],
          [3, 33],
          [4, 27],
          [5, 10],
        ]),
      )
    : NA;
  return {
    rating,
    footnote: rated ? '' : '16',
    cells: [...group(7), ...group(8), ...group(11), 8, rated ? rng.between(4, 8) : NA, rated ? '' : '5', 12, rng.between(5, 12), ''],
  };
}

/** Writes cms/Hospital_General_Information.csv (CRLF, like the CMS download); returns the row count. */
export async function writeHospitalGeneralInformation(
  outDir: string,
  f: Facilities,
  countyOf: (h: Hospital) => County,
  seed: number,
): Promise<number> {
  const rng = new Rng(seed, 'hgi');
  const lines = f.hospitals
    .filter((h) => h.cmsType)
    .map((h) => {
      const type = h.cmsType!;
      const m = measures(rng, type);
      const er = rng.chance({ Psychiatric: 0.05, Childrens: 0.85, 'Critical Access Hospitals': 0.97 }[type as string] ?? 0.9);
      const birthing = er && (type === 'Acute Care Hospitals' || type === 'Critical Access Hospitals') && rng.chance(0.45) ? 'Y' : '';
      const county = countyOf(h).name.toUpperCase();
      return csvLine([
        h.ccn,
        h.name,
        h.address,
        h.city,
        h.state,
        h.zip,
        county,
        h.phone,
        type,
        ownershipOf(h, seed),
        er ? 'Yes' : 'No',
        birthing,
        m.rating,
        m.footnote,
        ...m.cells,
      ]);
    });
  return writeLines(join(outDir, 'cms/Hospital_General_Information.csv'), HGI_HEADER, lines, { eol: '\r\n' });
}

/** The CMS ownership of a hospital: drawn from a stream keyed by its CCN so both hospital files agree. */
function ownershipOf(h: Hospital, seed: number): string {
  return ownership(new Rng(seed, `ownership/${h.ccn}`), h.cmsType);
}

const mercatorX = (lon: number) => ((lon * 20037508.34) / 180).toFixed(4);
const mercatorY = (lat: number) => (Math.log(Math.tan(((90 + lat) * Math.PI) / 360)) * 6378137).toFixed(4);

/** Writes facilities/hifld_hospitals.csv (UTF-8 BOM); returns the row count. */
export async function writeHifld(outDir: string, f: Facilities, countyOf: (h: Hospital) => County, seed: number): Promise<number> {
  const rng = new Rng(seed, 'hifld');
  const lines: string[] = [];
  for (const h of f.hospitals) {
    if (!h.inHifld) continue;
    const st = stateInfo(h.state);
    const county = countyOf(h);
    const [naics, naicsDesc] = NAICS[h.hifldType] ?? ['622110', 'GENERAL MEDICAL AND SURGICAL HOSPITALS'];
    const beds = rng.chance(0.05) ? -999 : h.beds;
    const owner = h.cmsType
      ? (HIFLD_OWNER[ownershipOf(h, seed)] ?? 'NON-PROFIT')
      : rng.pick(['NON-PROFIT', 'PROPRIETARY', 'PROPRIETARY', 'NOT AVAILABLE']);
    const closed = !h.cmsType && rng.chance(0.08);
    const trauma =
      h.hifldType === 'GENERAL ACUTE CARE' && rng.chance(0.4)
        ? rng.pick(['LEVEL I', 'LEVEL II', 'LEVEL III', 'LEVEL IV', 'LEVEL IV'])
        : 'NOT AVAILABLE';
    const slug = h.name
      .toLowerCase()
      .replace(/[^a-z]+/g, '')
      .slice(0, 24);
    lines.push(
      csvLine([
        mercatorX(h.lon),
        mercatorY(h.lat),
        lines.length + 1,
        '00' + rng.digits(8),
        h.name,
        h.address,
        h.city,
        h.state,
        h.zip,
        rng.chance(0.98) ? 'NOT AVAILABLE' : rng.digits(4),
        rng.chance(0.86) ? h.phone : 'NOT AVAILABLE',
        h.hifldType,
        closed ? 'CLOSED' : 'OPEN',
        beds,
        county.name.toUpperCase(),
        county.fips,
        COUNTRY[h.state] ?? 'USA',
        String(Math.round(h.lat * 1e9) / 1e9),
        String(Math.round(h.lon * 1e9) / 1e9),
        naics,
        naicsDesc,
        h.hifldType === 'MILITARY'
          ? 'https://www.va.gov/directory/guide/allstate.asp'
          : `https://health.${h.state.toLowerCase()}.gov/facilities/hospital-directory`,
        `2019/${String(rng.between(7, 9)).padStart(2, '0')}/${String(rng.between(1, 28)).padStart(2, '0')} 00:00:00`,
        rng.chance(0.58) ? 'IMAGERY' : 'IMAGERY/OTHER',
        `${rng.between(2014, 2020)}/${String(rng.between(1, 12)).padStart(2, '0')}/${String(rng.between(1, 28)).padStart(2, '0')} 00:00:00`,
        rng.chance(0.95) ? `http://www.${slug}.org` : 'NOT AVAILABLE',
        rng.chance(0.5) ? 'NOT AVAILABLE' : rng.digits(rng.between(2, 6)),
        'NOT AVAILABLE',
        st.fips,
        owner,
        -999,
        beds,
        trauma,
        rng.chance(0.55) ? 'Y' : 'N',
      ]),
    );
  }
  return writeLines(join(outDir, 'facilities/hifld_hospitals.csv'), HIFLD_HEADER, lines, { bom: true });
}

const coordinate = (x: number) => x.toFixed(8).replace(/0+$/, '').replace(/\.$/, '');

/** Writes facilities/hrsa_health_center_sites.csv; returns the row count. */
export async function writeHrsaSites(outDir: string, f: Facilities, seed: number): Promise<number> {
  const rng = new Rng(seed, 'hrsa');
  const lines = f.sites.map((s) =>
    csvLine([s.name, s.state, s.city, s.address, s.phone, rng.chance(0.95) ? 'Yes' : 'No', coordinate(s.lon), coordinate(s.lat)]),
  );
  return writeLines(join(outDir, 'facilities/hrsa_health_center_sites.csv'), HRSA_HEADER, lines);
}
