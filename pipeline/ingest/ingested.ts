import { BuildError, RowReject } from '../base/errors.ts';
import type { SourceSpec } from '../config/manifest.ts';
import { DRIVE_DESTINATIONS, type DriveDestination, type DriveTimeRow, type SviRow } from '../layouts/access.ts';
import { acsMeasures, type AcsRow, type GazetteerRow } from '../layouts/census.ts';
import type {
  CountyCbsaRow,
  CountyUrbanRuralRow,
  ZctaCountyRow,
  ZipCityRow,
  ZipCountyRow,
  ZipRucaRow,
  ZipZctaRow,
} from '../layouts/crosswalks.ts';
import { countSourceOptions, type ClinicianCountRow, type CountSourceOptions } from '../layouts/clinician-counts.ts';
import type { FacilityRow } from '../layouts/facilities.ts';
import type { PlacesRow } from '../layouts/places.ts';
import type { ClinicianRow, ProviderRow, TaxonomyRow } from '../layouts/providers.ts';
import type { ResidentsPointRow, TractCentreRow } from '../layouts/residents.ts';
import type { RowSink } from './source.ts';

/**
 * What ingest hands the stages after it, and where each layout's rows go to make it: the `Ingested` record
 * and each layout's filing (a new layout is a field and an entry of `FILERS`; its place in the reading order
 * is its place in layouts/index.ts).
 */

/** Where a raw row came from: the manifest source key and its line, so a row a later stage drops is reported. */
export interface RowOrigin {
  key: string;
  line: number;
}

/** A facility row with its file line, so the roster can report a row it leaves out. */
export type SourcedFacilityRow = FacilityRow & { origin: RowOrigin };

/** A residents' point row with its file line, so the geography can report a row it leaves out. */
export type SourcedResidentsPoint = ResidentsPointRow & { origin: RowOrigin };

/**
 * Where provider rows go as they are read: millions of them never sit in memory (the working store stages
 * them, store/provider-stage.ts). `specialty` is the NUCC specialty of the primary taxonomy, '' when the code
 * set lacks it.
 */
export interface ProviderSink {
  addProvider(row: ProviderRow, line: number, sourceKey: string, zcta: string | null, specialty: string): void;
  addClinician(row: ClinicianRow, line: number, zcta: string | null): void;
}

/** One clinician count file: what it counts, where, when, and its rows with their file lines. */
export interface CountSource extends CountSourceOptions {
  key: string;
  vintage: string;
  rows: Array<ClinicianCountRow & { origin: RowOrigin }>;
}

/** A census value with the source it came from, so the census endpoint can state its vintage. */
export interface SourcedValue {
  value: number | null;
  source: string;
}

/** Everything read from the raw files except providers, which go to a ProviderSink as they are read. */
export interface Ingested {
  zctas: Map<string, GazetteerRow>;
  census: Map<string, Map<string, SourcedValue>>;
  zipToZcta: Map<string, ZipZctaRow>;
  zipCity: Map<string, ZipCityRow>;
  zctaCounties: Map<string, ZctaCountyRow[]>;
  /** HUD USPS ZIP-county rows per postal ZIP, with residential shares. */
  zipCounties: Map<string, ZipCountyRow[]>;
  /** Where each postal ZIP's residents live (HUD's population-weighted points), with their file lines. */
  residentsPoints: Map<string, SourcedResidentsPoint>;
  countyCbsa: Map<string, CountyCbsaRow>;
  countyUrbanRural: Map<string, number>;
  zctaRuca: Map<string, number>;
  taxonomy: Map<string, TaxonomyRow>;
  places: Map<string, Record<string, number | null>>;
  /** Facility rows with their file line, so the roster can report a row it leaves out. */
  facilities: SourcedFacilityRow[];
  /** Road-network drive times per ZIP to the nearest hospital / health centre, for the scores. */
  driveTimes: Map<DriveDestination, Map<string, DriveTimeRow>>;
  /** Independent measures the validation report compares the scores with (never scored). */
  reference: {
    hospitalDriveTimes: Map<string, DriveTimeRow>;
    svi: Map<string, number | null>;
  };
  /**
   * Census tract centres of population: where a tract's clinicians are placed (supply/tracts.ts), and what the
   * residents' points are checked against.
   */
  tractCentres: TractCentreRow[];
  /** Clinician count files, each with its rows in file order (supply/ decides which count wins where). */
  clinicianCounts: CountSource[];
  /** Source keys per layout, in manifest order (for vintages and precedence). */
  sourcesByLayout: Map<string, SourceSpec[]>;
}

/** An empty record, for ingest to fill. */
export function emptyIngested(): Ingested {
  return {
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
    reference: { hospitalDriveTimes: new Map(), svi: new Map() },
    tractCentres: [],
    clinicianCounts: [],
    sourcesByLayout: new Map(),
  };
}

/** What files a row of one source: where in `Ingested` it goes, or to the provider sink; its layout's extra fields. */
export interface RowFiling {
  sink: RowSink<never>;
  extraFields?: string[];
}

/** What filing a provider row needs from ingest: the sink, a ZIP's ZCTA, and a taxonomy code's specialty. */
export interface ProviderFiling {
  providers: ProviderSink;
  zctaOf(zip: string): string | null;
  specialtyOf(code: string | null): string;
}

/** Wraps a typed row sink as a RowFiling. */
function into<Row>(sink: RowSink<Row>, extraFields?: string[]): RowFiling {
  return { sink: sink as RowSink<never>, extraFields };
}

type Filer = (spec: SourceSpec, data: Ingested, filing: ProviderFiling) => RowFiling;

