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
}
