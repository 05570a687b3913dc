import { BuildError, RowReject } from '../base/errors.ts';
import type { Manifest, SourceSpec } from '../config/manifest.ts';
import { LAYOUTS } from '../layouts/index.ts';
import { acsMeasures, type GazetteerRow } from '../layouts/census.ts';
import type { AcsRow } from '../layouts/census.ts';
import type {
  CountyCbsaRow,
  CountyUrbanRuralRow,
  ZctaCountyRow,
  ZipCityRow,
  ZipCountyRow,
  ZipRucaRow,
  ZipZctaRow,
} from '../layouts/crosswalks.ts';
import { DRIVE_DESTINATIONS, type DriveDestination, type DriveTimeRow, type SviRow } from '../layouts/access.ts';
import type { FacilityRow } from '../layouts/facilities.ts';
import type { PlacesRow } from '../layouts/places.ts';
import type { ResidentsPointRow, TractCentreRow } from '../layouts/residents.ts';
import type { ClinicianRow, ProviderRow, TaxonomyRow } from '../layouts/providers.ts';
import type { Layout } from '../layouts/types.ts';
import { specialtyOfTaxonomy } from '../layouts/providers.ts';
import type { Ingested, ProviderSink } from './ingested.ts';
import { ingestSource, type IngestOptions, type RowSink } from './source.ts';
import type { Reconciler } from './reconcile.ts';
import { collectGarbage } from '../base/memory.ts';
import { ZctaOfZip } from './zcta-of-zip.ts';

/** Rows read from one file above which its garbage is collected before the next file (a full collection costs a fraction of a second). */
const LARGE_SOURCE_ROWS = 100_000;

/** The order layouts are read in: crosswalks before the providers that are mapped through them. */
export const LAYOUT_ORDER = [
  'gazetteer_zcta',
  'zip_zcta',
  'zip_city',
  'zcta_county',
  'zip_county',
  'zip_residents_point',
  'county_cbsa',
  'county_urban_rural',
  'zip_ruca',
  'acs_zcta',
  'places_zcta',
  'drive_times',
  'svi_zcta',
  'tract_population_centre',
  'nucc_taxonomy',
  'cms_hospitals',
  'hifld_hospitals',
  'covidcaremap_hospitals',
  'hrsa_sites',
  'nppes',
  'nppes_flat',
  'doctors_clinicians',
];

