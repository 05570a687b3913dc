/**
 * The validation report a build stores in `meta.validation` (pipeline/validate/report.ts writes it; `hcas
 * validate` reads it): part of the output file's contract, so both sides share this one shape.
 */

/** One acceptance rule: what is measured, its value, the target, and whether it holds. */
export interface Check {
  name: string;
  value: string;
  target: string;
  pass: boolean;
  note?: string;
}

/** Where the residents' points lie (pipeline/validate/residents.ts). */
export interface ResidentsPointReport {
  /** ZIPs per point source: `hud_residential` (HUD's residents' point) or `gazetteer_internal` (the middle of the area). */
  sources: Record<string, number>;
  /** Miles from the Gazetteer's internal point to the residents' point, over the ZIPs HUD placed: a distribution. */
  offsetMiles: { p50: number | null; p75: number | null; p90: number | null; p99: number | null; max: number | null };
  /** Miles to the nearest Census tract centre of population, from each point kind; null without the tract file. */
  tractCentres: {
    zips: number;
    minPopulation: number;
    residentsMiles: { p50: number | null; p90: number | null };
    gazetteerMiles: { p50: number | null; p90: number | null };
    emptyLandMiles: number;
    /** ZIPs whose residents' point lies farther than `emptyLandMiles` from every tract centre, most residents first. */
    emptyLand: Array<{ zip: string; city: string; state: string; population: number; residentsMiles: number; gazetteerMiles: number }>;
  } | null;
}

/** The straight-line drive estimate against a road table's minutes, where the table describes the residents' trip. */
export interface CalibrationRow {
  zips: number;
  /** The table's own median minutes per straight-line mile. */
  tableMinutesPerMile: number | null;
  medianAbsoluteMinutes: number | null;
  medianAbsolutePct: number | null;
  /** Median of (estimate - table) / table: positive when the estimate is slower. */
  medianBiasPct: number | null;
}

export interface DriveTimeCalibration {
  zips: number;
  all: CalibrationRow;
  /** Densest first: ZIPs of at least `minDensity` residents per square mile (below the previous row's). */
  byDensity: Array<CalibrationRow & { minDensity: number; minutesPerMile: number }>;
  byRegion: Array<CalibrationRow & { region: string }>;
}

/** The provider component against the count files the build was given (pipeline/validate/clinicians.ts). */
export interface ClinicianValidation {
  /** Per counted category: the build's clinicians per 100,000 beside the files', nationally and county by county. */
  supply: Array<{
    category: string;
    counties: number;
    withinTolerance: number;
    medianDifferencePct: number;
    p90DifferencePct: number;
    buildPer100k: number;
    filesPer100k: number;
  }>;
  /** Spearman of the counties' overall provider component against their published ratios. */
  ranking: { rho: number; counties: number } | null;
  known: Array<{
    fips: string;
    name: string;
    expect: 'low' | 'high' | 'counted';
    why: string;
    provider: number | null;
    percentile: number | null;
    pass: boolean;
  }>;
  /** The residents-weighted overall provider component per NCHS urban-rural class. */
  urbanRural: Array<{ code: number; zips: number; provider: number | null }>;
}

export interface ValidationReport {
  checks: Check[];
  bands: Array<{ label: string; zips: number; residents: number; share: number }>;
  urbanRural: Array<{
    code: number;
    zips: number;
    residents: number;
    healthscore: number;
    people: number;
    hospital: number;
    travel: number;
  }>;
  ruca: Array<{ code: number; zips: number; residents: number; healthscore: number }>;
  correlations: Record<string, { rho: number; n: number }>;
  academicMedicalCentres: Array<{
    zip: string;
    name: string;
    city: string;
    healthscore: number | null;
    label: string | null;
    people: number | null;
    ranked: boolean;
  }>;
  frontier: {
    zips: number;
    inBottomTwo: number;
    exceptions: Array<{ zip: string; city: string; state: string; healthscore: number; referenceMinutes: number }>;
  };
  /** Absent from builds made before residents' points (hcas validate prints what a report has). */
  residentsPoints?: ResidentsPointReport;
  driveTimeCalibration?: DriveTimeCalibration | null;
  /** Absent from builds made before clinician counts; null where the build had no count files to hold its supply to. */
  clinicians?: ClinicianValidation | null;
}
