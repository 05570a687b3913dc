import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../core/package.ts';
import { build } from '../pipeline/run/index.ts';
import { fetchNational, type FetchOptions } from '../producers/fetch/index.ts';
import { LAYOUTS } from '../pipeline/layouts/index.ts';
import { loadManifest } from '../pipeline/config/manifest.ts';
import { type FixtureRoute, FixtureServer, zipArchive } from './helpers/fetch-server.ts';
import { tempDir } from './helpers/files.ts';
import {
  hospitalsCsv,
  mirroredSources,
  mirrorRoutes,
  NPPES_MEMBER,
  nppesCsv,
  nppesZip,
  PATHS,
  SECRETS,
  censusVariables,
} from './helpers/national-mirror.ts';
import { hcas as runHcas } from './helpers/cli.ts';

const COMMITTED = path.join(PACKAGE_ROOT, 'raw/national/sources.json');
/** `${NAME}`, the source list's syntax for an environment variable. */
const VAR = (name: string) => `$${'{'}${name}}`;
const FAST = { backoffMs: 5, idleTimeoutMs: 2_000, retries: 3 };

let server: FixtureServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

/** The committed source list, moved onto a loopback mirror of the publishers, and a run of hcas fetch over it. */
async function mirror(
  options: { hospitals?: string; routes?: (base: string, routes: Record<string, FixtureRoute>) => Record<string, FixtureRoute> } = {},
) {
  server = await new FixtureServer({}).start();
  const dir = tempDir('hcas-fetch-');
  const base = server.url('');
  const { sourcesFile, text } = mirroredSources(dir, base, COMMITTED);
  Object.assign(server.routes, mirrorRoutes(base, text, { hospitals: options.hospitals }));
  Object.assign(server.routes, options.routes?.(base, server.routes));
  const out = path.join(dir, 'national');
  const lines: string[] = [];
  const run = (extra: Partial<FetchOptions> = {}) =>
    fetchNational({ sources: sourcesFile, out, env: { ...SECRETS }, http: FAST, log: (line) => lines.push(line), ...extra });
  return { server, dir, out, sourcesFile, lines, run };
}

