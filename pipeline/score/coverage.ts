import type { ZipPlace } from '../geo/places.ts';
import { COVERAGE, EXPECTED_DENSITY } from '../config/scoring.ts';
import { CATEGORY_NAMES, type Category } from '../config/specialties.ts';

/** Observed against expected clinicians per 100,000 residents. */
export interface Density {
  observed: number;
  expected: number;
  /** observed / expected */
  share: number;
}

/** How completely the provider files count the clinicians who practise, nationally and by state. */
export interface ProviderCoverage {
  /** Whether the files can drive scores: coverage is complete enough and even enough. */
  complete: boolean;
  /** Sentences saying what falls short (empty when complete). */
  shortfalls: string[];
  /** The declared sample fraction the counts were scaled by (1 for full files). */
  sampleFraction: number;
  national: Record<Category, Density>;
  /** Primary care by state (states with residents), with the state's population. */
  states: Record<string, Density & { population: number }>;
}

const round = (x: number, digits = 2) => Number(x.toFixed(digits));

/**
 * Measures provider coverage: clinicians per 100,000 residents by category and by state, against the
 * expected national densities (config `EXPECTED_DENSITY`), and judges it by the `COVERAGE` rules.
 * `supply` is already scaled up by the declared sample fraction.
 */
export function measureCoverage(places: ZipPlace[], supply: Record<Category, Float64Array>, sampleFraction: number): ProviderCoverage {
  const population = places.reduce((sum, p) => sum + Math.max(0, p.population ?? 0), 0);
  const per100k = (count: number, residents: number) => (residents > 0 ? (100_000 * count) / residents : 0);
  const density = (count: number, residents: number, category: Category): Density => {
    const observed = per100k(count, residents);
    return { observed: round(observed), expected: EXPECTED_DENSITY[category], share: round(observed / EXPECTED_DENSITY[category], 3) };
  };
  const national = {} as Record<Category, Density>;
  for (const category of CATEGORY_NAMES)
    national[category] = density(
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
  const states: ProviderCoverage['states'] = {};
  for (const [state, s] of [...byState].sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (s.residents > 0) states[state] = { ...density(s.primaryCare, s.residents, 'primary_care'), population: s.residents };
  }

  const shortfalls: string[] = [];
  const percent = (share: number) => `${Math.round(share * 100)}%`;
  if (CATEGORY_NAMES.every((c) => national[c].observed === 0)) {
    shortfalls.push('they hold no clinicians in the scored ZIP codes (the manifest names no provider file, or none of its rows landed)');
    return { complete: false, shortfalls, sampleFraction, national, states };
  }
  if (national.primary_care.share < COVERAGE.minNationalShare) {
    shortfalls.push(
      `they count ${percent(national.primary_care.share)} of the primary care clinicians expected nationally (${national.primary_care.observed} per 100,000 residents against about ${national.primary_care.expected})`,
    );
  }
  const covered = CATEGORY_NAMES.filter((c) => national[c].share >= COVERAGE.minNationalShare).length;
  if (covered < COVERAGE.minCategoriesShare * CATEGORY_NAMES.length) {
    shortfalls.push(`only ${covered} of ${CATEGORY_NAMES.length} clinician categories reach half their expected national density`);
  }
  const [low, high] = COVERAGE.stateShareRange;
  const uneven = Object.entries(states).filter(([, s]) => s.population >= COVERAGE.stateMinPopulation && (s.share < low || s.share > high));
  if (uneven.length) {
    const examples = uneven
      .sort((a, b) => a[1].share - b[1].share)
      .slice(0, 4)
      .map(([state, s]) => `${state} ${percent(s.share)}`);
    shortfalls.push(
      `coverage is uneven: ${uneven.length} states of 500,000 residents or more fall outside ${percent(low)}-${percent(high)} of the expected primary care density (${examples.join(', ')}${uneven.length > 4 ? ', ...' : ''})`,
    );
  }
  return { complete: shortfalls.length === 0, shortfalls, sampleFraction, national, states };
}
