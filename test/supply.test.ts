import { describe, expect, it } from 'vitest';
import { CATEGORY_NAMES, type Category } from '../pipeline/config/specialties.ts';
import { EXPECTED_DENSITY, HEALTH_CENTER_CLINICIANS, NP_PA_PRIMARY_CARE_WEIGHT } from '../pipeline/config/scoring.ts';
import type { ZipPlace } from '../pipeline/geo/places.ts';
import { emptyIngested, type CountSource } from '../pipeline/ingest/ingested.ts';
import type { ClinicianCountRow } from '../pipeline/layouts/clinician-counts.ts';
import type { ZipCountyRow } from '../pipeline/layouts/crosswalks.ts';
import { CLINICIAN_BASES, clinicianSupply, placeCounts, type PlacedCounts } from '../pipeline/supply/index.ts';

/**
 * The clinician supply on a small world made here: two states, four counties, eight ZIPs. Each test states the
 * counts and checks where every clinician went.
 */

const PLACES: Array<[zip: string, county: string, population: number, longitude: number, latitude: number]> = [
  ['10001', '36061', 10_000, -74.0, 40.75], // county A: two ZIPs, 10 miles apart
  ['10002', '36061', 30_000, -74.0, 40.9],
  ['12001', '36001', 20_000, -73.8, 42.6], // county B: one ZIP
  ['46001', '46113', 5_000, -102.5, 43.3], // Shannon SD under its old code (as HUD's 2020 crosswalk writes it)
  ['46002', '46113', 1_000, -102.3, 43.1],
  ['06001', '09001', 40_000, -73.4, 41.2], // Connecticut's old counties (the crosswalks), no region codes
  ['06002', '09003', 60_000, -72.7, 41.8],
  ['06003', '09003', 0, -72.6, 41.9], // no residents
];

function world(): { places: ZipPlace[]; data: Parameters<typeof placeCounts>[0]['data'] } {
  const places = PLACES.map(([zip, county, population, longitude, latitude]) => ({
    zip,
    state: county.startsWith('36') ? 'NY' : county.startsWith('46') ? 'SD' : 'CT',
    stateName: '',
    city: zip,
    countyFips: county,
    cbsaCode: null,
    urbanRuralCode: null,
    latitude,
    longitude,
    pointSource: 'hud_residential' as const,
    gazetteerLatitude: latitude,
    gazetteerLongitude: longitude,
    landSqMi: 10,
    population,
  }));
  const data = emptyIngested();
  for (const [zip, county] of PLACES)
    data.zipCounties.set(zip, [{ zip, countyFips: county, residentialRatio: 1, totalRatio: 1 } as ZipCountyRow]);
  // A tract in each of county A's ZIPs (2020 codes), and one in Shannon County under its new code.
  data.tractCentres.push(
    { tract: '36061000100', population: 9_000, latitude: 40.75, longitude: -74.0 },
    { tract: '36061000200', population: 31_000, latitude: 40.9, longitude: -74.0 },
    { tract: '46102940500', population: 900, latitude: 43.1, longitude: -102.3 },
  );
  return { places, data };
}

let line = 1;
function source(
  key: string,
  year: number,
  area: 'county' | 'tract' | 'zip',
  rows: Array<[code: string, counts: Record<string, number>]>,
): CountSource {
  const kinds = [...new Set(rows.flatMap(([, counts]) => Object.keys(counts)))];
  return {
    key,
    vintage: String(year),
    kinds,
    area,
    year,
    rows: rows.map(([code, counts]) => {
      const rowArea: ClinicianCountRow['area'] = code === '00' ? 'nation' : code.length === 2 ? 'state' : area;
      return { area: rowArea, code, counts, population: null, origin: { key, line: ++line } };
    }),
  };
}

function place(sources: CountSource[]): { placed: PlacedCounts; places: ZipPlace[] } {
  const { places, data } = world();
  data.clinicianCounts.push(...sources);
  const zipIndex = new Map(places.map((p, i) => [p.zip, i]));
  return { placed: placeCounts({ places, zipIndex, zctaOfZip: (zip) => (zipIndex.has(zip) ? zip : null), data }), places };
}

const perZip = (placed: PlacedCounts, kind: string) => [...placed.kinds.get(kind)!.perZip].map((n) => Math.round(n * 1000) / 1000);

