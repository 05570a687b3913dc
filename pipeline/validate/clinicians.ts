import type { Check, ClinicianValidation } from '../../core/validation.ts';
import { COUNT_KINDS } from '../config/clinician-counts.ts';
import { PROVIDER_BENCHMARKS, SCORE_TYPES } from '../config/scoring.ts';
import type { Category } from '../config/specialties.ts';
import type { ZipPlace } from '../geo/places.ts';
import { logScore } from '../score/scale.ts';
import type { PlacedCounts } from '../supply/index.ts';
import { quantile, spearman, weightedMean } from './stats.ts';
import { KNOWN_COUNTIES, VALIDATION_TARGETS as T } from './targets.ts';
import { round } from '../../core/numbers.ts';

/**
 * The provider component against the count files a build was given, as a health-services researcher reads
 * it: each county's clinicians per 100,000 residents in the build beside the files' own (nothing lost, nothing
 * counted twice, a sample drawn to the counts), the order of counties beside the order of their published
 * ratios, counties known for too few or many clinicians, and the urban-rural gradient. A build without count
 * files (the national NPPES path) has nothing to hold its supply to: the report says so and judges nothing.
 */

/** What the clinician checks read: the ZIPs, each ZIP's overall provider component and supply, and the counts. */
export interface ClinicianInput {
  places: readonly ZipPlace[];
  /** The overall score's provider component per ZIP (null where it has none). */
  provider: ReadonlyArray<number | null>;
  supply: Record<Category, Float64Array> | null;
  counts: PlacedCounts;
  /** The declared sample fraction of the rosters (1 for full files and for counts). */
  sampleFraction: number;
}

/** The categories the count files can speak for directly (the others are estimated or rostered). */
const COUNTED: readonly Category[] = ['primary_care', 'behavioral_health', 'dentistry'];

/** The report's clinician section and its checks; null where the build has no count files. */
export function clinicianValidation(input: ClinicianInput): { report: ClinicianValidation; checks: Check[] } | null {
  const { counts, supply } = input;
  if (counts.kinds.size === 0 || !supply) return null;
  const counties = countyTable(input);
  const agreement = COUNTED.flatMap((category) => supplyAgreement(category, counties, input.sampleFraction));
  const ranking = rankAgainstPublished(counties);
  const known = knownCounties(counties);
  const urbanRural = providerByUrbanRural(input);
  const report: ClinicianValidation = { supply: agreement, ranking, known, urbanRural };
  return { report, checks: clinicianChecks(report) };
}

/** One county: its residents in the build, the overall provider component's mean, its supply and its counts. */
interface County {
  fips: string;
  residents: number;
  provider: number | null;
  supply: Partial<Record<Category, number>>;
  /** Clinicians of the category by the count files (weighted as in the supply), and the files' denominator. */
  counted: Partial<Record<Category, number>>;
  population: number | null;
}

/**
 * Every county of the build: the ZIPs whose residents live mostly in it (zips.county_fips, as an analyst would
 * group them) summed, and the count files' numbers for it (each kind's winning count).
 */
function countyTable(input: ClinicianInput): Map<string, County> {
  const table = new Map<string, County>();
  const providerSum = new Map<string, [number, number]>();
  input.places.forEach((place, i) => {
    if (!place.countyFips) return;
    let county = table.get(place.countyFips);
    if (!county)
      table.set(
        place.countyFips,
        (county = { fips: place.countyFips, residents: 0, provider: null, supply: {}, counted: {}, population: null }),
      );
    const residents = Math.max(0, place.population ?? 0);
    county.residents += residents;
    for (const category of COUNTED) county.supply[category] = (county.supply[category] ?? 0) + input.supply![category][i];
    const provider = input.provider[i];
    if (provider !== null && residents > 0) {
      const sum = providerSum.get(place.countyFips) ?? [0, 0];
      providerSum.set(place.countyFips, [sum[0] + provider * residents, sum[1] + residents]);
    }
  });
  for (const [fips, [weighted, residents]] of providerSum) table.get(fips)!.provider = weighted / residents;
  for (const [kind, placed] of input.counts.kinds) {
    const { category, weight } = COUNT_KINDS[kind];
    if (!category || !COUNTED.includes(category)) continue;
    for (const [fips, count] of placed.used) {
      const county = table.get(fips);
      if (!county) continue;
      county.counted[category] = (county.counted[category] ?? 0) + weight * count.amount;
      if (count.population !== undefined && kind === 'primary_care_physicians') county.population = count.population;
    }
  }
  return table;
}