/** Reads every manifest source into memory, except the provider files, whose rows go to `providers` as they are read. */
export async function ingestAll(
  manifest: Manifest,
  providers: ProviderSink,
  reconciler: Reconciler,
  log: (line: string) => void,
  options: IngestOptions = {},
): Promise<Ingested> {
  const data: Ingested = {
    zctas: new Map(),
    census: new Map(),
    zipToZcta: new Map(),
    zipCity: new Map(),
    zctaCounties: new Map(),
    zipCounties: new Map(),
    residentsPoints: new Map(),
    countyCbsa: new Map(),
    countyUrbanRural: new Map(),
    zctaRuca: new Map(),
    taxonomy: new Map(),
    places: new Map(),
    facilities: [],
    driveTimes: new Map(),
    reference: { hospitalDriveTimes: new Map(), svi: new Map(), tractCentres: [] },
    sourcesByLayout: new Map(),
  };
  if (!manifest.sources.some((s) => s.layout === 'gazetteer_zcta')) {
    throw new BuildError(
      `manifest ${manifest.file} names no source with layout gazetteer_zcta: the ZCTA Gazetteer defines the ZIP codes to score. Add one under "sources".`,
    );
  }
  // The NUCC code set is read before the provider files (LAYOUT_ORDER), so a provider's specialty is known as it lands.
  const specialtyOf = (code: string | null): string => {
    const row = code === null ? undefined : data.taxonomy.get(code);
    return row ? specialtyOfTaxonomy(row) : '';
  };
  let zctaTable: ZctaOfZip | null = null;
  const ordered = [...manifest.sources].sort((a, b) => LAYOUT_ORDER.indexOf(a.layout) - LAYOUT_ORDER.indexOf(b.layout));
  for (const spec of ordered) {
    const list = data.sourcesByLayout.get(spec.layout) ?? [];
    list.push(spec);
    data.sourcesByLayout.set(spec.layout, list);
    const started = Date.now();
    const tally = await ingestOne(spec, data);
    // A large file leaves its row objects behind as garbage; the next file's reading would pile onto them
    // (a national build's memory climbed 400 MB from the end of NPPES into Doctors and Clinicians).
    if (tally.read >= LARGE_SOURCE_ROWS) collectGarbage();
    log(
      `  ${spec.key.padEnd(24)} ${String(tally.read).padStart(9)} read ${String(tally.landed).padStart(9)} landed ${String(tally.rejected).padStart(8)} rejected  ${((Date.now() - started) / 1000).toFixed(1)}s`,
    );
  }
  return data;

  function ingestOne(spec: SourceSpec, data: Ingested) {
    const run = <Row>(sink: RowSink<Row>, extraFields: string[] = []) =>
      ingestSource(spec, LAYOUTS.get(spec.layout) as Layout<Row>, sink, reconciler, extraFields, options);
    // Built at the first provider file: the crosswalks and the Gazetteer are read before it (LAYOUT_ORDER).
    const zctaOfZip = (zip: string): string | null => (zctaTable ??= new ZctaOfZip(data.zipToZcta, data.zctas)).of(zip);
    switch (spec.layout) {
      case 'gazetteer_zcta':
        return run<GazetteerRow>((row) => {
          if (data.zctas.has(row.zcta)) throw new RowReject(`ZCTA ${row.zcta} is listed twice`);
          data.zctas.set(row.zcta, row);
        });
      case 'acs_zcta': {
        const measures = acsMeasures(spec.columns, spec.key);
        spec.options = { ...spec.options, measures };
        return run<AcsRow>((row) => {
          let values = data.census.get(row.zcta);
          if (!values) data.census.set(row.zcta, (values = new Map()));
          // Earlier sources in the manifest take precedence; a suppressed value does not block a later one.
          for (const [measure, value] of Object.entries(row.values)) {
            if (value !== null && values.get(measure)?.value == null) values.set(measure, { value, source: spec.key });
            else if (!values.has(measure)) values.set(measure, { value: null, source: spec.key });
          }
        }, measures);
      }
      case 'zip_zcta':
        return run<ZipZctaRow>((row) => {
          if (data.zipToZcta.has(row.zip)) throw new RowReject(`ZIP ${row.zip} is listed twice`);
          data.zipToZcta.set(row.zip, row);
        });
      case 'zip_city':
        return run<ZipCityRow>((row) => void data.zipCity.set(row.zip, row));
      case 'zcta_county':
        return run<ZctaCountyRow>((row) => {
          const list = data.zctaCounties.get(row.zcta) ?? [];
          list.push(row);
          data.zctaCounties.set(row.zcta, list);
        });
      case 'zip_county':
        return run<ZipCountyRow>((row) => {
          const list = data.zipCounties.get(row.zip) ?? [];
          list.push(row);
          data.zipCounties.set(row.zip, list);
        });
      case 'zip_residents_point':
        return run<ResidentsPointRow>((row, line) => {
          if (data.residentsPoints.has(row.zip)) throw new RowReject(`ZIP ${row.zip} is listed twice`);
          data.residentsPoints.set(row.zip, { ...row, origin: { key: spec.key, line } });
        });
      case 'county_cbsa':
        return run<CountyCbsaRow>((row) => void data.countyCbsa.set(row.countyFips, row));
      case 'county_urban_rural':
        return run<CountyUrbanRuralRow>((row) => void data.countyUrbanRural.set(row.countyFips, row.code));
      case 'zip_ruca':
        return run<ZipRucaRow>((row) => void data.zctaRuca.set(row.zcta, row.ruca));
      case 'places_zcta':
        return run<PlacesRow>((row) => void data.places.set(row.zcta, row.prevalence));
      case 'drive_times': {
        const { destination, reference } = driveTimeRole(spec);
        let table = reference ? data.reference.hospitalDriveTimes : data.driveTimes.get(destination);
        if (!table) data.driveTimes.set(destination, (table = new Map()));
        return run<DriveTimeRow>((row) => {
          if (table!.has(row.zip)) throw new RowReject(`ZIP ${row.zip} is listed twice`);
          table!.set(row.zip, row);
        });
      }
      case 'svi_zcta':
        return run<SviRow>((row) => void data.reference.svi.set(row.zcta, row.rank));
      case 'tract_population_centre':
        return run<TractCentreRow>((row) => void data.reference.tractCentres.push(row));
      case 'nucc_taxonomy':
        return run<TaxonomyRow>((row) => void data.taxonomy.set(row.code, row));
      case 'cms_hospitals':
      case 'hifld_hospitals':
      case 'covidcaremap_hospitals':
      case 'hrsa_sites':
        return run<FacilityRow>((row, line) => void data.facilities.push({ ...row, origin: { key: spec.key, line } }));
      case 'nppes':
      case 'nppes_flat':
        return run<ProviderRow>((row, line) => providers.addProvider(row, line, spec.key, zctaOfZip(row.zip), specialtyOf(row.taxonomy)));
      case 'doctors_clinicians':
        return run<ClinicianRow>((row, line) => providers.addClinician(row, line, zctaOfZip(row.zip)));
      default:
        throw new BuildError(`layout ${spec.layout} of source "${spec.key}" has no ingest step`);
    }
  }
}

/** Checks a drive-time source's options: what it measures, and whether it feeds the scores or only the validation report. */
function driveTimeRole(spec: SourceSpec): { destination: DriveDestination; reference: boolean } {
  const { destination, role = 'input' } = spec.options as { destination?: string; role?: string };
  if (!DRIVE_DESTINATIONS.includes(destination as DriveDestination)) {
    throw new BuildError(
      `manifest key sources.${spec.key}.options.destination must be one of ${DRIVE_DESTINATIONS.join(', ')}, got ${JSON.stringify(destination)}`,
    );
  }
  if (role !== 'input' && role !== 'reference')
    throw new BuildError(`manifest key sources.${spec.key}.options.role must be "input" or "reference", got ${JSON.stringify(role)}`);
  if (role === 'reference' && destination !== 'hospital')
    throw new BuildError(
      `manifest key sources.${spec.key}: the validation report compares against hospital drive times only; set options.destination to "hospital"`,
    );
  return { destination: destination as DriveDestination, reference: role === 'reference' };
}
