import path from 'node:path';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ingestSource } from '../pipeline/ingest/source.ts';
import { Reconciler } from '../pipeline/ingest/reconcile.ts';
import { LAYOUT_ORDER, LAYOUTS } from '../pipeline/layouts/index.ts';
import { emptyIngested, rowFiling } from '../pipeline/ingest/ingested.ts';
import type { SourceSpec } from '../pipeline/config/manifest.ts';
import { npiIsValid } from '../core/npi.ts';
import { zip5 } from '../pipeline/layouts/values.ts';
import { countSourceOptions } from '../pipeline/layouts/clinician-counts.ts';
import { facilityTypeName, traumaLevel } from '../pipeline/layouts/facilities.ts';
import { NPPES_COLUMNS } from '../pipeline/layouts/nppes-columns.ts';
import { tempDir, writeInput } from './helpers/files.ts';
import { seeded } from './helpers/seeded.ts';

/** Ingests `text` written as `fileName` through `layout`; returns landed rows and the reconciliation. */
async function ingest(layout: string, fileName: string, text: string, extra: Partial<SourceSpec> = {}) {
  const dir = tempDir();
  const file = writeInput(path.join(dir, fileName), text);
  const rejects = path.join(dir, 'rejects.csv');
  const reconciler = new Reconciler(rejects);
  const rows: Array<{ row: any; line: number }> = [];
  const spec: SourceSpec = { key: 'test', layout, path: file, vintage: 'test', required: true, columns: {}, options: {}, ...extra };
  let extraFields = layout === 'acs_zcta' ? Object.keys(spec.columns).filter((c) => c !== 'zcta') : [];
  if (layout === 'acs_zcta') spec.options = { ...spec.options, measures: extraFields };
  if (layout === 'clinician_counts') {
    const options = countSourceOptions(spec.key, spec.columns, spec.options);
    spec.options = { ...spec.options, ...options };
    extraFields = options.kinds;
  }
  const tally = await ingestSource(spec, LAYOUTS.get(layout)!, (row, line) => void rows.push({ row, line }), reconciler, extraFields);
  await reconciler.close();
  const rejected = readFileSync(rejects, 'utf8').trim().split('\n').slice(1);
  expect(tally.read).toBe(tally.landed + tally.rejected);
  expect(rejected.length).toBe(tally.rejected);
  return { rows, tally, rejected };
}