/**
 * How closely each county's supply in the build matches its counts: every county of `T.clinicianCountyMinResidents`
 * residents or more that the files count, judged within `T.clinicianCountyTolerance` plus one clinician as the build counts them (a declared
 * sample of 8% counts each synthetic clinician 12 times, so its counties agree to within one synthetic clinician).
 */
function supplyAgreement(category: Category, counties: Map<string, County>, sampleFraction: number): ClinicianValidation['supply'] {
  const compared = [...counties.values()].filter((c) => c.counted[category] !== undefined && c.residents >= T.clinicianCountyMinResidents);
  if (compared.length === 0) return [];
  const unit = 1 / sampleFraction;
  const differences = compared.map((c) => Math.abs(c.supply[category]! - c.counted[category]!) / Math.max(c.counted[category]!, 1));
  const within = compared.filter(
    (c) => Math.abs(c.supply[category]! - c.counted[category]!) <= T.clinicianCountyTolerance * c.counted[category]! + unit,
  );
  const sum = (pick: (c: County) => number) => [...counties.values()].reduce((total, c) => total + pick(c), 0);
  const residents = sum((c) => (c.counted[category] !== undefined ? c.residents : 0));
  const per100k = (n: number) => round((100_000 * n) / residents, 1);
  return [
    {
      category,
      counties: compared.length,
      withinTolerance: within.length,
      medianDifferencePct: round(100 * quantile(differences, 0.5), 1),
      p90DifferencePct: round(100 * quantile(differences, 0.9), 1),
      buildPer100k: per100k(sum((c) => (c.counted[category] !== undefined ? c.supply[category]! : 0))),
      filesPer100k: per100k(sum((c) => c.counted[category] ?? 0)),
    },
  ];
}

/**
 * Spearman's rank correlation over counties between the overall provider component (its residents-weighted
 * mean) and the same weights applied to the published ratios of the counted categories, each scored on the
 * component's own log scale. A rank correlation because the component is a monotone, log-scaled reading of
 * supply that also reaches across county lines (30-mile catchments): only whether counties come in the same
 * order is comparable, not the values.
 */
function rankAgainstPublished(counties: Map<string, County>): ClinicianValidation['ranking'] {
  const weights = SCORE_TYPES[0].providers;
  const pairs: Array<[number, number]> = [];
  for (const county of counties.values()) {
    if (county.provider === null || county.residents < T.clinicianRankMinResidents) continue;
    const population = county.population ?? county.residents;
    if (!(population > 0) || COUNTED.some((c) => county.counted[c] === undefined)) continue;
    let score = 0;
    let total = 0;
    for (const category of COUNTED) {
      const ratio = (100_000 * county.counted[category]!) / population;
      score += (weights[category] ?? 0) * logScore(ratio, PROVIDER_BENCHMARKS[category]);
      total += weights[category] ?? 0;
    }
    pairs.push([county.provider, score / total]);
  }
  if (pairs.length < 3) return null;
  return {
    rho: round(
      spearman(
        pairs.map((p) => p[0]),
        pairs.map((p) => p[1]),
      ),
      3,
    ),
    counties: pairs.length,
  };
}

