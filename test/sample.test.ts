import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { parse } from 'csv-parse/sync';
import { NPPES_COLUMNS } from '../pipeline/layouts/nppes-columns.ts';
import { npiCheckDigit } from '../core/npi.ts';
import { SAMPLE_FILES, writeSample, type SampleResult } from '../producers/sample/index.ts';
import { loadGeography } from '../producers/sample/geography.ts';

// A small sample: the geography is national (all 33,791 ZCTAs), only provider and facility counts shrink.
const SIZE = { providers: 3000, facilities: 400 };
const SHARED = join(import.meta.dirname, '../../shared/data');

// Official headers, written out here (not imported from the generator) so the test pins the layouts.
const HEADERS: Partial<Record<keyof typeof SAMPLE_FILES, string>> = {
  zipZcta: 'ZIP_CODE,PO_NAME,STATE,ZIP_TYPE,ZCTA,zip_join_type',
  zctaCounty:
    '"zcta","zcta_numeric","state_name","state_usps","state_fips","state_fips_numeric","county_name","county_fips","county_fips_numeric"',
  countyCbsa: 'county_fips,state_fips,state_name,county_name,cbsa_code,cbsa_title,cbsa_type,csa_code,csa_title,central_outlying',
  nchs: 'STFIPS,CTYFIPS,ST_ABBREV,CTYNAME,CBSATITLE,CBSAPOP,CTYPOP,CODE2023,CODE2013,CODE2006,CODE1990',
  nucc: 'Code,Grouping,Classification,Specialization,Definition,Notes,Display Name,Section',
  dac: 'NPI,Ind_PAC_ID,Ind_enrl_ID,Provider Last Name,Provider First Name,Provider Middle Name,suff,gndr,Cred,Med_sch,Grd_yr,pri_spec,sec_spec_1,sec_spec_2,sec_spec_3,sec_spec_4,sec_spec_all,Telehlth,Facility Name,org_pac_id,num_org_mem,adr_ln_1,adr_ln_2,ln_2_sprs,City/Town,State,ZIP Code,Telephone Number,ind_assgn,grp_assgn,adrs_id',
  hospitalGeneral:
    'Facility ID,Facility Name,Address,City/Town,State,ZIP Code,County/Parish,Telephone Number,Hospital Type,Hospital Ownership,Emergency Services,Meets criteria for birthing friendly designation,Hospital overall rating,Hospital overall rating footnote,MORT Group Measure Count,Count of Facility MORT Measures,Count of MORT Measures Better,Count of MORT Measures No Different,Count of MORT Measures Worse,MORT Group Footnote,Safety Group Measure Count,Count of Facility Safety Measures,Count of Safety Measures Better,Count of Safety Measures No Different,Count of Safety Measures Worse,Safety Group Footnote,READM Group Measure Count,Count of Facility READM Measures,Count of READM Measures Better,Count of READM Measures No Different,Count of READM Measures Worse,READM Group Footnote,Pt Exp Group Measure Count,Count of Facility Pt Exp Measures,Pt Exp Group Footnote,TE Group Measure Count,Count of Facility TE Measures,TE Group Footnote',
  hifld:
    '\uFEFFX,Y,FID,ID,NAME,ADDRESS,CITY,STATE,ZIP,ZIP4,TELEPHONE,TYPE,STATUS,POPULATION,COUNTY,COUNTYFIPS,COUNTRY,LATITUDE,LONGITUDE,NAICS_CODE,NAICS_DESC,SOURCE,SOURCEDATE,VAL_METHOD,VAL_DATE,WEBSITE,STATE_ID,ALT_NAME,ST_FIPS,OWNER,TTL_STAFF,BEDS,TRAUMA,HELIPAD',
  hrsa: 'name,st_abbr,city,address,phone,testing_status,lon,lat',
  places:
    'ZCTA5,TotalPopulation,ACCESS2_CrudePrev,ARTHRITIS_CrudePrev,BPHIGH_CrudePrev,CANCER_CrudePrev,CASTHMA_CrudePrev,CHD_CrudePrev,COPD_CrudePrev,DIABETES_CrudePrev,OBESITY_CrudePrev,CSMOKING_CrudePrev,DEPRESSION_CrudePrev',
  nppes: NPPES_COLUMNS.map((c) => `"${c}"`).join(','),
};
const ACS_HEADER = [
  'NAME',
  'DP05_0001E',
  'DP05_0018E',
  'DP05_0024PE',
  'DP03_0062E',
  'DP03_0128PE',
  'DP03_0099PE',
  'DP03_0097PE',
  'DP03_0098PE',
  'DP02_0072PE',
  'DP04_0058PE',
  'DP03_0021PE',
  'DP04_0001E',
  'DP04_0046PE',
  'DP04_0047PE',
  'DP04_0089E',
  'DP05_0037PE',
  'DP05_0038PE',
  'DP05_0044PE',
  'DP05_0071PE',
  'zip code tabulation area',
];

