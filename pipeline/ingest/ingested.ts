import type { DriveDestination, DriveTimeRow } from '../layouts/access.ts';
import type { GazetteerRow } from '../layouts/census.ts';
import type { CountyCbsaRow, ZctaCountyRow, ZipCityRow, ZipCountyRow, ZipZctaRow } from '../layouts/crosswalks.ts';
import type { FacilityRow } from '../layouts/facilities.ts';
import type { ClinicianRow, ProviderRow, TaxonomyRow } from '../layouts/providers.ts';
import type { ResidentsPointRow, TractCentreRow } from '../layouts/residents.ts';
import type { SourceSpec } from '../config/manifest.ts';

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
    /** Census tract centres of population, to check the residents' points against. */
    tractCentres: TractCentreRow[];
  };
  /** Source keys per layout, in manifest order (for vintages and precedence). */
  sourcesByLayout: Map<string, SourceSpec[]>;
}