// A fetch with its downloads, unpacking and checks, and a build of what it wrote: 1 to 3.4 s in CI runs, and past
// vitest's default 5 s in one run on a loaded machine.
describe('hcas fetch against a loopback mirror of the publishers', { timeout: 60_000 }, () => {
  it('downloads every source of the committed list, unpacks, checks, and writes a manifest the build accepts', async () => {
    const { out, run, server } = await mirror();
    const summary = await run();
    expect(summary.fetched.sort()).toEqual([
      'acs_profile',
      'cms_hospitals',
      'doctors_clinicians',
      'gazetteer',
      'hrsa_sites',
      'nppes',
      'nucc',
      'places',
      'reference_tract_centres',
      'zip_county',
      'zip_residents_point',
    ]);
    expect(summary.fallbacks).toEqual({ zip_zcta: ['zip_zcta'] });
    expect(Object.keys(summary.notIncluded)).toContain('county_cbsa');
    expect(summary.notIncluded.county_cbsa).toMatch(/Save it as .*county_cbsa\.csv and run hcas fetch again/);

    const manifest = JSON.parse(readFileSync(summary.manifest, 'utf8'));
    // Discovery: the monthly V2 zip (not the weekly, deactivated or V1 files), the highest NUCC version, the metastore's URL.
    expect(manifest.sources.nppes.vintage).toBe('NPPES monthly full replacement file NPPES_Data_Dissemination_November_2026_V2.zip');
    expect(manifest.sources.nppes.path).toBe(`nppes/${NPPES_MEMBER}.gz`);
    expect(manifest.sources.nppes.retrieved_from).toMatch(
      /NPPES_Data_Dissemination_November_2026_V2\.zip \(member npidata_pfile_20050523-20261109\.csv\)$/,
    );
    expect(manifest.sources.nucc.path).toBe('nucc/nucc_taxonomy_261.csv');
    // Redirects are followed: the catalogue's address answered 302 to the file.
    expect(server.hits(PATHS.hospitalsRedirect)).toHaveLength(1);
    expect(manifest.sources.cms_hospitals.retrieved_from).toMatch(/Hospital_General_Information\.csv$/);
    expect(manifest.sources.cms_hospitals).toMatchObject({
      path: 'cms_hospitals/Hospital_General_Information.csv',
      vintage: 'CMS Care Compare Hospital General Information (Hospital_General_Information.csv)',
    });
    // The deflated member was rewrapped as gzip without inflating: it gunzips to the original CSV, CRC checked.
    expect(gunzipSync(readFileSync(path.join(out, manifest.sources.nppes.path))).toString('utf8')).toBe(nppesCsv());
    expect(existsSync(path.join(out, 'nppes', 'NPPES_Data_Dissemination_November_2026_V2.zip'))).toBe(false);
    // HUD's JSON records became a CSV the zip_county layout reads.
    expect(readFileSync(path.join(out, manifest.sources.zip_county.path), 'utf8').split('\n')[0]).toBe(
      'zip,geoid,res_ratio,bus_ratio,oth_ratio,tot_ratio,city,state',
    );

    // Every file named carries its SHA-256, the bundled stand-in too; secrets are never written down.
    for (const [key, spec] of Object.entries<any>(manifest.sources)) {
      const file = path.resolve(out, spec.path);
      expect(spec.sha256, key).toBe(createHash('sha256').update(readFileSync(file)).digest('hex'));
    }
    expect(manifest.sources.zip_zcta).toMatchObject({ stands_in_for: 'zip_zcta', path: '../public/zip_zcta.csv' });
    const fetched = readFileSync(path.join(out, 'fetched.json'), 'utf8');
    for (const text of [fetched, JSON.stringify(manifest)]) {
      expect(text).not.toContain(SECRETS.CENSUS_API_KEY);
      expect(text).not.toContain(SECRETS.HUD_API_TOKEN);
    }
    expect(JSON.parse(fetched).sources.acs_profile.url).toContain(`key=${VAR('CENSUS_API_KEY')}`);

    // The build reads the manifest as written.
    expect(loadManifest(summary.manifest, new Set(LAYOUTS.keys())).sources).toHaveLength(Object.keys(manifest.sources).length);
    const built = await build({ manifest: summary.manifest, out: path.join(out, 'hcas.sqlite'), allowPartialProviders: true });
    expect(built.zips).toBe(3);
    expect(built.providers).toBe(12);
  });

  it('a re-run downloads nothing when every file is complete', async () => {
    const { run, server, lines } = await mirror();
    await run();
    const before = server.requests.length;
    lines.length = 0;
    await run();
    const again = server.requests.slice(before).map((r) => r.path);
    // Only the listing pages and catalogue entries are read again, to learn the current addresses.
    expect(again.sort()).toEqual([PATHS.dacEntry, PATHS.hospitalsEntry, PATHS.nppesListing, PATHS.nuccListing].sort());
    expect(lines.filter((line) => /up to date/.test(line))).toHaveLength(11);
  });

  it('a connection dropped mid-file resumes with Range and gives an identical file', async () => {
    const zip = nppesZip();
    const third = Math.floor(zip.length / 3);
    const { run, server, out } = await mirror({ routes: () => ({ [PATHS.nppes]: { body: zip, dropAfter: third, drops: 2 } }) });
    const summary = await run({ only: ['nppes', 'gazetteer'] });
    const hits = server.hits(PATHS.nppes);
    // Each retry asks for the rest from what reached the disk (at most what was sent before the cut).
    const starts = hits.map((h) => Number(/^bytes=(\d+)-$/.exec(h.range ?? '')?.[1] ?? 0));
    expect(hits[0].range).toBeNull();
    expect(starts).toHaveLength(3);
    // A retry asks from 0 when nothing had reached the disk before the cut (once, under CI's load, the first).
    expect(starts[1]).toBeLessThanOrEqual(third);
    expect(starts[2]).toBeGreaterThan(0);
    expect(starts[2]).toBeGreaterThanOrEqual(starts[1]);
    expect(starts[2]).toBeLessThanOrEqual(starts[1] + third);
    // If-Range names the file version, so a file changed upstream would start over rather than be spliced.
    const resumed = hits.slice(1).filter((h) => h.range !== null);
    expect(resumed.length).toBeGreaterThan(0);
    for (const hit of resumed) expect(hit.ifRange).toMatch(/^"/);
    const record = JSON.parse(readFileSync(path.join(out, 'fetched.json'), 'utf8')).sources.nppes;
    expect(record.download.sha256).toBe(createHash('sha256').update(zip).digest('hex'));
    expect(gunzipSync(readFileSync(path.join(out, record.file.path))).toString('utf8')).toBe(nppesCsv());
    expect(summary.fetched).toEqual(['gazetteer', 'nppes']);
  });

  it('a stalled connection times out and resumes; a server that cannot resume starts over', async () => {
    const zip = nppesZip();
    const { run, server } = await mirror({
      routes: (_, routes) => ({
        [PATHS.nppes]: { body: zip, stallAfter: 1000, stalls: 1 },
        [PATHS.gazetteer]: { ...routes[PATHS.gazetteer], dropAfter: 50, noRanges: true },
      }),
    });
    await run({ only: ['nppes', 'gazetteer'], http: { ...FAST, idleTimeoutMs: 300 } });
    const [first, resumed] = server.hits(PATHS.nppes).map((h) => h.range);
    expect(first).toBeNull();
    expect(Number(/^bytes=(\d+)-$/.exec(resumed ?? '')?.[1])).toBeGreaterThan(0);
    expect(server.hits(PATHS.gazetteer)).toHaveLength(2);
  });

  it('a connection that keeps dropping fails after the bounded retries, keeping the partial file', async () => {
    const zip = nppesZip();
    const { run, out } = await mirror({ routes: () => ({ [PATHS.nppes]: { body: zip, dropAfter: 100, drops: 99 } }) });
    const error = await run({ only: ['nppes'] }).catch((e) => e);
    expect(error.name).toBe('BuildError');
    expect(error.message).toMatch(
      /source "nppes": http:\/\/127\.0\.0\.1:\d+\/download\.cms\.gov\/nppes\/NPPES_Data_Dissemination_November_2026_V2\.zip the connection (broke|closed) after .* \(after 4 attempts\)\..*Run hcas fetch again: it resumes/s,
    );
    expect(existsSync(path.join(out, 'nppes', 'NPPES_Data_Dissemination_November_2026_V2.zip.part'))).toBe(true);
    expect(existsSync(path.join(out, 'manifest.json'))).toBe(false);
  });

  it('a 404 names the source, the address and where to find the file', async () => {
    const { run, out } = await mirror({ routes: () => ({ [PATHS.hrsa]: { status: 404, body: 'Not Found' } }) });
    const error = await run().catch((e) => e);
    expect(error.name).toBe('BuildError');
    expect(error.message).toMatch(/1 of 24 sources failed, so .*manifest\.json was not written/);
    expect(error.message).toMatch(
      /source "hrsa_sites": http:\/\/127\.0\.0\.1:\d+\/data\.hrsa\.gov\/DataDownload\/DD_Files\/Health_Center_Service_Delivery_and_LookAlike_Sites\.csv answered 404 Not Found\..*find it on .*data\.hrsa\.gov\/data\/download and update sources\.hrsa_sites\.url in .*sources\.json/s,
    );
    expect(existsSync(path.join(out, 'manifest.json'))).toBe(false);
    // The other sources were fetched: a second run after the fix downloads only the one that failed.
    expect(JSON.parse(readFileSync(path.join(out, 'fetched.json'), 'utf8')).sources.nppes.file).not.toBeNull();
  });

  it('a changed layout (a required column renamed) names the column, the file and the key to set', async () => {
    const { run } = await mirror({ hospitals: hospitalsCsv({ from: 'Hospital Type', to: 'Hospital Category' }) });
    const error = await run({ only: ['cms_hospitals'] }).catch((e) => e);
    expect(error.message).toMatch(
      /source "cms_hospitals": \S+Hospital_General_Information\.csv has no column "Hospital Type" for field "type" of layout cms_hospitals: the publisher changed the file's layout\. To fix it, find the column that now holds it and set sources\.cms_hospitals\.columns\.type in \S+sources\.json/,
    );
    expect(error.message).toContain('Hospital Category');
  });

  it('a column the source list expects (NPPES taxonomy) and an archive whose members changed are clear errors', async () => {
    const withoutTaxonomy = nppesCsv().replace('"Healthcare Provider Taxonomy Code_1"', '"Taxonomy_1"');
    const renamed = zipArchive([{ name: 'npidata_pfile_20050523-20261109.csv', data: withoutTaxonomy }]);
    const { run } = await mirror({ routes: () => ({ [PATHS.nppes]: { body: renamed } }) });
    expect((await run({ only: ['nppes'] }).catch((e) => e)).message).toMatch(
      /has no column "Healthcare Provider Taxonomy Code_1" \(listed in sources\.nppes\.expect_columns\)/,
    );

    const other = await mirror({
      routes: () => ({ [PATHS.nppes]: { body: zipArchive([{ name: 'providers_2026.csv', data: nppesCsv() }]) } }),
    });
    expect((await other.run({ only: ['nppes'] }).catch((e) => e)).message).toMatch(
      /source "nppes": in NPPES_Data_Dissemination_November_2026_V2\.zip, no member matches .*its members: providers_2026\.csv\. .*update unpack\.zip_member/,
    );
  });

  it('a listing without the file, and an HTML page instead of data, are clear errors', async () => {
    const { run } = await mirror({
      routes: () => ({ [PATHS.nppesListing]: { body: '<a href="./NPPES_Data_Dissemination_November_2026.zip">V1</a>' } }),
    });
    expect((await run({ only: ['nppes'] }).catch((e) => e)).message).toMatch(
      /source "nppes": no link on \S+NPI_Files\.html matches .*update sources\.nppes\.discover\.pattern/,
    );

    const wrongKey = await mirror();
    const error = await wrongKey.run({ only: ['acs_profile'], env: { ...SECRETS, CENSUS_API_KEY: 'not-the-key' } }).catch((e) => e);
    expect(error.message).toMatch(
      /source "acs_profile": .*answered with an HTML page \(text\/html;charset=utf-8\), not the data file; check CENSUS_API_KEY \(a free key from https:\/\/api\.census\.gov.*The server said: ".*Missing Key/,
    );
    expect(error.message).not.toContain('not-the-key');
  });

  it('Census variables whose numbers moved to another measure fail before the download', async () => {
    const { run, server, sourcesFile } = await mirror();
    const labels = JSON.parse(readFileSync(sourcesFile, 'utf8')).sources.acs_profile.check_labels.labels;
    server.routes[PATHS.acsVariables] = { body: censusVariables(labels, { DP05_0024PE: '18 years and over!!Female' }) };
    const error = await run({ only: ['acs_profile'] }).catch((e) => e);
    expect(error.message).toMatch(
      /source "acs_profile": the variables of this vintage are not the ones the source list expects: DP05_0024PE is "[^"]*18 years and over!!Female", not "65 years and over"/,
    );
    expect(server.hits(PATHS.acs)).toHaveLength(0);
  });

  it('without a key or token the bundled extract stands in, and a file the user saved by hand is used', async () => {
    const { run, out, dir } = await mirror();
    writeFileSync(path.join(dir, 'public', 'zip_county.csv'), 'ZIP,COUNTY,RES_RATIO,BUS_RATIO,OTH_RATIO,TOT_RATIO\n10001,36061,1,1,1,1\n');
    mkdirSync(path.join(out, 'county_cbsa'), { recursive: true });
    writeFileSync(
      path.join(out, 'county_cbsa', 'county_cbsa.csv'),
      'county_fips,cbsa_code,cbsa_title,cbsa_type\n36061,35620,"New York-Newark-Jersey City, NY-NJ",Metropolitan Statistical Area\n',
    );
    const summary = await run({ only: ['gazetteer', 'nppes'], env: {} });
    expect(summary.fallbacks).toMatchObject({ zip_county: ['zip_county'], zip_zcta: ['zip_zcta'] });
    expect(summary.notIncluded.acs_profile).toMatch(
      /CENSUS_API_KEY is not set \(a free key from https:\/\/api\.census\.gov\/data\/key_signup\.html\); set it and run hcas fetch again/,
    );
    expect(summary.notIncluded.doctors_clinicians).toBe('not downloaded yet: run hcas fetch --only doctors_clinicians');
    const manifest = JSON.parse(readFileSync(summary.manifest, 'utf8'));
    expect(manifest.sources.zip_county).toMatchObject({
      stands_in_for: 'zip_county',
      why: expect.stringMatching(/HUD_API_TOKEN is not set/),
    });
    expect(manifest.sources.county_cbsa).toMatchObject({
      path: 'county_cbsa/county_cbsa.csv',
      retrieved_from: expect.stringMatching(/^supplied by hand/),
    });
    expect(manifest.not_included).toEqual(summary.notIncluded);
  });

  it('a published checksum that does not match deletes the file and says what to do', async () => {
    const { run, sourcesFile, out } = await mirror();
    const list = JSON.parse(readFileSync(sourcesFile, 'utf8'));
    list.sources.hrsa_sites.sha256 = '0'.repeat(64);
    writeFileSync(sourcesFile, JSON.stringify(list));
    const error = await run({ only: ['hrsa_sites'] }).catch((e) => e);
    expect(error.message).toMatch(
      /source "hrsa_sites": \S+ gave a file whose SHA-256 is [0-9a-f]{64}, not the published 0{64}\. The file was deleted/,
    );
    expect(existsSync(path.join(out, 'hrsa_sites', 'Health_Center_Service_Delivery_and_LookAlike_Sites.csv'))).toBe(false);
  });

  it('an address nothing answers at fails at once, without retries, naming the connection and proxy', async () => {
    const { run, sourcesFile } = await mirror();
    const list = JSON.parse(readFileSync(sourcesFile, 'utf8'));
    list.sources.hrsa_sites.url = 'http://127.0.0.1:1/sites.csv';
    writeFileSync(sourcesFile, JSON.stringify(list));
    const error = await run({ only: ['hrsa_sites'] }).catch((e) => e);
    expect(error.message).toMatch(
      /source "hrsa_sites": http:\/\/127\.0\.0\.1:1\/sites\.csv could not be reached \(ECONNREFUSED\): check the address, your connection and any proxy/,
    );
    expect(error.message).not.toMatch(/attempts/);
  });

  it('redirects are bounded', async () => {
    const { run } = await mirror({ routes: () => ({ [PATHS.hrsa]: { redirect: PATHS.hrsa } }) });
    expect((await run({ only: ['hrsa_sites'] }).catch((e) => e)).message).toMatch(/source "hrsa_sites": \S+ redirected more than 5 times/);
  });
});

describe('hcas fetch on the command line', () => {
  /** Runs `hcas ARGS` (in this process) with the environment added. */
  const hcas = (args: string[], env: NodeJS.ProcessEnv) => runHcas(args, { env });

  it('prints the summary and the next command; a failure is one line naming the fix, exit 3, no stack', async () => {
    const { sourcesFile, out } = await mirror();
    const ok = await hcas(['fetch', '--sources', sourcesFile, '--out', out, '--only', 'hrsa_sites,nucc', '--quiet'], SECRETS);
    expect(ok.stderr).toBe('');
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(
      /^wrote \S+manifest\.json: 2 official files, 1 bundled extracts standing in, 21 left out \(.*\) in [\d.]+ s; next: hcas build --manifest \S+manifest\.json --out dist-api\/national\.sqlite\n$/,
    );

    server!.routes[PATHS.nuccListing] = { status: 404, body: 'gone' };
    const failed = await hcas(['fetch', '--sources', sourcesFile, '--out', out, '--only', 'nucc'], SECRETS);
    expect(failed.code).toBe(3);
    expect(failed.stderr).toMatch(/^hcas: 1 of 24 sources failed.*\n {2}source "nucc": \S+csv-mainmenu-57 answered 404 Not Found\./s);
    expect(failed.stderr).not.toMatch(/\n\s+at /);

    const unknown = await hcas(['fetch', '--sources', sourcesFile, '--out', out, '--only', 'npi'], SECRETS);
    expect(unknown.stderr).toMatch(/^hcas: --only: no source "npi" in \S+; its sources: gazetteer, acs_profile, /);
  });
});
