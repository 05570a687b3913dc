import { readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadManifest } from '../pipeline/config/manifest.ts';
import { EXPECTED_DENSITY, ESTIMATED_FROM } from '../pipeline/config/scoring.ts';
import { COUNTY_SUCCESSORS as BUILD_SUCCESSORS } from '../pipeline/geo/counties.ts';
import { assemblePlaces, type ZipPlace } from '../pipeline/geo/places.ts';
import { ingestAll } from '../pipeline/ingest/index.ts';
import type { Ingested, ProviderSink } from '../pipeline/ingest/ingested.ts';
import { Reconciler } from '../pipeline/ingest/reconcile.ts';
import { ingestSource } from '../pipeline/ingest/source.ts';
import { ZctaOfZip } from '../pipeline/ingest/zcta-of-zip.ts';
import { LAYOUTS } from '../pipeline/layouts/index.ts';
import type { ProviderRow } from '../pipeline/layouts/providers.ts';
import { categoriesOfCmsSpecialty } from '../pipeline/config/specialties.ts';
import { CountyZips } from '../pipeline/supply/county-zips.ts';
import { placeCounts, type PlacedCounts } from '../pipeline/supply/index.ts';
import { CLINICIAN_GROUPS, densityMix, groupCounts, type ClinicianGroup } from '../producers/sample/density-mix.ts';
import { loadGeography } from '../producers/sample/geography.ts';
import { COUNTY_SUCCESSORS } from '../producers/sample/real-counties.ts';
import { loadRealCounts, type RealCounts } from '../producers/sample/real-counts.ts';
import { loadRealWorld } from '../producers/sample/real-world.ts';
import { NPPES_PATH } from '../producers/sample/providers.ts';
import { DECLARATION_PATH } from '../producers/sample/real-sample.ts';
import { cachedQuickStart } from './helpers/quick-start.ts';

const PUBLIC = path.resolve(import.meta.dirname, '../raw/manifests/public.json');
const layouts = new Set(LAYOUTS.keys());

/** The build's own reading of the bundle's counties and clinician counts (pipeline/geo, pipeline/supply). */
interface BuildView {
  places: ZipPlace[];
  zipIndex: Map<string, number>;
  zctaOf: ZctaOfZip;
  countyZips: CountyZips;
  counted: PlacedCounts;
  data: Ingested;
  /** The OB/GYN roster's clinicians per county the build adds their ZIP up to. */
  roster: Map<string, number>;
  population: number;
}

async function buildView(): Promise<BuildView> {
  const manifest = loadManifest(PUBLIC, layouts);
  const read = new Set(['gazetteer_zcta', 'acs_zcta', 'zip_zcta', 'zip_city', 'zip_county', 'zcta_county', 'zip_residents_point']);
  read.add('tract_population_centre').add('clinician_counts').add('doctors_clinicians');
  manifest.sources = manifest.sources.filter((s) => read.has(s.layout));
  const rosterZctas: string[] = [];
  const sink: ProviderSink = {
    addProvider() {},
    addClinician: (row, _line, zcta) => void (zcta && categoriesOfCmsSpecialty(row.specialty).includes('obgyn') && rosterZctas.push(zcta)),
  };
  const data = await ingestAll(manifest, sink, new Reconciler(null), () => {});
  const { places } = assemblePlaces(data);
  const zipIndex = new Map(places.map((p, i) => [p.zip, i]));
  const zctaOfZip = (zip: string) => data.zipToZcta.get(zip)?.zcta ?? (zipIndex.has(zip) ? zip : null);
  const roster = new Map<string, number>();
  for (const zcta of rosterZctas) {
    const county = places[zipIndex.get(zcta) ?? -1]?.countyFips;
    if (county) roster.set(county, (roster.get(county) ?? 0) + 1);
  }
  return {
    places,
    zipIndex,
    zctaOf: new ZctaOfZip(data.zipToZcta, data.zctas),
    countyZips: new CountyZips(places, data),
    counted: placeCounts({ places, zipIndex, zctaOfZip, data }),
    data,
    roster,
    population: places.reduce((sum, p) => sum + Math.max(0, p.population ?? 0), 0),
  };
}

/**
 * What a build's county should hold of a group, in real units, by the build's own reading: the count of each
 * county that adds up to it (a county that is no ZIP's home adds up to the home county of the ZIP holding most
 * of its residents), the estimate from the total it follows (psychiatrists at most the mental health providers),
 * or the roster. Counties no file counts are left out: the sample puts the national density there.
 */
