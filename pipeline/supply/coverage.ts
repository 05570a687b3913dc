import type { ZipPlace } from '../geo/places.ts';
import { COVERAGE, EXPECTED_DENSITY } from '../config/scoring.ts';
import { CATEGORY_NAMES, type Category } from '../config/specialties.ts';
import { round } from '../../core/numbers.ts';

/** Observed against expected clinicians per 100,000 residents. */
export interface Density {
  observed: number;
  expected: number;
  /** observed / expected */
  share: number;
}

/** How completely the roster files (NPPES, Doctors and Clinicians) count the clinicians who practise, nationally and by state. */
export interface RosterCoverage {
  /** The categories the rosters count completely enough to be their source (COVERAGE). */
  complete: Category[];
  /** Sentences saying what falls short, per category that falls short (for the log and a refused build). */
  shortfalls: Partial<Record<Category, string>>;
  /** The declared sample fraction the counts were scaled by (1 for full files). */
  sampleFraction: number;
  national: Record<Category, Density>;
  /** Primary care by state (states with residents), with the state's population. */
  states: Record<string, Density & { population: number }>;
}

const percent = (share: number) => `${Math.round(share * 100)}%`;

/** Clinicians per 100,000 residents of a category against its expected national density. */
export function densityOf(count: number, residents: number, category: Category): Density {
  const observed = residents > 0 ? (100_000 * count) / residents : 0;
  return { observed: round(observed, 2), expected: EXPECTED_DENSITY[category], share: round(observed / EXPECTED_DENSITY[category], 3) };
}

/**
 * Measures how completely the rosters count each category: clinicians per 100,000 residents against the
 * expected national densities (config `EXPECTED_DENSITY`), and primary care by state, judged by the `COVERAGE`
 * rules. `supply` is already scaled up by the declared sample fraction. Coverage is measured, never assumed:
 * a roster is the source of a category only where it is complete.
 */
export function measureCoverage(places: ZipPlace[], supply: Record<Category, Float64Array>, sampleFraction: number): RosterCoverage {
  const population = places.reduce((sum, p) => sum + Math.max(0, p.population ?? 0), 0);
  const national = {} as Record<Category, Density>;
  for (const category of CATEGORY_NAMES)
    national[category] = densityOf(
      supply[category].reduce((a, b) => a + b, 0),
      population,
      category,
    );

  const byState = new Map<string, { residents: number; primaryCare: number }>();
  places.forEach((p, i) => {
    const s = byState.get(p.state) ?? { residents: 0, primaryCare: 0 };
    s.residents += Math.max(0, p.population ?? 0);
    s.primaryCare += supply.primary_care[i];
    byState.set(p.state, s);
  });
  const states: RosterCoverage['states'] = {};
  for (const [state, s] of [...byState].sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (s.residents > 0) states[state] = { ...densityOf(s.primaryCare, s.residents, 'primary_care'), population: s.residents };
  }

  const shortfalls: RosterCoverage['shortfalls'] = {};
  for (const category of CATEGORY_NAMES) {
    const { share, observed, expected } = national[category];
    if (share < COVERAGE.minNationalShare)
      shortfalls[category] =
        `the rosters count ${percent(share)} of the ${category.replace(/_/g, ' ')} clinicians expected nationally (${observed} per 100,000 residents against about ${expected})`;
  }
  const [low, high] = COVERAGE.stateShareRange;
  const uneven = Object.entries(states).filter(([, s]) => s.population >= COVERAGE.stateMinPopulation && (s.share < low || s.share > high));
  if (!shortfalls.primary_care && uneven.length) {
    const examples = uneven
      .sort((a, b) => a[1].share - b[1].share)
      .slice(0, 4)
      .map(([state, s]) => `${state} ${percent(s.share)}`);
    shortfalls.primary_care = `the rosters' primary care coverage is uneven: ${uneven.length} states of 500,000 residents or more fall outside ${percent(low)}-${percent(high)} of the expected density (${examples.join(', ')}${uneven.length > 4 ? ', ...' : ''})`;
  }
  const complete = CATEGORY_NAMES.filter((c) => !shortfalls[c]);
  return { complete, shortfalls, sampleFraction, national, states };
}