/** The known counties' provider components and where they rank among all counties. */
function knownCounties(counties: Map<string, County>): ClinicianValidation['known'] {
  const scored = [...counties.values()].filter((c) => c.provider !== null).map((c) => c.provider!);
  return KNOWN_COUNTIES.map((known) => {
    const provider = counties.get(known.fips)?.provider ?? null;
    const percentile = provider === null ? null : round(scored.filter((p) => p < provider).length / scored.length, 3);
    const pass =
      percentile !== null &&
      (known.expect === 'low'
        ? percentile <= T.lowCountyPercentile
        : known.expect === 'high'
          ? percentile >= T.highCountyPercentile
          : provider! > 0 && percentile >= 0.5);
    return { ...known, provider: provider === null ? null : round(provider, 1), percentile, pass };
  });
}

/** The residents-weighted mean provider component per NCHS urban-rural class (1 large central metro ... 6 noncore). */
function providerByUrbanRural(input: ClinicianInput): ClinicianValidation['urbanRural'] {
  return [1, 2, 3, 4, 5, 6].map((code) => {
    const members = input.places
      .map((p, i) => [p, input.provider[i]] as const)
      .filter(([p, provider]) => p.urbanRuralCode === code && provider !== null);
    const mean = weightedMean(
      members.map(([, provider]) => provider!),
      members.map(([p]) => Math.max(0, p.population ?? 0)),
    );
    return { code, zips: members.length, provider: mean === null ? null : round(mean, 1) };
  });
}

function clinicianChecks(report: ClinicianValidation): Check[] {
  const checks: Check[] = [];
  if (report.supply.length) {
    const off = report.supply.filter((s) => s.withinTolerance < T.minClinicianCountiesWithin * s.counties || !nationalAgrees(s));
    checks.push({
      name: 'each county holds the clinicians its count files give it (per 100,000 residents)',
      value: report.supply
        .map(
          (s) =>
            `${s.category.replace(/_/g, ' ')} ${s.buildPer100k} vs ${s.filesPer100k}, ${s.withinTolerance} of ${s.counties} counties within tolerance`,
        )
        .join('; '),
      target: `nationally within ${T.clinicianNationalTolerance * 100}%, and ${T.minClinicianCountiesWithin * 100}% of counties of ${T.clinicianCountyMinResidents.toLocaleString('en-US')}+ residents within ${T.clinicianCountyTolerance * 100}% plus one clinician`,
      pass: off.length === 0,
    });
  }
  if (report.ranking)
    checks.push({
      name: 'the provider component orders counties as their published clinician ratios do',
      value: `Spearman ${report.ranking.rho} over ${report.ranking.counties} counties`,
      target: `at least ${T.minPublishedRatioSpearman}`,
      pass: report.ranking.rho >= T.minPublishedRatioSpearman,
    });
  checks.push({
    name: 'counties known for too few or plenty of clinicians rank where they should',
    value: report.known.map((k) => `${k.name} ${k.provider ?? 'none'} (percentile ${k.percentile ?? 'none'})`).join(', '),
    target: `low ones in the bottom ${T.lowCountyPercentile * 100}% of counties, high ones in the top ${100 - T.highCountyPercentile * 100}%, the others above the median`,
    pass: report.known.every((k) => k.pass),
  });
  const classes = report.urbanRural.filter((c) => c.provider !== null);
  const [first, last] = [classes[0], classes[classes.length - 1]];
  checks.push({
    name: 'the provider component falls from large central metro to noncore counties (NCHS 1-6)',
    value: classes.map((c) => c.provider).join(', '),
    target: `highest in class 1, lowest in class 6, by at least ${T.minProviderUrbanRuralDrop} points`,
    pass:
      classes.length === 6 &&
      classes.every((c) => c.provider! <= first.provider! && c.provider! >= last.provider!) &&
      first.provider! - last.provider! >= T.minProviderUrbanRuralDrop,
  });
  return checks;
}

function nationalAgrees(s: ClinicianValidation['supply'][number]): boolean {
  return Math.abs(s.buildPer100k - s.filesPer100k) <= T.clinicianNationalTolerance * s.filesPer100k;
}