describe('clinician counts', () => {
  it('County Health Rankings layout: FIPS with leading zeros, the nation and state rows, NA and blank rejected with their lines', async () => {
    const text =
      '"fipscode","statecode","countycode","v004_numerator","v004_denominator"\n' +
      '"00000","00","000",253985,333287557\n' +
      '"01000","01","000",3292,5074296\n' +
      '"01001","01","001",22,60342\n' +
      '"30033","30","033",0,1218\n' +
      '"09001","09","001",NA,NA\n' +
      '"1003","01","003",120,246435\n' +
      '"01005","01","005",-3,24600\n';
    const { rows, tally, rejected } = await ingest('clinician_counts', 'v004.csv', text, {
      columns: { county: 'fipscode', primary_care_physicians: 'v004_numerator', population: 'v004_denominator' },
      options: { year: 2022 },
    });
    expect(rows.map((r) => [r.row.area, r.row.code, r.row.counts.primary_care_physicians, r.row.population])).toEqual([
      ['nation', '00', 253985, 333287557],
      ['state', '01', 3292, 5074296],
      ['county', '01001', 22, 60342],
      ['county', '30033', 0, 1218],
      ['county', '01003', 120, 246435],
    ]);
    expect(tally).toMatchObject({ read: 7, landed: 5, rejected: 2, invalid: 1 });
    expect(rejected[0]).toMatch(
      /,6,excluded,no_count_for_county,no count for county 09001: every count column is blank or a missing-value word/,
    );
    expect(rejected[1]).toMatch(/,8,invalid,primary_care_physicians_is_negative,primary_care_physicians is negative: -3$/);
  });

  it('state and county code apart (measures v062, v131), and a tract file with two kinds (Dartmouth Atlas)', async () => {
    const county = await ingest(
      'clinician_counts',
      'v062.csv',
      'statecode,countycode,v062_numerator\n00,000,1113571\n01,001,22\n9,110,4100\n',
      {
        columns: { state: 'statecode', county_code: 'countycode', mental_health_providers: 'v062_numerator' },
        options: { year: 2024 },
      },
    );
    expect(county.rows.map((r) => `${r.row.area} ${r.row.code}`)).toEqual(['nation 00', 'county 01001', 'county 09110']);
    const tracts = await ingest(
      'clinician_counts',
      'tracts.csv',
      '"","geoid","state","county","tract","pcp_total","sp_total"\n"1","0101001020100","01","01001","020100",0,0\n"2","0101001020200","01","01001","020200",1,NA\n"3","","01","01001","02A200",1,1\n',
      {
        columns: { primary_care_physicians: 'pcp_total', specialist_physicians: 'sp_total' },
        options: { year: 2010, area: 'tract' },
      },
    );
    expect(tracts.rows.map((r) => [r.row.code, r.row.counts])).toEqual([
      ['01001020100', { primary_care_physicians: 0, specialist_physicians: 0 }],
      ['01001020200', { primary_care_physicians: 1, specialist_physicians: null }],
    ]);
    expect(tracts.rejected[0]).toMatch(/,4,invalid,.*,"tract is not a 6-digit tract code or an 11-digit GEOID: ""02A200"""$/);
  });

  it('a manifest entry without a year, with an unknown kind or no count column is refused, naming the key to fix', () => {
    expect(() => countSourceOptions('pcp', { primary_care_physicians: 'n' }, {})).toThrow(
      /manifest key sources\.pcp\.options\.year: the year the counts describe/,
    );
    expect(() => countSourceOptions('pcp', { doctors: 'n' }, { year: 2022 })).toThrow(
      /sources\.pcp\.columns: unknown count kind "doctors"; known: primary_care_physicians, primary_care_np_pa/,
    );
    expect(() => countSourceOptions('pcp', { county: 'fips' }, { year: 2022 })).toThrow(/map at least one count kind/);
    expect(() => countSourceOptions('pcp', { dentists: 'n' }, { year: 2022, area: 'state' })).toThrow(
      /options\.area: "county" \(the default\), "tract" or "zip"/,
    );
  });

  it('the OB/GYN roster reads through the Doctors and Clinicians layout with its own column names; NA is no credential', async () => {
    const text =
      'id,NPI,Last Name,First Name,Middle Name,Gender,City,State,Zip Code,Credential,Primary Speciality,Secondary Specialty,year\n' +
      '1920269,1003000423,VELOTTA,JENNIFER,A,F,MENTOR,OH,44060,NA,OBSTETRICS/GYNECOLOGY,NA,2023.0\n' +
      '1,1679576722,DOE,JANE,,F,HOUSTON,TX,770541234,MD,GYNECOLOGICAL ONCOLOGY,NA,2023.0\n' +
      '2,1679576723,ROE,JO,,F,HOUSTON,TX,77054,MD,OBSTETRICS/GYNECOLOGY,NA,2023.0\n';
    const { rows, tally } = await ingest('doctors_clinicians', 'obgyn.csv', text, {
      columns: {
        last_name: 'Last Name',
        first_name: 'First Name',
        gender: 'Gender',
        credential: 'Credential',
        specialty: 'Primary Speciality',
        city: 'City',
        zip: 'Zip Code',
      },
    });
    expect(tally).toMatchObject({ read: 3, landed: 2, rejected: 1 });
    expect(rows[0].row).toMatchObject({
      npi: '1003000423',
      lastName: 'Velotta',
      credential: '',
      specialty: 'Obstetrics/Gynecology',
      zip: '44060',
    });
    expect(rows[1].row).toMatchObject({ credential: 'MD', specialty: 'Gynecological Oncology', zip: '77054' });
  });
});

describe('value parsers', () => {
  it('normalises ZIP codes from every real-world spelling', () => {
    expect(zip5('8065', 'z')).toBe('08065');
    expect(zip5('688482168.0', 'z')).toBe('68848');
    expect(zip5('10001-1234', 'z')).toBe('10001');
    expect(zip5('21601234', 'z')).toBe('02160'); // a ZIP+4 that lost its leading zero
    expect(() => zip5('ABCDE', 'zip')).toThrow(/zip is not a ZIP code/);
  });
  it('checks NPI check digits with the 80840 prefix', () => {
    expect(npiIsValid('1679576722')).toBe(true);
    expect(npiIsValid('1588667638')).toBe(true);
    expect(npiIsValid('1679576723')).toBe(false);
    expect(npiIsValid('3679576722')).toBe(false);
  });
});