// Bounding boxes (lon/lat) of the areas that have ZCTAs; the Aleutians cross the 180th meridian.
const BOXES: [number, number, number, number][] = [
  [-125, 24.3, -66.8, 49.5],
  [-179.3, 51, -129.9, 71.5],
  [172, 51, 180, 53.1],
  [-160.5, 18.8, -154.7, 22.4],
  [-67.4, 17.8, -65.1, 18.6],
  [-65.2, 17.6, -64.5, 18.5],
  [144.5, 13.1, 146.2, 20.7],
  [-171.2, -14.7, -168, -11],
];

let dirs: string[] = [];
let result: SampleResult;
let other: SampleResult;

const read = (dir: string, rel: string) => readFileSync(join(dir, rel));
const text = (dir: string, rel: string) => {
  const buf = read(dir, rel);
  return (rel.endsWith('.gz') ? gunzipSync(buf) : buf).toString('utf8');
};
const rows = (dir: string, rel: string): string[][] => parse(text(dir, rel), { relax_column_count: true, bom: true, from_line: 2 });
const firstLine = (dir: string, rel: string) => text(dir, rel).split(/\r?\n/, 1)[0]!;
const COL = {
  deactivated: NPPES_COLUMNS.indexOf('NPI Deactivation Date'),
  practiceZip: NPPES_COLUMNS.indexOf('Provider Business Practice Location Address Postal Code'),
  switch1: NPPES_COLUMNS.indexOf('Healthcare Provider Primary Taxonomy Switch_1'),
};

beforeAll(async () => {
  dirs = [0, 1, 2].map((i) => mkdtempSync(join(tmpdir(), `hcas-sample-${i}-`)));
  result = await writeSample({ outDir: dirs[0]!, ...SIZE, seed: 7 });
  await writeSample({ outDir: dirs[1]!, ...SIZE, seed: 7 });
  other = await writeSample({ outDir: dirs[2]!, ...SIZE, seed: 8 });
}, 60_000);

afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('the sample geography', () => {
  it('finds every ZCTA within a distance, as the sorted search does, across the 180th meridian too', () => {
    const geo = loadGeography();
    const indices = (zctas: Array<{ index: number }>) => zctas.map((z) => z.index).sort((a, b) => a - b);
    // Every 97th ZCTA, the westernmost Aleutians, and a point west of the 180th meridian that has Adak within reach.
    const places = [...geo.zctas.filter((z) => z.index % 97 === 0 || z.lon < -174), { code: '179.5E', lon: 179.5, lat: 51.8 }];
    expect(places.length).toBeGreaterThan(300);
    expect(geo.within(179.5, 51.8, 400).map((z) => z.code)).toContain('99546');
    for (const miles of [10, 12, 25, 400])
      for (const z of places)
        expect(indices(geo.within(z.lon, z.lat, miles)), `${z.code} ${miles}`).toEqual(indices(geo.nearest(z.lon, z.lat, Infinity, miles)));
    // 1,400 sorted searches over 33,791 ZCTAs: about 2 s alone, over 5 s on a loaded 2-core machine.
  }, 30_000);
});

describe('npiCheckDigit', () => {
  it('matches real NPIs (Luhn over 80840 + first nine digits)', () => {
    for (const npi of ['1679576722', '1588667638', '1497758544', '1023011178', '1306849450', '1215911011'])
      expect(npiCheckDigit(npi.slice(0, 9))).toBe(npi[9]);
  });
  it('rejects input that is not nine digits', () => {
    expect(() => npiCheckDigit('12345')).toThrow();
  });
});