describe('placing clinician counts', () => {
  it('a county count goes to its ZIPs by residents, and nothing is lost or made', () => {
    const { placed } = place([
      source('dentists', 2023, 'county', [
        ['36061', { dentists: 8 }],
        ['36001', { dentists: 3 }],
      ]),
    ]);
    expect(perZip(placed, 'dentists')).toEqual([2, 6, 3, 0, 0, 0, 0, 0]);
    expect(placed.kinds.get('dentists')!.placedBy).toEqual({ own_pattern: 0, older_pattern: 0, like_pattern: 0, residents: 11 });
  });

  it('the most recent count wins a county, the earlier manifest source between equal years; an older tract file lends its pattern', () => {
    const { placed } = place([
      source('new', 2022, 'county', [['36061', { primary_care_physicians: 100 }]]),
      source('tracts', 2010, 'tract', [
        ['36061000100', { primary_care_physicians: 30 }],
        ['36061000200', { primary_care_physicians: 10 }],
        ['36001000300', { primary_care_physicians: 4 }],
      ]),
      source('same-year', 2022, 'county', [['36061', { primary_care_physicians: 999 }]]),
    ]);
    const pcp = placed.kinds.get('primary_care_physicians')!;
    expect(pcp.used.get('36061')).toMatchObject({ source: 'new', amount: 100 });
    // The 2022 total in the 2010 pattern: three quarters in the first tract's ZIP.
    expect(perZip(placed, 'primary_care_physicians').slice(0, 3)).toEqual([75, 25, 4]);
    // County B has no newer count: the 2010 count stands, its tract (not among the 2020 centres) by residents.
    expect(pcp.used.get('36001')).toMatchObject({ source: 'tracts', amount: 4 });
    expect(pcp.placedBy).toEqual({ own_pattern: 0, older_pattern: 100, like_pattern: 0, residents: 4 });
  });

  it('codes of renamed counties find the crosswalks under either code; a tract file of 2010 finds its 2020 tract', () => {
    const { placed } = place([
      source('chr', 2024, 'county', [['46102', { cardiology: 6 }]]),
      source('tracts', 2010, 'tract', [['46113940500', { primary_care_physicians: 2 }]]),
    ]);
    expect(perZip(placed, 'cardiology').slice(3, 5)).toEqual([5, 1]);
    expect(perZip(placed, 'primary_care_physicians').slice(3, 5)).toEqual([0, 2]);
  });

  it("a state total under codes no crosswalk names (Connecticut's planning regions) goes to the state's uncounted counties by residents", () => {
    const { placed } = place([
      source('v062', 2024, 'county', [
        ['00', { mental_health_providers: 1_000 }],
        ['09', { mental_health_providers: 100 }],
        ['09110', { mental_health_providers: 60 }],
        ['09120', { mental_health_providers: 40 }],
        ['36061', { mental_health_providers: 900 }],
      ]),
    ]);
    expect(perZip(placed, 'mental_health_providers').slice(5)).toEqual([40, 60, 0]);
    const [check] = placed.checks;
    expect(check).toMatchObject({ source: 'v062', kind: 'mental_health_providers', areas: 1_000, nation: 1_000, statesDiffering: [] });
    expect(check.pooled).toEqual([{ state: '09', codes: ['09110', '09120'], amount: 100 }]);
  });

  it('reports a file whose areas disagree with its own national or state row, and withdraws a ZIP row no county holds, with its line', () => {
    const files = [
      source('short', 2022, 'county', [
        ['00', { dentists: 500 }],
        ['36', { dentists: 20 }],
        ['36061', { dentists: 8 }],
      ]),
      source('zips', 2023, 'zip', [
        ['10002', { cardiology: 3 }],
        ['99999', { cardiology: 1 }],
      ]),
    ];
    const { placed } = place(files);
    expect(placed.checks[0]).toMatchObject({ areas: 8, nation: 500, statesDiffering: [{ state: '36', row: 20, areas: 8 }] });
    expect(placed.withdrawn).toEqual([
      { key: 'zips', line: files[1].rows[1].origin.line, reason: 'ZIP 99999 is in no county the crosswalks of the build name' },
    ]);
    expect(perZip(placed, 'cardiology')).toEqual([0, 3, 0, 0, 0, 0, 0, 0]);
  });

  it('a kind without tracts of its own follows the tracts of the kind it is placed like (PLACED_LIKE), else residents', () => {
    const { placed } = place([
      source('np', 2024, 'county', [
        ['36061', { primary_care_np_pa: 40 }],
        ['36001', { primary_care_np_pa: 5 }],
      ]),
      source('tracts', 2010, 'tract', [
        ['36061000100', { primary_care_physicians: 1 }],
        ['36061000200', { primary_care_physicians: 3 }],
      ]),
    ]);
    expect(perZip(placed, 'primary_care_np_pa').slice(0, 3)).toEqual([10, 30, 5]);
    expect(placed.kinds.get('primary_care_np_pa')!.placedBy).toEqual({ own_pattern: 0, older_pattern: 0, like_pattern: 40, residents: 5 });
  });
});

/** A roster of `share` of each category's expected national density, spread by residents. */
function roster(places: ZipPlace[], share: number): Record<Category, Float64Array> {
  const residents = places.reduce((sum, p) => sum + p.population!, 0);
  return Object.fromEntries(
    CATEGORY_NAMES.map((c) => [
      c,
      Float64Array.from(places, (p) => ((share * EXPECTED_DENSITY[c] * residents) / 100_000) * (p.population! / residents)),
    ]),
  ) as Record<Category, Float64Array>;
}