describe('layouts on small files made here, broken rows included', () => {
  it('gazetteer: tab-separated with trailing blanks, gzipped; a bad point is rejected with its line', async () => {
    const text =
      'GEOID\tALAND\tAWATER\tALAND_SQMI\tAWATER_SQMI\tINTPTLAT\tINTPTLONG    \n' +
      '00601\t1\t1\t64.421\t0.308\t18.180555\t-66.749961     \n' +
      '10001\t1\t1\t0.245\t0\t40.750633\t-73.997177\n' +
      '99999\t1\t1\t1\t0\t123.0\t-73.9\n' +
      '10002\t1\t1\t0.8\t0\tnot-a-number\t-73.9\n';
    const { rows, tally, rejected } = await ingest('gazetteer_zcta', 'gaz.txt.gz', text);
    expect(rows.map((r) => r.row.zcta)).toEqual(['00601', '10001']);
    expect(rows[0].row).toEqual({ zcta: '00601', landSqMi: 64.421, latitude: 18.180555, longitude: -66.749961 });
    expect(tally).toMatchObject({ read: 4, landed: 2, rejected: 2, invalid: 2 });
    expect(rejected[0]).toMatch(
      /,4,invalid,internal_point_is_not_a_latitude_longitude,"internal point 123,-73.9 is not a latitude\/longitude"/,
    );
    expect(rejected[1]).toMatch(/,5,invalid,intptlat_is_not_a_number,"INTPTLAT is not a number: ""not-a-number"""/);
  });

  it('Census API JSON: sentinels become null, a short row is rejected', async () => {
    const json = JSON.stringify([
      ['NAME', 'DP05_0001E', 'DP03_0062E', 'zip code tabulation area'],
      ['ZCTA5 10001', '27004', '96787', '10001'],
      ['ZCTA5 00601', '16834', '-666666666', '00601'],
      ['ZCTA5 00602'],
    ]);
    const { rows, tally } = await ingest('acs_zcta', 'acs.json', json, {
      columns: { population: 'DP05_0001E', median_household_income: 'DP03_0062E' },
    });
    expect(rows.map((r) => r.row)).toEqual([
      { zcta: '10001', values: { population: 27004, median_household_income: 96787 } },
      { zcta: '00601', values: { population: 16834, median_household_income: null } },
    ]);
    expect(tally.rejected).toBe(1);
  });

  it('tidy ACS CSV in a zip: complement turns insured share into uninsured share; text in a number is rejected', async () => {
    const csv = '"GEOID","InsuredPopP"\n"01001",97.2\n"01002",NA\n"01003",abc\n';
    const { rows, rejected } = await ingest('acs_zcta', 'ins.zip', csv, {
      columns: { zcta: 'GEOID', uninsured_pct: 'InsuredPopP' },
      options: { complement: ['uninsured_pct'] },
    });
    expect(rows.map((r) => r.row.values.uninsured_pct)).toEqual([2.8, null]);
    expect(rejected[0]).toMatch(/uninsured_pct is not a number/);
  });

  it('NPPES official header: individuals land with their primary taxonomy; organisations, deactivations and bad NPIs do not', async () => {
    const row = (values: Record<string, string>) => NPPES_COLUMNS.map((c) => `"${values[c] ?? ''}"`).join(',');
    const person = {
      'Entity Type Code': '1',
      'Provider Last Name (Legal Name)': 'WIEBE',
      'Provider First Name': 'DAVID',
      'Provider Credential Text': 'M.D.',
      'Provider Sex Code': 'M',
      'Provider First Line Business Practice Location Address': '3500 CENTRAL AVE',
      'Provider Business Practice Location Address City Name': 'KEARNEY',
      'Provider Business Practice Location Address State Name': 'NE',
      'Provider Business Practice Location Address Postal Code': '688472944.0',
      'Healthcare Provider Taxonomy Code_1': '207Q00000X',
      'Healthcare Provider Primary Taxonomy Switch_1': 'N',
      'Healthcare Provider Taxonomy Code_2': '207RC0000X',
      'Healthcare Provider Primary Taxonomy Switch_2': 'Y',
    };
    const text = [
      NPPES_COLUMNS.map((c) => `"${c}"`).join(','),
      row({ NPI: '1679576722', ...person }),
      row({ NPI: '1588667638', 'Entity Type Code': '2', 'Provider Organization Name (Legal Business Name)': 'CLINIC' }),
      row({ NPI: '1497758544', 'NPI Deactivation Date': '05/23/2010' }),
      row({ NPI: '1679576723', ...person }),
      '"1234567893","1"',
    ].join('\n');
    const { rows, tally, rejected } = await ingest('nppes', 'npidata_pfile.csv', text);
    expect(rows).toHaveLength(1);
    expect(rows[0].row).toMatchObject({
      npi: '1679576722',
      lastName: 'Wiebe',
      zip: '68847',
      taxonomy: '207RC0000X',
    });
    expect(tally).toMatchObject({ read: 5, landed: 1, rejected: 4, invalid: 2 });
    expect(rejected.map((r) => r.split(',')[3])).toEqual(['excluded', 'excluded', 'invalid', 'invalid']);
    expect(rejected[2]).toMatch(/fails the NPI check digit/);
    expect(rejected[3]).toMatch(/row has 2 fields, the header has 330/);
  });

  it('Doctors and Clinicians: both header generations (leading spaces in the old one)', async () => {
    const old =
      ' NPI, lst_nm, frst_nm, gndr, Cred, Med_sch, Grd_yr, pri_spec, org_nm, cty, st, zip, hosp_afl_lbn_1\n' +
      '1215911011,PEREZ,SOCRATES,M,MD,OTHER,1981,INTERNAL MEDICINE,,NAPLES,FL,341081869,NAPLES COMMUNITY HOSPITAL\n';
    const current =
      'NPI,Provider Last Name,Provider First Name,gndr,Cred,Med_sch,Grd_yr,pri_spec,Telehlth,Facility Name,City/Town,State,ZIP Code\n' +
      '1083611826,BURKE,PHILIP,M,MD,YALE SCHOOL OF MEDICINE,1999,PSYCHIATRY,Y,YORK HOSPITAL,YORK,ME,03909\n' +
      '1083611826,BURKE,PHILIP,M,MD,,19x9,PSYCHIATRY,Y,,YORK,ME,03909\n';
    const a = await ingest('doctors_clinicians', 'dac_old.csv', old);
    expect(a.rows[0].row).toMatchObject({
      npi: '1215911011',
      medicalSchool: null,
      graduationYear: 1981,
      facilityNames: ['Naples Community Hospital'],
      zip: '34108',
    });
    const b = await ingest('doctors_clinicians', 'dac.csv.gz', current);
    expect(b.rows[0].row).toMatchObject({ medicalSchool: 'Yale School of Medicine', telehealth: true, facilityNames: ['York Hospital'] });
    expect(b.rejected[0]).toMatch(/Grd_yr is not a number/);
  });

  it('hospitals: HIFLD -999 beds are unknown, CLOSED rows land marked closed (the roster leaves them out), trauma levels read; CMS ratings must be 1-5', async () => {
    const hifld =
      '\uFEFFX,Y,NAME,ADDRESS,CITY,STATE,ZIP,TELEPHONE,TYPE,STATUS,LATITUDE,LONGITUDE,BEDS,WEBSITE\n' +
      '0,0,A HOSPITAL,1 MAIN ST,HANFORD,CA,93230,NOT AVAILABLE,GENERAL ACUTE CARE,OPEN,36.3,-119.6,-999,http://a.org\n' +
      '0,0,B HOSPITAL,2 MAIN ST,HANFORD,CA,93230,5551234567,GENERAL ACUTE CARE,CLOSED,36.3,-119.6,49,\n';
    const h = await ingest('hifld_hospitals', 'hifld.csv', hifld);
    expect(h.rows[0].row).toMatchObject({
      name: 'A Hospital',
      staffedBeds: null,
      licensedBeds: null,
      phone: '',
      website: 'http://a.org',
      latitude: 36.3,
      status: 'open',
    });
    expect(h.rows[1].row).toMatchObject({ name: 'B Hospital', licensedBeds: 49, status: 'closed' });
    expect(h.tally).toMatchObject({ landed: 2, rejected: 0, invalid: 0 });
    expect(
      ['LEVEL I, LEVEL II PEDIATRIC', 'LEVEL III, LEVEL I REHAB', 'LEVEL I PEDIATRIC REHAB', 'NOT AVAILABLE', 'TRF', 'LEVEL II REHAB'].map(
        traumaLevel,
      ),
    ).toEqual([1, 3, null, null, null, null]);
    const cms =
      'Facility ID,Facility Name,Address,City/Town,State,ZIP Code,Telephone Number,Hospital Type,Emergency Services,Hospital overall rating\n' +
      '10001,SOUTHEAST HEALTH,1108 ROSS CLARK CIRCLE,DOTHAN,AL,36301,(334) 793-8701,Acute Care Hospitals,Yes,4\n' +
      '10005,MARSHALL,2505 US 431,BOAZ,AL,35957,(256) 593-8310,Acute Care Hospitals,No,Not Available\n' +
      '10006,BAD,1 ST,BOAZ,AL,35957,,Acute Care Hospitals,Yes,7\n';
    const c = await ingest('cms_hospitals', 'cms.csv', cms);
    expect(c.rows.map((r) => [r.row.ccn, r.row.rating, r.row.emergency, r.row.type])).toEqual([
      ['010001', 4, true, 'Acute Care Hospital'],
      ['010005', null, false, 'Acute Care Hospital'],
    ]);
    expect(c.rejected[0]).toMatch(/rating must be 1-5/);
  });

  it('PLACES: ZCTA codes that lost their leading zero are re-padded', async () => {
    const { rows } = await ingest('places_zcta', 'places.csv', 'ZCTA5,DIABETES_CrudePrev,COPD_CrudePrev\n8065,11.2,\n');
    expect(rows[0].row).toMatchObject({ zcta: '08065', prevalence: { DIABETES: 11.2, COPD: null } });
  });

  it('a missing required column fails with the file, the column and the manifest key to set', async () => {
    await expect(ingest('zip_zcta', 'x.csv', 'ZIP_CODE,PO_NAME,STATE\n10001,NEW YORK,NY\n')).rejects.toThrow(
      /source "test" \(.*x\.csv\): required column "ZCTA" or "ZCTA5" for field "zcta" of layout zip_zcta is not in the header\. Set sources\.test\.columns\.zcta/,
    );
  });

  it('a row cut short is rejected even when the fields the layout needs are present', async () => {
    const { rows, rejected } = await ingest(
      'zip_zcta',
      'x.csv',
      'ZIP_CODE,PO_NAME,STATE,ZCTA,ZIP_TYPE,zip_join_type\n10001,NEW YORK,NY,10001,Zip Code Area,Zip matches ZCTA\n10002,NEW YORK,NY,10002\n',
    );
    expect(rows).toHaveLength(1);
    expect(rejected[0]).toMatch(/,3,invalid,field_count,"row has 4 fields, the header has 6"/);
  });

  it('a manifest column override maps a renamed column', async () => {
    const { rows } = await ingest('zip_zcta', 'x.csv', 'ZIP_CODE,PO_NAME,STATE,ZCTA_2020\n10001,NEW YORK,NY,10001\n', {
      columns: { zcta: 'ZCTA_2020' },
    });
    expect(rows[0].row).toMatchObject({ zip: '10001', city: 'New York', zcta: '10001' });
  });
});

