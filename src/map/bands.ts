import type { MapBandRow } from '../query/map.ts';

/** One grade of a band: its lowest and highest score and the colour the API answers for it. */
export interface MapGrade {
  grade: string;
  min: number;
  max: number;
  color: string;
}

/** One of the five bands (a label: Healthcare Desert ... Healthcare Paradise), its range and grades, lowest grade first. */
export interface MapBand {
  label: string;
  min: number;
  max: number;
  grades: MapGrade[];
}

/** How the map draws a ZIP code or county without a score: a grey no band uses, and a hollow mark. */
export const NO_SCORE = { label: 'No score', color: '#767676' } as const;

/**
 * The five bands of the build's band table (one row per grade, highest first), lowest band first, as the
 * legend lists them: grades that share a label form a band, whose range runs from its lowest grade's
 * minimum to the score below the next band's.
 */
export function bandsOf(rows: readonly MapBandRow[]): MapBand[] {
  const ascending = [...rows].sort((a, b) => a.min - b.min);
  const grades = ascending.map((row, i) => ({
    grade: row.grade,
    label: row.label,
    min: row.min,
    max: i + 1 < ascending.length ? ascending[i + 1].min - 1 : 100,
    color: row.color,
  }));
  const bands: MapBand[] = [];
  for (const { label, ...grade } of grades) {
    const last = bands[bands.length - 1];
    if (last?.label === label) {
      last.grades.push(grade);
      last.max = grade.max;
    } else bands.push({ label, min: grade.min, max: grade.max, grades: [grade] });
  }
  return bands;
}

/** The grade (and band) a 0-100 score falls in, or undefined for no score. */
export function gradeOf(bands: readonly MapBand[], score: number | null): { band: MapBand; grade: MapGrade } | undefined {
  if (score === null) return undefined;
  for (const band of bands) for (const grade of band.grades) if (score >= grade.min && score <= grade.max) return { band, grade };
  return undefined;
}
