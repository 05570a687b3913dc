/**
 * The real world the synthetic providers are placed in: ACS populations, the hospital roster and health centre
 * sites and the ZIP crosswalk of a manifest's real files (the bundle in raw/public), read through the build's
 * own layouts and filed as the build files them (pipeline/ingest), hung on the sample's ZCTA geography (the
 * same 33,791 2020 ZCTAs as the Gazetteer).
 */
import KDBush from 'kdbush';
import { around } from 'geokdbush';
import type { Demographics } from './census-model.ts';
import type { Facilities, HealthCenterSite, Hospital } from './facilities.ts';
import type { CmsHospitalType } from './facility-names.ts';
import type { Geography, Zcta } from './geography.ts';
import { BuildError } from '../../pipeline/base/errors.ts';
import { buildRoster, type Facility } from '../../pipeline/facilities/roster.ts';
import { emptyIngested, rowFiling, type Ingested, type ProviderFiling } from '../../pipeline/ingest/ingested.ts';
import { staffedBeds } from '../../pipeline/facilities/hospitals.ts';
import { ingestSource } from '../../pipeline/ingest/source.ts';
import { Reconciler } from '../../pipeline/ingest/reconcile.ts';
import { ZctaOfZip } from '../../pipeline/ingest/zcta-of-zip.ts';
import { LAYOUT_ORDER, LAYOUTS } from '../../pipeline/layouts/index.ts';
import type { Layout } from '../../pipeline/layouts/types.ts';
import { loadManifest, type Manifest, type SourceSpec } from '../../pipeline/config/manifest.ts';
import { FACILITY_MATCH_MILES } from '../../pipeline/config/scoring.ts';

/** Real populations (as Demographics, of which placement reads only the population), facilities, and where practice ZIPs lead. */
export interface RealWorld {
  demographics: Demographics[];
  facilities: Facilities;
  population: number;
  /** Per ZCTA index, 1 where the build places a practice ZIP in it: its own code leads to it (the crosswalk sends 851 codes elsewhere). */
  reachable: Uint8Array;
  /** Per ZCTA code, the other ZIPs the build places in it, for practice addresses. */
  practiceZips: Map<string, string[]>;
  /** The manifest and the ZIP crosswalk, for reading its clinician files (real-counts.ts). */
  files: RealFiles;
}

/** The manifest read, and the ZIP crosswalk that places its ZIPs in ZCTAs as the build does. */
export interface RealFiles {
  manifest: Manifest;
  zipToZcta: Ingested['zipToZcta'];
  zctaOf: ZctaOfZip;
}

const FACILITY_LAYOUTS = ['cms_hospitals', 'hifld_hospitals', 'covidcaremap_hospitals', 'hrsa_sites'];
/** The roster's hospital types in HIFLD's TYPE vocabulary (VA hospitals are general acute care there, Defense's military). */
const HIFLD_TYPES: Record<string, string> = {
  'Acute Care Hospital': 'GENERAL ACUTE CARE',
  'Acute Care - Veterans Administration': 'GENERAL ACUTE CARE',
  'Acute Care - Department of Defense': 'MILITARY',
  'Critical Access Hospital': 'CRITICAL ACCESS',
  "Children's Hospital": 'CHILDREN',
  'Psychiatric Hospital': 'PSYCHIATRIC',
  'Long-Term Care Hospital': 'LONG TERM CARE',
  'Rehabilitation Hospital': 'REHABILITATION',
  'Military Hospital': 'MILITARY',
  "Women's Hospital": 'WOMEN',
  'Specialty Hospital': 'SPECIAL',
  'Chronic Disease Hospital': 'CHRONIC DISEASE',
};

/** The roster's hospital types CMS's Hospital General Information file lists, in its own words. */
const CMS_TYPES: Record<string, CmsHospitalType> = {
  'Acute Care Hospital': 'Acute Care Hospitals',
  'Critical Access Hospital': 'Critical Access Hospitals',
  "Children's Hospital": 'Childrens',
  'Psychiatric Hospital': 'Psychiatric',
  'Acute Care - Veterans Administration': 'Acute Care - Veterans Administration',
  'Acute Care - Department of Defense': 'Acute Care - Department of Defense',
};

/** Reads the populations, facilities and ZIP crosswalk of `manifestFile`; a manifest of synthetic providers is refused. */
export async function loadRealWorld(manifestFile: string, geo: Geography, root?: string): Promise<RealWorld> {
  const manifest = loadManifest(manifestFile, new Set(LAYOUTS.keys()), root);
  if (manifest.synthetic === true || (Array.isArray(manifest.synthetic) && manifest.synthetic.includes('providers')))
    throw new BuildError(
      `manifest ${manifestFile} names synthetic providers: hcas sample follows the real files (--manifest raw/manifests/public.json, the default)`,
    );
  const specs = manifest.sources.filter(
    (s) => (s.layout === 'acs_zcta' && 'population' in s.columns) || s.layout === 'zip_zcta' || FACILITY_LAYOUTS.includes(s.layout),
  );
  const data = await readFiled(specs.map(onlyPopulation), NO_PROVIDERS);
  const population = geo.zctas.map((z) => Math.max(0, Math.round(data.census.get(z.code)?.get('population')?.value ?? 0)));
  if (!population.some((n) => n > 0))
    throw new BuildError(`manifest ${manifestFile} maps no ACS "population" column: the synthetic providers are placed by population`);
  const zctaOf = new ZctaOfZip(data.zipToZcta, geo.byCode);
  return {
    demographics: population.map((n) => ({ population: n }) as Demographics),
    facilities: realFacilities(facilityRoster(data, geo, zctaOf), geo, (zip) => geo.byCode.get(zctaOf.of(zip ?? '') ?? '')),
    population: population.reduce((a, b) => a + b, 0),
    ...practiceZips(geo, data, zctaOf),
    files: { manifest, zipToZcta: data.zipToZcta, zctaOf },
  };
}