describe('the layout list (a new layout goes in layouts/index.ts and ingest/ingested.ts)', () => {
  it('every layout has a filing in ingest, so a manifest naming it builds', () => {
    const filing = { providers: { addProvider() {}, addClinician() {} }, zctaOf: () => null, specialtyOf: () => '' };
    for (const layout of LAYOUTS.keys()) {
      const options = layout === 'drive_times' ? { destination: 'hospital' } : layout === 'clinician_counts' ? { year: 2022 } : {};
      const columns: Record<string, string> = layout === 'clinician_counts' ? { dentists: 'n' } : {};
      const spec: SourceSpec = { key: layout, layout, path: '', vintage: 'test', required: true, columns, options };
      expect(() => rowFiling(spec, emptyIngested(), filing), layout).not.toThrow();
    }
    const unknown: SourceSpec = { key: 'x', layout: 'not_a_layout', path: '', vintage: 'test', required: true, columns: {}, options: {} };
    expect(() => rowFiling(unknown, emptyIngested(), filing)).toThrow(/layout not_a_layout of source "x" has no ingest step/);
  });

  it('reads crosswalks and the code set before the provider files mapped through them', () => {
    const at = (layout: string) => LAYOUT_ORDER.indexOf(layout);
    for (const before of ['gazetteer_zcta', 'zip_zcta', 'nucc_taxonomy'])
      for (const provider of ['nppes', 'nppes_flat', 'doctors_clinicians'])
        expect(at(before), `${before} before ${provider}`).toBeLessThan(at(provider));
    expect(LAYOUT_ORDER).toHaveLength(LAYOUTS.size);
  });
});