const basisOf = (codes: Uint8Array) => [...new Set([...codes].map((b) => CLINICIAN_BASES[b]))];

describe('choosing each category its source', () => {
  const counts = () =>
    place([
      source('chr', 2022, 'county', [
        ['36061', { primary_care_physicians: 40, primary_care_np_pa: 40, dentists: 30, mental_health_providers: 100 }],
        ['36001', { primary_care_physicians: 15, primary_care_np_pa: 8, dentists: 10, mental_health_providers: 60 }],
        ['46113', { primary_care_physicians: 1, primary_care_np_pa: 4, dentists: 0, mental_health_providers: 3 }],
        ['09001', { primary_care_physicians: 50, primary_care_np_pa: 30, dentists: 35, mental_health_providers: 150 }],
        ['09003', { primary_care_physicians: 70, primary_care_np_pa: 50, dentists: 40, mental_health_providers: 200 }],
      ]),
      source('tracts', 2010, 'tract', [
        ['36061000100', { specialist_physicians: 60 }],
        ['36061000200', { specialist_physicians: 20 }],
      ]),
    ]);
  const policy = { sampleFraction: 1, onPartialCoverage: 'refuse' as const };

  it('a partial roster never replaces a count: counts where given, estimates from their totals, none where nothing counts', () => {
    const { placed, places } = counts();
    const inputs = clinicianSupply({ places, placed, roster: roster(places, 0.03), policy, healthCenterZips: [2], manifestFile: 'm.json' });
    expect(inputs.status).toBe('measured');
    expect(inputs.categories.primary_care).toMatchObject({ basis: 'count' });
    expect(basisOf(inputs.basis.primary_care)).toEqual(['count']);
    // Physicians count one each, NPs and PAs NP_PA_PRIMARY_CARE_WEIGHT; no health centre is added to a count.
    expect(inputs.supply!.primary_care[2]).toBeCloseTo(15 + 8 * NP_PA_PRIMARY_CARE_WEIGHT, 9);
    // Only county A's specialists are counted: its ZIPs have an estimate, the rest none (most residents: the main basis).
    expect(inputs.categories.cardiology).toMatchObject({ basis: 'none', estimatedFrom: 'specialist_physicians' });
    // The estimate puts the category's national count where the total's clinicians are (three quarters in ZIP 0).
    const residents = places.reduce((sum, p) => sum + p.population!, 0);
    expect(inputs.supply!.cardiology[0]).toBeCloseTo((0.75 * EXPECTED_DENSITY.cardiology * residents) / 100_000, 6);
    expect(basisOf(inputs.basis.cardiology)).toEqual(['estimate', 'none']);
    expect(inputs.categories.dietetics).toMatchObject({ basis: 'none', sources: [] });
    expect(inputs.note).toMatch(/No source counts dietetics: left out of the scores that weigh them\.$/);
  });

  it('a complete roster wins every category it covers, and health centre sites add to its primary care', () => {
    const { placed, places } = counts();
    const full = roster(places, 1);
    const inputs = clinicianSupply({ places, placed, roster: full, policy, healthCenterZips: [2], manifestFile: 'm.json' });
    for (const category of CATEGORY_NAMES) expect(basisOf(inputs.basis[category]), category).toEqual(['roster']);
    expect(inputs.supply!.primary_care[2]).toBeCloseTo(full.primary_care[2] + HEALTH_CENTER_CLINICIANS, 9);
    const sampled = clinicianSupply({
      places,
      placed,
      roster: roster(places, 0.1),
      policy: { ...policy, sampleFraction: 0.1 },
      healthCenterZips: [],
      manifestFile: 'm.json',
    });
    expect(sampled.status).toBe('sample');
    expect(sampled.supply!.dentistry[1]).toBeCloseTo(full.dentistry[1], 6);
  });

  it('without any source of primary care the build refuses, naming the fixes, or publishes no provider component where told to', () => {
    const { places, placed } = place([]);
    const args = { places, placed, roster: roster(places, 0.03), healthCenterZips: [], manifestFile: 'm.json' };
    expect(() => clinicianSupply({ ...args, policy })).toThrow(
      /^No source counts clinicians: .*\(the rosters count 3% of the primary care clinicians expected nationally .*add clinician count files \(layout clinician_counts/,
    );
    const dentistsOnly = place([source('v088', 2023, 'county', [['36061', { dentists: 8 }]])]).placed;
    expect(() => clinicianSupply({ ...args, placed: dentistsOnly, policy })).toThrow(
      /^No source counts primary care clinicians: the rosters count 3% of the primary care clinicians expected nationally .*, and no count file counts them\./,
    );
    const omitted = clinicianSupply({ ...args, policy: { ...policy, onPartialCoverage: 'omit_component' } });
    expect(omitted).toMatchObject({ supply: null, status: 'omitted' });
  });
});