const NO_PROVIDERS: ProviderFiling = { providers: { addProvider() {}, addClinician() {} }, zctaOf: () => null, specialtyOf: () => '' };

/** Reads sources into an `Ingested` as the build files their rows (pipeline/ingest), in the build's reading order. */
export async function readFiled(specs: readonly SourceSpec[], filing: ProviderFiling, into: Ingested = emptyIngested()): Promise<Ingested> {
  const reconciler = new Reconciler(null);
  for (const spec of [...specs].sort((a, b) => LAYOUT_ORDER.indexOf(a.layout) - LAYOUT_ORDER.indexOf(b.layout))) {
    const { sink, extraFields } = rowFiling(spec, into, filing);
    await ingestSource(spec, LAYOUTS.get(spec.layout) as Layout<never>, sink, reconciler, extraFields);
  }
  return into;
}

/** An ACS source read for its population alone (the first source with a value wins, as in the build). */
function onlyPopulation(spec: SourceSpec): SourceSpec {
  if (spec.layout !== 'acs_zcta') return spec;
  const fields = LAYOUTS.get('acs_zcta')!.fields;
  return { ...spec, columns: Object.fromEntries(Object.entries(spec.columns).filter(([key]) => key === 'population' || key in fields)) };
}

/** The hospitals and health centre sites of the facility files, merged as the build merges them. */
function facilityRoster(data: Ingested, geo: Geography, zctaOfZip: ZctaOfZip): Facility[] {
  const zipPoint = (zip: string) => {
    const z = geo.byCode.get(zctaOfZip.of(zip) ?? '');
    return z ? { latitude: z.lat, longitude: z.lon } : null;
  };
  return buildRoster(data.facilities, { zipPoint, matchMiles: FACILITY_MATCH_MILES }).facilities;
}

/** Which ZCTAs a practice ZIP can lead to in the build, and the ZIPs besides their own code that do. */
function practiceZips(geo: Geography, data: Ingested, zctaOfZip: ZctaOfZip): Pick<RealWorld, 'reachable' | 'practiceZips'> {
  const reachable = Uint8Array.from(geo.zctas, (z) => (zctaOfZip.of(z.code) === z.code ? 1 : 0));
  const zips = new Map<string, string[]>();
  for (const zip of data.zipToZcta.keys()) {
    const zcta = zctaOfZip.of(zip);
    if (zcta === null || zcta === zip || !geo.byCode.has(zcta)) continue;
    zips.set(zcta, [...(zips.get(zcta) ?? []), zip]);
  }
  return { reachable, practiceZips: zips };
}

/** The sample writer's view of the real roster: hospitals with beds and ZCTAs, health centre sites. */
function realFacilities(roster: Facility[], geo: Geography, zctaOf: (zip: string | null) => Zcta | undefined): Facilities {
  const nearestZcta = (f: Facility) => zctaOf(f.zip) ?? (f.latitude !== null ? geo.nearest(f.longitude!, f.latitude, 1)[0] : undefined);
  const hospitals: Hospital[] = [];
  const sites: HealthCenterSite[] = [];
  for (const f of roster) {
    const zcta = nearestZcta(f);
    if (!zcta) continue;
    const [lat, lon] = f.latitude !== null ? [f.latitude, f.longitude!] : [zcta.lat, zcta.lon];
    if (!f.isHospital) {
      sites.push({ name: f.name, zcta, city: f.city, state: f.state, address: f.address, phone: f.phone, lat, lon });
      continue;
    }
    hospitals.push({
      cmsType: f.sources.includes('cms') ? CMS_TYPES[f.type] : undefined,
      ccn: f.ccn ?? '',
      hifldType: HIFLD_TYPES[f.type] ?? f.type.toUpperCase(),
      inHifld: f.sources.includes('hifld'),
      name: f.name.toUpperCase(),
      address: f.address.toUpperCase(),
      zcta,
      zip: f.zip ?? zcta.code,
      city: f.city.toUpperCase(),
      state: f.state,
      phone: f.phone,
      lat,
      lon,
      beds: staffedBeds(f),
      pacId: String(1_000_000_000 + f.id * 7919).slice(0, 10),
    });
  }
  const bedsByZcta = new Float64Array(geo.zctas.length);
  for (const h of hospitals) bedsByZcta[h.zcta.index] += h.beds;
  const cms = hospitals.filter((h) => h.cmsType);
  const index = new KDBush(Math.max(1, cms.length));
  for (const h of cms) index.add(h.lon, h.lat);
  index.finish();
  return {
    hospitals,
    sites,
    bedsByZcta,
    nearestCmsHospital(lon: number, lat: number, miles: number) {
      if (cms.length === 0) return undefined;
      const [id] = around(index, lon, lat, 1, miles * 1.609344) as number[];
      return id === undefined ? undefined : cms[id];
    },
  };
}
