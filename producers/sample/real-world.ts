/**
 * The real world the synthetic providers are placed in: ACS populations and the hospital roster and health
 * centre sites of a manifest's real files (the bundle in raw/public), read through the build's own layouts,
 * hung on the sample's ZCTA geography (the same 33,791 2020 ZCTAs as the Gazetteer).
 */
import KDBush from 'kdbush';
import { around } from 'geokdbush';
import type { Demographics } from './census-model.ts';
import type { Facilities, HealthCenterSite, Hospital } from './facilities.ts';
import type { CmsHospitalType } from './facility-names.ts';
import type { Geography, Zcta } from './geography.ts';
import { BuildError } from '../../pipeline/base/errors.ts';
import { buildRoster, type Facility } from '../../pipeline/facilities/roster.ts';
import type { SourcedFacilityRow } from '../../pipeline/ingest/ingested.ts';
import { staffedBeds } from '../../pipeline/facilities/hospitals.ts';
import { ingestSource } from '../../pipeline/ingest/source.ts';
import { Reconciler } from '../../pipeline/ingest/reconcile.ts';
import { acsMeasures, type AcsRow } from '../../pipeline/layouts/census.ts';
import type { ZipZctaRow } from '../../pipeline/layouts/crosswalks.ts';
import type { FacilityRow } from '../../pipeline/layouts/facilities.ts';
import { LAYOUTS } from '../../pipeline/layouts/index.ts';
import type { Layout } from '../../pipeline/layouts/types.ts';
import { loadManifest, type SourceSpec } from '../../pipeline/config/manifest.ts';
import { FACILITY_MATCH_MILES } from '../../pipeline/config/scoring.ts';

/** Real populations (as Demographics, of which placement reads only the population) and real facilities. */
export interface RealWorld {
  demographics: Demographics[];
  facilities: Facilities;
  population: number;
}

const FACILITY_LAYOUTS = new Set(['cms_hospitals', 'hifld_hospitals', 'covidcaremap_hospitals', 'hrsa_sites']);
const CMS_TYPES: Record<string, CmsHospitalType> = {
  'Acute Care Hospital': 'Acute Care Hospitals',
  'Critical Access Hospital': 'Critical Access Hospitals',
  "Children's Hospital": 'Childrens',
  'Psychiatric Hospital': 'Psychiatric',
  'Acute Care - Veterans Administration': 'Acute Care - Veterans Administration',
  'Acute Care - Department of Defense': 'Acute Care - Department of Defense',
};

/** Reads the populations and facilities of `manifestFile` (provider sources are ignored). */
export async function loadRealWorld(manifestFile: string, geo: Geography, root?: string): Promise<RealWorld> {
  const manifest = loadManifest(manifestFile, new Set(LAYOUTS.keys()), root);
  const reconciler = new Reconciler(null);
  const read = <Row>(spec: SourceSpec, sink: (row: Row, line: number) => void, extra: string[] = []) =>
    ingestSource(spec, LAYOUTS.get(spec.layout) as Layout<Row>, sink, reconciler, extra);

  // Population: the first ACS source with a value wins, as in the build.
  const population = new Map<string, number>();
  for (const spec of manifest.sources.filter((s) => s.layout === 'acs_zcta' && 'population' in s.columns)) {
    const measures = acsMeasures(spec.columns, spec.key);
    spec.options = { ...spec.options, measures };
    await read<AcsRow>(
      spec,
      (row) => {
        const value = row.values.population;
        if (value != null && !population.has(row.zcta)) population.set(row.zcta, value);
      },
      measures,
    );
  }
  if (population.size === 0)
    throw new BuildError(`manifest ${manifestFile} maps no ACS "population" column: the synthetic providers are placed by population`);

  const zipToZcta = new Map<string, string>();
  for (const spec of manifest.sources.filter((s) => s.layout === 'zip_zcta'))
    await read<ZipZctaRow>(spec, (row) => void zipToZcta.set(row.zip, row.zcta));
  const zctaOf = (zip: string | null) => (zip ? geo.byCode.get(zipToZcta.get(zip) ?? zip) : undefined);

  const rows: SourcedFacilityRow[] = [];
  for (const spec of manifest.sources.filter((s) => FACILITY_LAYOUTS.has(s.layout))) {
    await read<FacilityRow>(spec, (row, line) => void rows.push({ ...row, origin: { key: spec.key, line } }));
  }
  const zipPoint = (zip: string) => {
    const z = zctaOf(zip);
    return z ? { latitude: z.lat, longitude: z.lon } : null;
  };
  const roster = buildRoster(rows, { zipPoint, matchMiles: FACILITY_MATCH_MILES });

  const demographics = geo.zctas.map((z) => ({ population: Math.max(0, Math.round(population.get(z.code) ?? 0)) }) as Demographics);
  const facilities = realFacilities(roster.facilities, geo, zctaOf);
  return { demographics, facilities, population: demographics.reduce((sum, d) => sum + d.population, 0) };
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
      cmsType: CMS_TYPES[f.type],
      ccn: f.ccn ?? '',
      hifldType: f.type.toUpperCase(),
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