function expectedByCounty(view: BuildView, group: ClinicianGroup): Map<string, number> {
  const homes = new Set(view.places.map((p) => p.countyFips));
  const addsUpTo = (county: string) => {
    if (homes.has(county)) return county;
    const most = [...view.countyZips.zipsOf(county)].sort((a, b) => b.residents - a.residents)[0];
    return most ? view.places[most.zipIndex].countyFips! : county;
  };
  const counts = (kind: string) => new Map([...(view.counted.kinds.get(kind)?.used ?? [])].map(([county, c]) => [county, c.amount]));
  const { follows } = group;
  let byCounty: Map<string, number>;
  if ('count' in follows) byCounty = counts(follows.count);
  else if (follows.estimate === 'obgyn') return view.roster;
  else {
    const parent = view.counted.kinds.get(ESTIMATED_FROM[follows.estimate]!)!;
    const placed = parent.perZip.reduce((a, b) => a + b, 0);
    const national = (EXPECTED_DENSITY[follows.estimate] * view.population) / 100_000;
    byCounty = new Map([...parent.used].map(([county, c]) => [county, (national * c.amount) / placed]));
    if (follows.estimate === 'psychiatry') {
      const mental = counts('mental_health_providers');
      for (const [county, n] of byCounty) byCounty.set(county, Math.min(n, mental.get(county) ?? 0));
    }
  }
  const merged = new Map<string, number>();
  for (const [county, n] of byCounty) merged.set(addsUpTo(county), (merged.get(addsUpTo(county)) ?? 0) + n);
  return merged;
}

describe('the default sample follows the real counts (hcas sample over raw/public)', () => {
  let view: BuildView;
  let real: RealCounts;
  let zctaCodes: string[];

  beforeAll(async () => {
    view = await buildView();
    const geo = loadGeography();
    const world = await loadRealWorld(PUBLIC, geo);
    zctaCodes = geo.zctas.map((z) => z.code);
    real = await loadRealCounts(
      world.files,
      geo,
      world.demographics.map((d) => d.population),
    );
  }, 900_000);

  it("reads the counties as the build does: each ZCTA's home county, each county's residents, renamed counties", () => {
    expect(COUNTY_SUCCESSORS).toEqual(BUILD_SUCCESSORS);
    expect(zctaCodes).toEqual(view.places.map((p) => p.zip));
    const homes = zctaCodes.map((_, i) => real.counties.home[i]);
    expect(homes).toEqual(view.places.map((p) => p.countyFips));
    const counties = [...real.counties.counties()].sort();
    expect(counties.length).toBeGreaterThan(3000);
    for (const county of counties) {
      expect(real.counties.residentsOf(county), county).toBeCloseTo(view.countyZips.residentsOf(county), 3);
      expect(real.counties.current(county)).toEqual(view.countyZips.currentCounties(county));
    }
    for (const [old, next] of Object.entries(COUNTY_SUCCESSORS))
      for (const code of [old, ...next]) expect(real.counties.current(code), code).toEqual(view.countyZips.currentCounties(code));
  });

  it("reads every count file's counts per county as the build chooses them (Connecticut's regions spread, the latest year winning)", () => {
    expect([...real.counts.keys()].sort()).toEqual([...view.counted.kinds.keys()].sort());
    for (const [kind, placed] of view.counted.kinds) {
      const mine = real.counts.get(kind)!;
      expect([...mine.keys()].sort(), kind).toEqual([...placed.used.keys()].sort());
      for (const [county, count] of placed.used) expect(mine.get(county), `${kind} ${county}`).toBeCloseTo(count.amount, 6);
    }
    // Connecticut's mental health providers come from its planning regions, spread over its eight counties.
    expect(real.counts.get('mental_health_providers')!.get('09003')).toBeGreaterThan(1000);
  });

  it('writes, in every county, each kind of clinician within one of its real count times the sample fraction (the default build, as a researcher reads it)', async () => {
    const { sampleDir } = await cachedQuickStart();
    const declared = JSON.parse(readFileSync(path.join(sampleDir, DECLARATION_PATH), 'utf8')) as { sample_fraction: number };
    const drawn = await sampleByCounty(path.join(sampleDir, NPPES_PATH), view);
    // Codes no file counts (women's health nurse practitioners, among obstetrics and gynaecology) follow no count.
    const national = new Set(
      densityMix()
        .filter((k) => k.share > 0)
        .map((k) => k.taxonomy),
    );
    let checked = 0;
    for (const group of CLINICIAN_GROUPS) {
      const name = JSON.stringify(group.follows);
      const expected = expectedByCounty(view, group);
      expect(expected.size, name).toBeGreaterThan(1000);
      for (const [county, n] of expected) {
        const has = drawn.get(county)?.filter((code) => groupCounts(group.follows, code) && !national.has(code)).length ?? 0;
        expect(
          Math.abs(has - n * declared.sample_fraction),
          `${name} in ${county}: ${has} drawn for ${n} x ${declared.sample_fraction}`,
        ).toBeLessThan(1);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(20 * 3000);
  }, 900_000);
});

/** The synthetic clinicians of an NPPES file, read as the build reads it, by the county the build adds their ZIP up to: their primary codes. */
async function sampleByCounty(file: string, view: BuildView): Promise<Map<string, string[]>> {
  const byCounty = new Map<string, string[]>();
  const spec = { key: 'nppes', layout: 'nppes', path: file, vintage: '', required: true, columns: {}, options: {} };
  await ingestSource<ProviderRow>(
    spec,
    LAYOUTS.get('nppes') as never,
    (row) => {
      const zcta = view.zctaOf.of(row.zip);
      const county = zcta === null ? undefined : view.places[view.zipIndex.get(zcta) ?? -1]?.countyFips;
      if (!county || !row.taxonomy) return;
      const codes = byCounty.get(county) ?? [];
      codes.push(row.taxonomy);
      byCounty.set(county, codes);
    },
    new Reconciler(null),
  );
  return byCounty;
}