describe('hcas sample', () => {
  it('is byte-identical for the same seed and differs for another seed', () => {
    for (const rel of Object.values(SAMPLE_FILES)) expect(read(dirs[0]!, rel).equals(read(dirs[1]!, rel)), rel).toBe(true);
    // The ZIP crosswalk and NUCC codes involve no randomness; everything else must change with the seed.
    const seeded = Object.entries(SAMPLE_FILES).filter(([name]) => name !== 'zipZcta' && name !== 'nucc');
    for (const [, rel] of seeded) expect(read(dirs[0]!, rel).equals(read(dirs[2]!, rel)), rel).toBe(false);
    expect(other.providers).toBe(result.providers);
  });

  it('writes every file with the official header and reports row counts', () => {
    for (const [name, rel] of Object.entries(SAMPLE_FILES)) {
      const f = result.files[name]!;
      expect(f.path).toBe(join(dirs[0]!, rel));
      expect(existsSync(f.path)).toBe(true);
      expect(f.rows, name).toBeGreaterThan(0);
      const header = HEADERS[name as keyof typeof SAMPLE_FILES];
      if (header) expect(firstLine(dirs[0]!, rel), name).toBe(header);
    }
    expect(firstLine(dirs[0]!, SAMPLE_FILES.gazetteer).trimEnd()).toBe(
      'GEOID\tALAND\tAWATER\tALAND_SQMI\tAWATER_SQMI\tINTPTLAT\tINTPTLONG',
    );
    const acs = JSON.parse(text(dirs[0]!, SAMPLE_FILES.acs)) as unknown[][];
    expect(acs[0]).toEqual(ACS_HEADER);
    expect(acs.length - 1).toBe(result.files.acs!.rows);
    expect(acs.flat().every((v) => typeof v === 'string')).toBe(true);
    expect(acs[1]![0]).toMatch(/^ZCTA5 \d{5}$/);
  });

  it.skipIf(!existsSync(SHARED))('matches the headers of the real files in ../shared/data', () => {
    const real = (rel: string) => {
      const buf = readFileSync(join(SHARED, rel));
      return (rel.endsWith('.gz') ? gunzipSync(buf) : buf).toString('utf8').split(/\r?\n/, 1)[0]!;
    };
    expect(firstLine(dirs[0]!, SAMPLE_FILES.hospitalGeneral)).toBe(real('cms/Hospital_General_Information.csv.gz'));
    expect(firstLine(dirs[0]!, SAMPLE_FILES.hifld)).toBe(real('facilities/hifld_hospitals_2020.csv.gz'));
    expect(firstLine(dirs[0]!, SAMPLE_FILES.hrsa)).toBe(real('facilities/hrsa_fqhc_sites_2020.csv.gz'));
    expect(firstLine(dirs[0]!, SAMPLE_FILES.zipZcta)).toBe(real('crosswalks/uds_zip_zcta_2021.csv.gz'));
    expect(firstLine(dirs[0]!, SAMPLE_FILES.nucc)).toBe(real('nucc/nucc_taxonomy_251.csv'));
  });

  it('lists every 2020 ZCTA in the gazetteer and maps each to a county', () => {
    const gaz = text(dirs[0]!, SAMPLE_FILES.gazetteer)
      .split('\n')
      .slice(1)
      .filter(Boolean)
      .map((l) => l.split('\t'));
    const codes = new Set(gaz.map((r) => r[0]));
    expect(codes.size).toBe(33_791);
    expect(result.zctas).toBe(33_791);
    expect(gaz.every((r) => r.length === 7 && /^\d{5}$/.test(r[0]!))).toBe(true);
    const counties = new Set(rows(dirs[0]!, SAMPLE_FILES.zctaCounty).map((r) => r[0]));
    expect(counties).toEqual(codes);
  });

  it('writes 330 quoted fields per NPPES row, valid unique NPIs and the announced broken rows', () => {
    const nppes = rows(dirs[0]!, SAMPLE_FILES.nppes);
    expect(nppes.length).toBe(result.files.nppes!.rows);
    const broken = new Map(result.brokenRows.map((b) => [b.npi, b]));
    expect(broken.size).toBeGreaterThanOrEqual(3);
    expect(new Set(result.brokenRows.map((b) => b.reason))).toEqual(
      new Set(['invalid NPI check digit', 'malformed practice ZIP', 'short row']),
    );
    const zipToZcta = new Map(rows(dirs[0]!, SAMPLE_FILES.zipZcta).map((r) => [r[0]!, r[4]!]));
    const seen = new Set<string>();
    const entities: Record<string, number> = {};
    nppes.forEach((r, i) => {
      const npi = r[0]!;
      expect(seen.has(npi), npi).toBe(false);
      seen.add(npi);
      const b = broken.get(npi);
      if (b) expect(b.row).toBe(i + 1);
      if (b?.reason === 'short row') expect(r.length).toBeLessThan(330);
      else expect(r.length).toBe(330);
      if (b?.reason === 'invalid NPI check digit') expect(npiCheckDigit(npi.slice(0, 9))).not.toBe(npi[9]);
      else expect(npi[9], npi).toBe(npiCheckDigit(npi.slice(0, 9)));
      expect(npi).toMatch(/^[12]\d{9}$/);
      if (b) return;
      const entity = r[1]!;
      entities[entity] = (entities[entity] ?? 0) + 1;
      if (entity === '') {
        expect(r[COL.deactivated]).toMatch(/^\d\d\/\d\d\/\d{4}$/); // NPI Deactivation Date, all else blank
        expect(r.filter(Boolean).length).toBe(2);
        return;
      }
      const zip = r[COL.practiceZip]!;
      expect(zip).toMatch(/^\d{5}(\d{4})?$/);
      expect(zipToZcta.has(zip.slice(0, 5)), zip).toBe(true);
      const switches = [0, 1, 2, 3, 4].map((k) => r[COL.switch1 + 4 * k]).filter(Boolean);
      expect(switches.filter((s) => s === 'Y').length).toBe(1);
      expect(switches.every((s) => s === 'Y' || s === 'N')).toBe(true);
    });
    expect(entities['1']).toBe(SIZE.providers);
    expect(entities['2']).toBe(Math.round(SIZE.providers * 0.08));
    expect(entities['']).toBe(Math.round(SIZE.providers * 0.005));
    // Every field of the real dissemination file is quoted, empty ones as "".
    const line = text(dirs[0]!, SAMPLE_FILES.nppes).split('\n')[1]!;
    expect(line.startsWith('"') && line.endsWith('"') && line.includes(',"",')).toBe(true);
  });

  it('lists in Doctors and Clinicians only individual NPPES providers', () => {
    const individuals = new Set(
      rows(dirs[0]!, SAMPLE_FILES.nppes)
        .filter((r) => r[1] === '1')
        .map((r) => r[0]),
    );
    for (const b of result.brokenRows) individuals.delete(b.npi);
    const dac = rows(dirs[0]!, SAMPLE_FILES.dac);
    expect(dac.length).toBe(result.files.dac!.rows);
    expect(dac.every((r) => r.length === 31 && individuals.has(r[0]) && /^\d{9}$/.test(r[26]!))).toBe(true);
  });

  it('places hospitals inside the US and keeps CMS certification numbers as 6-character text', () => {
    const hifld = rows(dirs[0]!, SAMPLE_FILES.hifld);
    expect(hifld.length).toBeGreaterThan(0);
    for (const r of hifld) {
      const lat = Number(r[17]);
      const lon = Number(r[18]);
      expect(
        BOXES.some(([w, s, e, n]) => lon >= w && lon <= e && lat >= s && lat <= n),
        `${r[4]} ${lat},${lon}`,
      ).toBe(true);
    }
    const types = new Set([
      'Acute Care Hospitals',
      'Critical Access Hospitals',
      'Childrens',
      'Psychiatric',
      'Acute Care - Veterans Administration',
      'Acute Care - Department of Defense',
    ]);
    for (const r of rows(dirs[0]!, SAMPLE_FILES.hospitalGeneral)) {
      expect(r[0]).toMatch(/^\d{2}(\d{4}|\d{3}F)$/);
      expect(types.has(r[8]!)).toBe(true);
    }
  });
});