describe('facilityTypeName', () => {
  it('gives each hospital type one name whichever file it comes from (CMS, HIFLD, CovidCareMap, the real 2020 values)', () => {
    const cms = ['Acute Care Hospitals', 'Critical Access Hospitals', 'Psychiatric', 'Acute Care - Veterans Administration', 'Childrens'];
    const hifld = ['GENERAL ACUTE CARE', 'CRITICAL ACCESS', 'PSYCHIATRIC', 'LONG TERM CARE', 'REHABILITATION', 'MILITARY', 'SPECIAL'];
    const named = [
      ...cms,
      'Rural Emergency Hospital',
      'Acute Care - Department of Defense',
      'Long-term',
      ...hifld,
      'CHILDREN',
      'WOMEN',
      'CHRONIC DISEASE',
    ].map(facilityTypeName);
    expect(new Set(named)).toEqual(
      new Set([
        'Acute Care Hospital',
        'Critical Access Hospital',
        'Psychiatric Hospital',
        'Acute Care - Veterans Administration',
        "Children's Hospital",
        'Rural Emergency Hospital',
        'Acute Care - Department of Defense',
        'Long-Term Care Hospital',
        'Rehabilitation Hospital',
        'Military Hospital',
        'Specialty Hospital',
        "Women's Hospital",
        'Chronic Disease Hospital',
      ]),
    );
    // A name is its own name, and a type no file has used keeps its words.
    for (const name of named) expect(facilityTypeName(name)).toBe(name);
    expect(facilityTypeName('CANCER CENTER')).toBe('Cancer Center');
  });
});

