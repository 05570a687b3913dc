import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { npiCheckDigit } from '../../core/npi.ts';
import { NPPES_COLUMNS } from '../../pipeline/layouts/nppes-columns.ts';
import { type FixtureRoute, zipArchive } from './fetch-server.ts';
import { seeded } from './seeded.ts';

/**
 * A loopback mirror of the national publishers for the fetch tests: each official address of
 * raw/national/sources.json becomes `BASE/host/path` on a FixtureServer, serving a few rows in the official
 * layout (the NPPES zip with its other members first, the Census API's JSON, the CMS metastore entries ...).
 */
export const SECRETS = { CENSUS_API_KEY: 'test-census-key-0123', HUD_API_TOKEN: 'test-hud-token-4567' };

export const ZCTAS = [
  { zcta: '10001', lat: 40.750649, lon: -73.997298, sqmi: 0.24, county: '36061', state: 'NY', city: 'NEW YORK' },
  { zcta: '10002', lat: 40.715233, lon: -73.986129, sqmi: 0.87, county: '36061', state: 'NY', city: 'NEW YORK' },
  { zcta: '59001', lat: 45.532107, lon: -109.467012, sqmi: 310.5, county: '30095', state: 'MT', city: 'ABSAROKEE' },
];

const NPPES_ZIP = '/download.cms.gov/nppes/NPPES_Data_Dissemination_November_2026_V2.zip';
export const PATHS = {
  gazetteer: '/www2.census.gov/geo/docs/maps-data/data/gazetteer/2024_Gazetteer/2024_Gaz_zcta_national.zip',
  acs: '/api.census.gov/data/2022/acs/acs5/profile',
  acsVariables: '/api.census.gov/data/2022/acs/acs5/profile/variables.json',
  hud: '/www.huduser.gov/hudapi/public/usps',
  places: '/data.cdc.gov/api/views/kee5-23sr/rows.csv',
  nuccListing: '/www.nucc.org/index.php/code-sets-mainmenu-41/provider-taxonomy-mainmenu-40/csv-mainmenu-57',
  nucc: '/www.nucc.org/images/stories/CSV/nucc_taxonomy_261.csv',
  hospitalsEntry: '/data.cms.gov/provider-data/api/1/metastore/schemas/dataset/items/xubh-q36u',
  hospitalsRedirect: '/data.cms.gov/provider-data/download/xubh-q36u',
  hospitals: '/data.cms.gov/provider-data/sites/default/files/resources/a1b2/Hospital_General_Information.csv',
  dacEntry: '/data.cms.gov/provider-data/api/1/metastore/schemas/dataset/items/mj5m-pzi6',
  dac: '/data.cms.gov/provider-data/sites/default/files/resources/c3d4/DAC_NationalDownloadableFile.csv',
  hrsa: '/data.hrsa.gov/DataDownload/DD_Files/Health_Center_Service_Delivery_and_LookAlike_Sites.csv',
  nppesListing: '/download.cms.gov/nppes/NPI_Files.html',
  nppes: NPPES_ZIP,
  residentsPoints: '/hudgis-hud.opendata.arcgis.com/api/download/v1/items/d032efff520b4bf0aa620a54a477c70e/csv',
  tractCentres: '/www2.census.gov/geo/docs/reference/cenpop2020/tract/CenPop2020_Mean_TR.txt',
};
export const NPPES_MEMBER = 'npidata_pfile_20050523-20261109.csv';

