import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { displayName } from '../pipeline/layouts/values.ts';
import { ROOT } from './helpers/cli.ts';

/**
 * Names as the federal files print them (all caps), each as it must read in the API, the CLI and the widget
 * (issue 28, point 4): acronyms in capitals, Mc and Mac names, apostrophes, small words inside a name. Every
 * name is real: taken from the bundled files (raw/public, checked below) or from the NPPES extract of
 * ../shared/data (checked when it is beside the clone).
 */
const BUNDLED: Record<string, string> = {
  'INDIANA SPINE HOSPITAL, LLC': 'Indiana Spine Hospital, LLC',
  'ROCK REGIONAL HOSPITAL, LLC': 'Rock Regional Hospital, LLC',
  'VA MEDICAL CENTER - PROVIDENCE': 'VA Medical Center - Providence',
  'TOMAH VA MEDICAL CENTER': 'Tomah VA Medical Center',
  "GEORGE H. O'BRIEN, JR. VA MEDICAL CENTER": "George H. O'Brien, Jr. VA Medical Center",
  "VALLEY CHILDREN'S HOSPITAL": "Valley Children's Hospital",
  "HEALTHBRIDGE CHILDREN'S HOSPITAL-ORANGE": "Healthbridge Children's Hospital-Orange",
  "ST. MARY'S MEDICAL CENTER, SAN FRANCISCO": "St. Mary's Medical Center, San Francisco",
  "ST DAVID'S GEORGETOWN HOSPITAL": "St David's Georgetown Hospital",
  "O'BLENESS MEMORIAL HOSPITAL": "O'Bleness Memorial Hospital",
  'NYU HOSPITAL FOR JOINT DISEASES': 'NYU Hospital for Joint Diseases',
  'NYU HOSPITALS CENTER': 'NYU Hospitals Center',
  'AHMC ANAHEIM REGIONAL MEDICAL CENTER': 'AHMC Anaheim Regional Medical Center',
  'AHMC SETON MEDICAL CENTER': 'AHMC Seton Medical Center',
  'UPMC CHAUTAUQUA AT WCA': 'UPMC Chautauqua at WCA',
  'HCA HOUSTON HEALTHCARE TOMBALL': 'HCA Houston Healthcare Tomball',
  'LOS ANGELES COUNTY OLIVE VIEW-UCLA MEDICAL CENTER': 'Los Angeles County Olive View-UCLA Medical Center',
  'SANTA MONICA - UCLA MEDICAL CENTER & ORTHOPAEDIC HOSPITAL': 'Santa Monica - UCLA Medical Center & Orthopaedic Hospital',
  'UNIVERSITY OF MD CHARLES REGIONAL MEDICAL CENTER': 'University of MD Charles Regional Medical Center',
  'UNIVERSITY OF MD SHORE MEDICAL CTR AT CHESTERTOWN': 'University of MD Shore Medical Ctr at Chestertown',
  'LEGENT HOSPITAL FOR SPECIAL SURGERY': 'Legent Hospital for Special Surgery',
  'SOUTHERN CRESCENT HOSPITAL FOR SPECIALTY CARE': 'Southern Crescent Hospital for Specialty Care',
  'OCEANS BEHAVIORAL HOSPITAL OF THE PERMIAN BASIN': 'Oceans Behavioral Hospital of the Permian Basin',
  'HEART OF THE ROCKIES REGIONAL MEDICAL CENTER': 'Heart of the Rockies Regional Medical Center',
  'METHODIST MCKINNEY HOSPITAL': 'Methodist McKinney Hospital',
  MCKINNEY: 'McKinney',
  'MCALLEN HEART HOSPITAL': 'McAllen Heart Hospital',
  MCALLEN: 'McAllen',
  '901 MACARTHUR BLVD': '901 MacArthur Blvd',
  MACON: 'Macon',
  JBER: 'JBER',
  'WRIGHT PATTERSON AFB': 'Wright Patterson AFB',
  'EGLIN AFB': 'Eglin AFB',
  '2501 CAPEHART ROAD, OFFUTT AFB': '2501 Capehart Road, Offutt AFB',
};

/** Provider and organisation names of ../shared/data/nppes/npidata_first10000.csv.gz. */
const NPPES: Record<string, string> = {
  "O'DONNELL": "O'Donnell",
  MCBRIDE: 'McBride',
  MCCOY: 'McCoy',
  MCLAUGHLIN: 'McLaughlin',
  'MC KINNEY': 'Mc Kinney',
  'HORIZON MRI OF MCKINNEY LLC': 'Horizon MRI of McKinney LLC',
  "KING'S MEDICAL IMAGING AT WATERMARK, LLC": "King's Medical Imaging at Watermark, LLC",
  'LABORATORY CORPORATION OF AMERICA': 'Laboratory Corporation of America',
  'MERCY EMS, LLC': 'Mercy EMS, LLC',
  'WESTERN MD PET IMAGING LLC': 'Western MD Pet Imaging LLC',
};

/** The text of gzipped files, for checking that each name is really in them. */
const text = (...files: string[]) => files.map((file) => gunzipSync(readFileSync(file)).toString('utf8')).join('\n');

describe('title case of real names (issue 28)', () => {
  it('gives each bundled name its expected form', () => {
    const bundled = text(
      ...['hifld_hospitals_2020', 'covidcaremap_hospitals_2020'].map((name) => path.join(ROOT, `raw/public/facilities/${name}.csv.gz`)),
      path.join(ROOT, 'raw/public/cms/Hospital_General_Information.csv.gz'),
    );
    for (const [name, expected] of Object.entries(BUNDLED)) {
      expect(bundled, `${name} is not in raw/public`).toContain(name);
      expect(displayName(name), name).toBe(expected);
    }
  });

  it('gives each NPPES name its expected form', () => {
    const extract = path.join(ROOT, '../shared/data/nppes/npidata_first10000.csv.gz');
    const nppes = existsSync(extract) ? text(extract) : undefined;
    for (const [name, expected] of Object.entries(NPPES)) {
      if (nppes) expect(nppes, `${name} is not in the NPPES extract`).toContain(name);
      expect(displayName(name), name).toBe(expected);
    }
  });

  it('capitalises the first and last word even when they are small words, and after a dash or parenthesis', () => {
    expect(displayName('THE HOSPITAL OF')).toBe('The Hospital Of');
    expect(displayName('MAYO CLINIC HEALTH SYSTEM - THE NORTHLAND')).toBe('Mayo Clinic Health System - The Northland');
    expect(displayName('SAINT JOHN (OF GOD)')).toBe('Saint John (Of God)');
    expect(displayName('ÉCOLE DE MÉDECINE')).toBe('École De Médecine');
  });

  it('keeps names written in mixed case as they are, but for acronyms and Mc names a file title-cased wrongly', () => {
    // raw/public/census/uszipcode_simple_db.csv.gz writes these cities so (99505, 99506, 75069; the AFB ZIP codes).
    expect(displayName('Jber')).toBe('JBER');
    expect(displayName('Wright Patterson Afb')).toBe('Wright Patterson AFB');
    expect(displayName('Mckinney')).toBe('McKinney');
    expect(displayName('Southern Md Facility')).toBe('Southern MD Facility');
    expect(displayName('Mc Grath')).toBe('Mc Grath');
    expect(displayName('Ng Clinic')).toBe('Ng Clinic');
    expect(displayName('McAllen')).toBe('McAllen');
    expect(displayName('Children’s Hospital of the Kings Daughters')).toBe('Children’s Hospital of the Kings Daughters');
  });
});