/** Facilities of every roster layout, each with its source and line. */
const facilityRows: Filer = (spec, data) =>
  into<FacilityRow>((row, line) => void data.facilities.push({ ...row, origin: { key: spec.key, line } }));

/** NPPES rows (either layout) into the provider sink, with the ZIP's ZCTA and the taxonomy's specialty. */
const providerRows: Filer = (spec, _data, { providers, zctaOf, specialtyOf }) =>
  into<ProviderRow>((row, line) => providers.addProvider(row, line, spec.key, zctaOf(row.zip), specialtyOf(row.taxonomy)));

/**
 * Where the rows of each layout go: the one place a layout's rows become what the stages after ingest read.
 * A new layout is a field of `Ingested` and its entry here (test/layouts.test.ts files a row of every layout).
 */
const FILERS: Readonly<Record<string, Filer>> = {
  gazetteer_zcta: (_spec, data) =>
    into<GazetteerRow>((row) => {
      if (data.zctas.has(row.zcta)) throw new RowReject(`ZCTA ${row.zcta} is listed twice`);
      data.zctas.set(row.zcta, row);
    }),
  acs_zcta: (spec, data) => {
    const measures = acsMeasures(spec.columns, spec.key);
    spec.options = { ...spec.options, measures };
    return into<AcsRow>((row) => {
      let values = data.census.get(row.zcta);
      if (!values) data.census.set(row.zcta, (values = new Map()));
      // Earlier sources in the manifest take precedence; a suppressed value does not block a later one.
      for (const [measure, value] of Object.entries(row.values)) {
        if (value !== null && values.get(measure)?.value == null) values.set(measure, { value, source: spec.key });
        else if (!values.has(measure)) values.set(measure, { value: null, source: spec.key });
      }
    }, measures);
  },
  zip_zcta: (_spec, data) =>
    into<ZipZctaRow>((row) => {
      if (data.zipToZcta.has(row.zip)) throw new RowReject(`ZIP ${row.zip} is listed twice`);
      data.zipToZcta.set(row.zip, row);
    }),
  zip_city: (_spec, data) => into<ZipCityRow>((row) => void data.zipCity.set(row.zip, row)),
  zcta_county: (_spec, data) =>
    into<ZctaCountyRow>((row) => {
      const list = data.zctaCounties.get(row.zcta) ?? [];
      list.push(row);
      data.zctaCounties.set(row.zcta, list);
    }),
  zip_county: (_spec, data) =>
    into<ZipCountyRow>((row) => {
      const list = data.zipCounties.get(row.zip) ?? [];
      list.push(row);
      data.zipCounties.set(row.zip, list);
    }),
  zip_residents_point: (spec, data) =>
    into<ResidentsPointRow>((row, line) => {
      if (data.residentsPoints.has(row.zip)) throw new RowReject(`ZIP ${row.zip} is listed twice`);
      data.residentsPoints.set(row.zip, { ...row, origin: { key: spec.key, line } });
    }),
  county_cbsa: (_spec, data) => into<CountyCbsaRow>((row) => void data.countyCbsa.set(row.countyFips, row)),
  county_urban_rural: (_spec, data) => into<CountyUrbanRuralRow>((row) => void data.countyUrbanRural.set(row.countyFips, row.code)),
  zip_ruca: (_spec, data) => into<ZipRucaRow>((row) => void data.zctaRuca.set(row.zcta, row.ruca)),
  places_zcta: (_spec, data) => into<PlacesRow>((row) => void data.places.set(row.zcta, row.prevalence)),
  drive_times: (spec, data) => {
    const { destination, reference } = driveTimeRole(spec);
    let table = reference ? data.reference.hospitalDriveTimes : data.driveTimes.get(destination);
    if (!table) data.driveTimes.set(destination, (table = new Map()));
    return into<DriveTimeRow>((row) => {
      if (table!.has(row.zip)) throw new RowReject(`ZIP ${row.zip} is listed twice`);
      table!.set(row.zip, row);
    });
  },
  svi_zcta: (_spec, data) => into<SviRow>((row) => void data.reference.svi.set(row.zcta, row.rank)),
  tract_population_centre: (_spec, data) => into<TractCentreRow>((row) => void data.tractCentres.push(row)),
  clinician_counts: (spec, data) => {
    const options = countSourceOptions(spec.key, spec.columns, spec.options);
    spec.options = { ...spec.options, ...options };
    const source: CountSource = { key: spec.key, vintage: spec.vintage, ...options, rows: [] };
    data.clinicianCounts.push(source);
    return into<ClinicianCountRow>((row, line) => void source.rows.push({ ...row, origin: { key: spec.key, line } }), options.kinds);
  },
  nucc_taxonomy: (_spec, data) => into<TaxonomyRow>((row) => void data.taxonomy.set(row.code, row)),
  cms_hospitals: facilityRows,
  hifld_hospitals: facilityRows,
  covidcaremap_hospitals: facilityRows,
  hrsa_sites: facilityRows,
  nppes: providerRows,
  nppes_flat: providerRows,
  doctors_clinicians: (_spec, _data, { providers, zctaOf }) =>
    into<ClinicianRow>((row, line) => providers.addClinician(row, line, zctaOf(row.zip))),
};

/** Where the rows of `spec`'s layout go (FILERS). */
export function rowFiling(spec: SourceSpec, data: Ingested, filing: ProviderFiling): RowFiling {
  const filer = Object.hasOwn(FILERS, spec.layout) ? FILERS[spec.layout] : undefined;
  if (filer === undefined) throw new BuildError(`layout ${spec.layout} of source "${spec.key}" has no ingest step`);
  return filer(spec, data, filing);
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