function csv(rows: Array<Array<string | number>>, quoteAll = false): string {
  const field = (value: string | number) => {
    const text = String(value);
    return quoteAll || /[",\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
  };
  return `${rows.map((row) => row.map(field).join(',')).join('\n')}\n`;
}

function npi(index: number): string {
  const first9 = `1${String(234_560_00 + index).padStart(8, '0')}`;
  return first9 + npiCheckDigit(first9);
}

/** Clinicians in the official 330-column NPPES layout, plus an organisation the build leaves out. */
export function nppesCsv(): string {
  const random = seeded(7);
  const rows: string[][] = [];
  const people = Array.from({ length: 12 }, (_, i) => ({
    place: ZCTAS[i % 3],
    last: ['SMITH', 'GARCIA', 'NGUYEN', 'JONES'][i % 4],
    first: ['ANA', 'BEN', 'CHEN', 'DANA'][(i + 1) % 4],
    taxonomy: ['207Q00000X', '207R00000X', '363L00000X'][i % 3],
  }));
  people.forEach((p, i) => {
    const row: Record<string, string> = {
      NPI: npi(i),
      'Entity Type Code': '1',
      'Provider Last Name (Legal Name)': p.last,
      'Provider First Name': p.first,
      'Provider Credential Text': 'MD',
      'Provider First Line Business Practice Location Address': `${Math.floor(random() * 900 + 100)} MAIN ST`,
      'Provider Business Practice Location Address City Name': p.place.city,
      'Provider Business Practice Location Address State Name': p.place.state,
      'Provider Business Practice Location Address Postal Code': `${p.place.zcta}1234`,
      'Provider Business Practice Location Address Country Code (If outside U.S.)': 'US',
      'Provider Sex Code': i % 2 ? 'F' : 'M',
      'Healthcare Provider Taxonomy Code_1': p.taxonomy,
      'Healthcare Provider Primary Taxonomy Switch_1': 'Y',
    };
    rows.push(NPPES_COLUMNS.map((name) => row[name] ?? ''));
  });
  const organisation: Record<string, string> = {
    NPI: npi(99),
    'Entity Type Code': '2',
    'Provider Organization Name (Legal Business Name)': 'GENERAL HOSPITAL',
    'Provider Business Practice Location Address Postal Code': '10001',
  };
  rows.push(NPPES_COLUMNS.map((name) => organisation[name] ?? ''));
  return csv([[...NPPES_COLUMNS], ...rows], true);
}

/** The monthly NPPES zip: its other data files first, as the real one lists them, so picking the member matters. */
export function nppesZip(): Buffer {
  const date = '20050523-20261109';
  return zipArchive([
    {
      name: `endpoint_pfile_${date}.csv`,
      data: csv([
        ['NPI', 'Endpoint Type', 'Endpoint'],
        [npi(1), 'DIRECT', 'a@b.org'],
      ]),
    },
    { name: `endpoint_pfile_${date}_fileheader.csv`, data: csv([['NPI', 'Endpoint Type', 'Endpoint']]) },
    { name: NPPES_MEMBER, data: nppesCsv() },
    { name: `npidata_pfile_${date}_fileheader.csv`, data: csv([[...NPPES_COLUMNS]], true) },
    {
      name: `othername_pfile_${date}.csv`,
      data: csv([
        ['NPI', 'Provider Other Organization Name'],
        [npi(99), 'GH'],
      ]),
    },
    {
      name: `pl_pfile_${date}.csv`,
      data: csv([
        ['NPI', 'Provider Secondary Practice Location Address- Address Line 1'],
        [npi(2), '1 ELM ST'],
      ]),
    },
    { name: 'NPPES_Data_Dissemination_Readme_v.2.pdf', data: Buffer.from('%PDF-1.4 fixture'), stored: true },
  ]);
}

export function hospitalsCsv(renamed?: { from: string; to: string }): string {
  const header = [
    'Facility ID',
    'Facility Name',
    'Address',
    'City/Town',
    'State',
    'ZIP Code',
    'County/Parish',
    'Telephone Number',
    'Hospital Type',
    'Hospital Ownership',
    'Emergency Services',
    'Meets criteria for birthing friendly designation',
    'Hospital overall rating',
  ];
  return csv([
    header.map((name) => (name === renamed?.from ? renamed.to : name)),
    [
      '330214',
      'NYU LANGONE HOSPITALS',
      '550 FIRST AVENUE',
      'NEW YORK',
      'NY',
      '10016',
      'NEW YORK',
      '(212) 263-7300',
      'Acute Care Hospitals',
      'Voluntary non-profit - Private',
      'Yes',
      'Y',
      '5',
    ],
    [
      '271327',
      'STILLWATER BILLINGS CLINIC',
      '1 HOSPITAL ROAD',
      'COLUMBUS',
      'MT',
      '59019',
      'STILLWATER',
      '(406) 322-5316',
      'Critical Access Hospitals',
      'Voluntary non-profit - Other',
      'Yes',
      '',
      'Not Available',
    ],
  ]);
}

function dacCsv(): string {
  const header = [
    'NPI',
    'Ind_PAC_ID',
    'Ind_enrl_ID',
    'Provider Last Name',
    'Provider First Name',
    'Provider Middle Name',
    'suff',
    'gndr',
    'Cred',
    'Med_sch',
    'Grd_yr',
    'pri_spec',
    'Telehlth',
    'Facility Name',
    'org_pac_id',
    'num_org_mem',
    'adr_ln_1',
    'adr_ln_2',
    'ln_2_sprs',
    'City/Town',
    'State',
    'ZIP Code',
    'Telephone Number',
    'ind_assgn',
    'grp_assgn',
    'adrs_id',
  ];
  return csv([
    header,
    [
      npi(0),
      '1',
      'I1',
      'SMITH',
      'BEN',
      '',
      '',
      'M',
      'MD',
      'OTHER',
      '2001',
      'FAMILY PRACTICE',
      'Y',
      'CHELSEA MEDICAL',
      '2',
      '5',
      '1 MAIN ST',
      '',
      '',
      'NEW YORK',
      'NY',
      '100011234',
      '2125550100',
      'Y',
      'Y',
      'NY100',
    ],
  ]);
}

/** The Census API's variables.json for the profile variables a source list checks, labels ending in the expected text. */
export function censusVariables(labels: Record<string, string>, changed: Record<string, string> = {}): string {
  const variables = Object.fromEntries(
    Object.entries(labels).map(([name, expected]) => [
      name,
      { label: `Estimate!!SECTION!!Total!!${changed[name] ?? expected}`, concept: 'fixture' },
    ]),
  );
  return JSON.stringify({ variables });
}

function censusJson(variables: string[]): string {
  const rows = ZCTAS.map((z, i) => [
    `ZCTA5 ${z.zcta}`,
    ...variables.map((name) =>
      name === 'DP05_0001E' ? String([28000, 76000, 900][i]) : name === 'DP03_0062E' && z.zcta === '59001' ? '-666666666' : String(10 + i),
    ),
    z.zcta,
  ]);
  return JSON.stringify([['NAME', ...variables, 'zip code tabulation area'], ...rows]);
}

/** The route table of the mirror, for a server at `base`; `sourcesText` is the (rewritten) source list. */
export function mirrorRoutes(base: string, sourcesText: string, options: { hospitals?: string } = {}): Record<string, FixtureRoute> {
  const sources = JSON.parse(sourcesText).sources;
  const labels: Record<string, string> = sources.acs_profile.check_labels.labels;
  const gazetteer = `GEOID\tALAND\tAWATER\tALAND_SQMI\tAWATER_SQMI\tINTPTLAT\tINTPTLONG                                                                                                               \n${ZCTAS.map((z) => `${z.zcta}\t${Math.round(z.sqmi * 2589988)}\t0\t${z.sqmi}\t0\t${z.lat}\t${z.lon}          `).join('\n')}\n`;
  const json = (body: unknown): FixtureRoute => ({ body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  return {
    [PATHS.gazetteer]: { body: zipArchive([{ name: '2024_Gaz_zcta_national.txt', data: gazetteer }]) },
    [PATHS.acs]: {
      handle: (request) => {
        const query = new URL(request.url ?? '', 'http://x').searchParams;
        // The real API answers a missing key with an HTML page and status 200.
        if (query.get('key') !== SECRETS.CENSUS_API_KEY)
          return { body: '<html><body>Missing Key</body></html>', headers: { 'content-type': 'text/html;charset=utf-8' } };
        return json(JSON.parse(censusJson((query.get('get') ?? '').split(',').slice(1))));
      },
    },
    [PATHS.acsVariables]: { body: censusVariables(labels), headers: { 'content-type': 'application/json' } },
    [PATHS.hud]: {
      handle: (request) =>
        request.headers.authorization === `Bearer ${SECRETS.HUD_API_TOKEN}`
          ? json({
              data: {
                year: 2026,
                quarter: 2,
                input: 'All',
                crosswalk_type: 'zip-county',
                results: ZCTAS.map((z) => ({
                  zip: z.zcta,
                  geoid: z.county,
                  res_ratio: 1,
                  bus_ratio: 1,
                  oth_ratio: 1,
                  tot_ratio: 1,
                  city: z.city,
                  state: z.state,
                })),
              },
            })
          : { status: 401, body: '{"error":"Unauthenticated"}', headers: { 'content-type': 'application/json' } },
    },
    [PATHS.places]: {
      body: csv([
        ['StateAbbr', 'ZCTA5', 'TotalPopulation', 'DIABETES_CrudePrev', 'OBESITY_CrudePrev', 'CSMOKING_CrudePrev'],
        ...ZCTAS.map((z, i) => [z.state, z.zcta, 1000 * (i + 1), 9.1 + i, 30.2, 12.5]),
      ]),
      headers: { 'content-type': 'text/csv' },
    },
    [PATHS.nuccListing]: {
      body: `<html><body><a href="/www.nucc.org/images/stories/CSV/nucc_taxonomy_91.csv">9.1</a> <a href="/www.nucc.org/images/stories/CSV/nucc_taxonomy_251.csv">25.1</a> <a href='/www.nucc.org/images/stories/CSV/nucc_taxonomy_261.csv'>26.1</a> <a href="/www.nucc.org/images/stories/PDF/taxonomy_261.pdf">PDF</a></body></html>`,
      headers: { 'content-type': 'text/html' },
    },
    [PATHS.nucc]: {
      body: csv([
        ['Code', 'Grouping', 'Classification', 'Specialization', 'Definition', 'Notes', 'Display Name', 'Section'],
        [
          '207Q00000X',
          'Allopathic & Osteopathic Physicians',
          'Family Medicine',
          '',
          'Family medicine is ...',
          '',
          'Family Medicine Physician',
          'Individual',
        ],
        [
          '207R00000X',
          'Allopathic & Osteopathic Physicians',
          'Internal Medicine',
          '',
          'A physician who ...',
          '',
          'Internal Medicine Physician',
          'Individual',
        ],
        [
          '363L00000X',
          'Physician Assistants & Advanced Practice Nursing Providers',
          'Nurse Practitioner',
          '',
          'A registered nurse ...',
          '',
          'Nurse Practitioner',
          'Individual',
        ],
      ]),
    },
    [PATHS.hospitalsEntry]: json({
      identifier: 'xubh-q36u',
      title: 'Hospital General Information',
      distribution: [{ data: { downloadURL: `${base}${PATHS.hospitalsRedirect}`, mediaType: 'text/csv' } }],
    }),
    // The catalogue's address redirects (relatively) to the file, as download links often do.
    [PATHS.hospitalsRedirect]: { redirect: PATHS.hospitals },
    [PATHS.hospitals]: { body: options.hospitals ?? hospitalsCsv(), headers: { 'content-type': 'text/csv' } },
    [PATHS.dacEntry]: json({ identifier: 'mj5m-pzi6', distribution: [{ data: { downloadURL: `${base}${PATHS.dac}` } }] }),
    [PATHS.dac]: { body: dacCsv(), headers: { 'content-type': 'text/csv' } },
    [PATHS.hrsa]: {
      body: csv([
        [
          'Health Center Type Description',
          'Site Name',
          'Site Address',
          'Site City',
          'Site State Abbreviation',
          'Site Postal Code',
          'Site Telephone Number',
          'Site Web Address',
          'Geocoding Artifact Address Primary X Coordinate',
          'Geocoding Artifact Address Primary Y Coordinate',
        ],
        [
          'Federally Qualified Health Center (FQHC)',
          'ABSAROKEE COMMUNITY CLINIC',
          '1 MAIN ST',
          'ABSAROKEE',
          'MT',
          '59001',
          '4065550100',
          '',
          '-109.44',
          '45.52',
        ],
      ]),
      headers: { 'content-type': 'text/csv' },
    },
    [PATHS.nppesListing]: {
      body: `<html><body>
        <a href="./NPPES_Data_Dissemination_110326_110926_Weekly_V2.zip">Weekly</a>
        <a href="./NPPES_Deactivated_NPI_Report_111026_V2.zip">Deactivated</a>
        <a href="./NPPES_Data_Dissemination_November_2026.zip">Version 1</a>
        <a href="./NPPES_Data_Dissemination_November_2026_V2.zip">Full Replacement Monthly NPI File (V.2)</a>
      </body></html>`,
      headers: { 'content-type': 'text/html' },
    },
    [PATHS.nppes]: { body: nppesZip(), headers: { 'content-type': 'application/zip' } },
    // HUD's file as Hub writes it: a byte-order mark, X/Y beside LATITUDE/LONGITUDE.
    [PATHS.residentsPoints]: {
      body: `\uFEFF${csv([
        ['X', 'Y', 'OBJECTID', 'STD_ZIP5', 'USPS_ZIP_PREF_CITY', 'USPS_ZIP_PREF_STATE', 'LATITUDE', 'LONGITUDE'],
        ...ZCTAS.map((z, i) => [z.lon + 0.01, z.lat + 0.01, i + 1, z.zcta, z.city, z.state, z.lat + 0.01, z.lon + 0.01]),
      ])}`,
      headers: { 'content-type': 'text/csv' },
    },
    // The Census file: a byte-order mark, coordinates with a sign and leading zeros.
    [PATHS.tractCentres]: {
      body: `\uFEFF${csv([
        ['STATEFP', 'COUNTYFP', 'TRACTCE', 'POPULATION', 'LATITUDE', 'LONGITUDE'],
        ...ZCTAS.map((z, i) => [
          z.county.slice(0, 2),
          z.county.slice(2),
          String(100 + i).padStart(6, '0'),
          4000 + i,
          `+0${z.lat.toFixed(6)}`,
          `-${String(Math.abs(z.lon).toFixed(6)).padStart(10, '0')}`,
        ]),
      ])}`,
      headers: { 'content-type': 'text/plain' },
    },
  };
}

/**
 * Copies the committed source list into `dir/national/sources.json` with every https:// address moved onto
 * the mirror, and writes a stand-in `dir/manifests/public.json` (the bundled extract's manifest) whose only
 * present file is the ZIP-to-ZCTA crosswalk, so fallbacks are exercised without the real bundle.
 */
export function mirroredSources(dir: string, base: string, committed: string): { sourcesFile: string; text: string } {
  // Only the addresses fetch asks for move; source_url, notes and the help text keep the publishers' own.
  const list = JSON.parse(readFileSync(committed, 'utf8'));
  const move = (url: string) => url.replace(/^https:\/\//, `${base}/`);
  for (const spec of Object.values<Record<string, any>>(list.sources)) {
    if (spec.url) spec.url = move(spec.url);
    if (spec.discover?.listing) spec.discover.listing = move(spec.discover.listing);
    if (spec.discover?.json) spec.discover.json = move(spec.discover.json);
    if (spec.check_labels) spec.check_labels.url = move(spec.check_labels.url);
  }
  const text = JSON.stringify(list, null, 2);
  mkdirSync(path.join(dir, 'national'), { recursive: true });
  mkdirSync(path.join(dir, 'manifests'), { recursive: true });
  mkdirSync(path.join(dir, 'public'), { recursive: true });
  const sourcesFile = path.join(dir, 'national', 'sources.json');
  writeFileSync(sourcesFile, text);
  // The stand-in holds the bundled sources the national list falls back to, each with the layout the bundle's
  // own manifest gives it: the layouts are written once, in raw/manifests/public.json.
  const fallbacks = Object.values<Record<string, any>>(list.sources).flatMap((spec) =>
    spec.fallback
      ? [{ manifest: path.resolve(path.dirname(committed), spec.fallback.manifest), keys: spec.fallback.keys as string[] }]
      : [],
  );
  const layouts: Record<string, string> = {};
  for (const { manifest, keys } of fallbacks) {
    const bundled = JSON.parse(readFileSync(manifest, 'utf8')).sources as Record<string, { layout: string }>;
    for (const key of keys) layouts[key] = bundled[key].layout;
  }
  const bundle = {
    name: 'stand-in bundle',
    root: '../public',
    sources: Object.fromEntries(
      Object.entries(layouts).map(([key, layout]) => [
        key,
        {
          layout,
          path: `${key}.csv`,
          vintage: `bundled ${key}`,
          source_url: `https://example.org/${key}`,
          licence: 'test',
          retrieved_from: 'fixture',
        },
      ]),
    ),
  };
  writeFileSync(path.join(dir, 'manifests', 'public.json'), JSON.stringify(bundle));
  writeFileSync(
    path.join(dir, 'public', 'zip_zcta.csv'),
    csv([
      ['ZIP_CODE', 'PO_NAME', 'STATE', 'ZIP_TYPE', 'ZCTA'],
      ...ZCTAS.map((z) => [z.zcta, z.city, z.state, 'Zip Code Area', z.zcta]),
      ['10118', 'NEW YORK', 'NY', 'Post Office or large volume customer', '10001'],
    ]),
  );
  return { sourcesFile, text };
}