describe('displayName', () => {
  it('gives what the general rule gives for any text (the one-pass fast path changes nothing)', async () => {
    const { displayName, titleCase } = await import('../pipeline/layouts/values.ts');
    // The rule as written before the fast path: collapse whitespace runs, keep mixed case, title-case all caps.
    const reference = (value: string) => {
      const text = value.trim();
      const spaced = text.includes('  ') || /[\t\n]/.test(text) ? text.replace(/\s+/g, ' ') : text;
      return spaced !== spaced.toUpperCase() ? spaced : titleCase(spaced);
    };
    const alphabet = [
      'A',
      'Z',
      'M',
      'a',
      'z',
      'q',
      ' ',
      ' ',
      '  ',
      '\t',
      '\n',
      '\r',
      '-',
      "'",
      '/',
      '(',
      '.',
      '7',
      'É',
      'é',
      '\u00a0',
      'ß',
      // Lower-cases to two code units (i + combining dot), so lower and upper case do not line up.
      'İ',
    ];
    const random = seeded(7);
    for (let n = 0; n < 20_000; n++) {
      const text = Array.from({ length: Math.floor(random() * 12) }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
      expect(displayName(text), JSON.stringify(text)).toBe(reference(text));
    }
  });

  it('title-cases all-caps federal names and keeps mixed case', async () => {
    const { displayName } = await import('../pipeline/layouts/values.ts');
    expect(displayName("  O'NEIL-SMITH (JR.)  ")).toBe("O'Neil-Smith (Jr.)");
    expect(displayName('3500 CENTRAL  AVE')).toBe('3500 Central Ave');
    expect(displayName('McAllen')).toBe('McAllen');
    expect(displayName('')).toBe('');
  });
});

describe('rejectCode', () => {
  it('names a reason without its values: the words before any explanation, no quoted values or numbers (issue 28)', async () => {
    const { rejectCode } = await import('../pipeline/base/errors.ts');
    expect(rejectCode('deactivated NPI (no entity type, deactivation date set)')).toBe('deactivated_npi');
    expect(rejectCode('ZIP 10001 is listed twice')).toBe('zip_is_listed_twice');
    expect(rejectCode('CCN 390119 is not in the current CMS hospital list: closed, or no longer certified under it')).toBe(
      'ccn_is_not_in_the_current_cms_hospital_list',
    );
    expect(rejectCode('practice location postal code is not a ZIP code: "ABCDE"')).toBe('practice_location_postal_code_is_not_a_zip_code');
    expect(rejectCode('RUCA1 must be 1-10, got "99"')).toBe('ruca1_must_be');
    expect(rejectCode('NPI 2279033644 fails the NPI check digit (Luhn with prefix 80840)')).toBe('npi_fails_the_npi_check_digit');
    expect(rejectCode('"quoted"')).toBe('unspecified');
  });
});
