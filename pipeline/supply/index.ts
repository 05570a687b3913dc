import { CLINICIAN_BASES, CLINICIAN_BASIS_LETTERS, type ClinicianBasis } from '../../core/clinician-basis.ts';
import { BuildError } from '../base/errors.ts';
import { COUNT_KINDS, PLACED_LIKE } from '../config/clinician-counts.ts';
import type { ProviderPolicy } from '../config/manifest.ts';
import { COVERAGE, ESTIMATED_FROM, EXPECTED_DENSITY, HEALTH_CENTER_CLINICIANS } from '../config/scoring.ts';
import { CATEGORY_NAMES, type Category } from '../config/specialties.ts';
import type { ZipPlace } from '../geo/places.ts';
import type { Ingested } from '../ingest/ingested.ts';
import { countsByKind, type CountCheck, type CountWithdrawal } from './counts.ts';
import { CountyZips } from './county-zips.ts';
import { densityOf, measureCoverage, type Density, type RosterCoverage } from './coverage.ts';
import { placeKind, type PlacedBy, type PlacedKind } from './place.ts';
import { TractZips } from './tracts.ts';

export { rosterSupply } from './rosters.ts';

/**
 * The clinician supply the scores use: per category, from the one source that wins it (docs/METHODOLOGY.md,
 * "Provider: clinicians within reach"): a complete roster (the national NPPES file, or a declared sample of
 * it); else clinician counts per county, tract or ZIP placed where residents are; else an estimate from a total
 * that includes the category; else none, and the category is left out. Each clinician counts once per category.
 */

/** How the provider component stands in a build: measured (rosters or counts), from a declared sample, or omitted. */
export type ProviderStatus = 'measured' | 'sample' | 'omitted';

export { CLINICIAN_BASES, type ClinicianBasis } from '../../core/clinician-basis.ts';

/** What one category rests on, nationally. */
export interface CategorySource {
  /** The basis of most residents' ZIPs. */
  basis: ClinicianBasis;
  /** Residents per basis. */
  residents: Partial<Record<ClinicianBasis, number>>;
  /** Clinicians per 100,000 residents in the build's supply, against the expected national density. */
  density: Density;
  /** The files it comes from: roster keys, or each count file with the residents whose county it counts for the category. */
  sources: Array<{ key: string; year?: number; residents?: number }>;
  /** For an estimate: the total it is split from. */
  estimatedFrom?: string;
}

/** The supply the scores use (null when the component is omitted), where each category's comes from, and why. */
export interface ProviderInputs {
  supply: Record<Category, Float64Array> | null;
  /**
   * The clinicians the sources place, before the health centre sites' floor is added to primary care: what the
   * validation report holds to the count files (the sites' clinicians are in their county's count already).
   */
  sourced: Record<Category, Float64Array> | null;
  /**
   * The estimated categories' supply as a multiple of a placed total (`supply[c]` = `base` x `factor`): E2SFCA
   * is linear in supply, so the scores measure each base once for all the categories estimated from it.
   */
  proportional: Partial<Record<Category, { base: Float64Array; factor: number }>>;
  /** Per category and ZIP, the index in CLINICIAN_BASES of where the ZIP's clinicians of it come from. */
  basis: Record<Category, Uint8Array>;
  status: ProviderStatus;
  roster: RosterCoverage;
  categories: Record<Category, CategorySource>;
  /** The count files: their checks, and how each kind's clinicians were placed within counties. */
  counts: { checks: CountCheck[]; placedBy: Record<string, Record<PlacedBy, number>> };
  /** One sentence for people: what the provider component rests on. */
  note: string;
}

/** What the supply is made from. */
export interface SupplyInput {
  places: ZipPlace[];
  /** The count files placed in ZIPs (placeCounts). */
  placed: PlacedCounts;
  /** Roster clinicians per category and ZIP, as counted (not yet scaled by the sample fraction). */
  roster: Record<Category, Float64Array>;
  policy: ProviderPolicy;
  /** Health centre sites by ZIP index: primary care capacity a roster may list at the organisation's address. */
  healthCenterZips: readonly number[];
  manifestFile: string;
}

/** Chooses each category's source, places counts and estimates, and decides whether the component is scored. */
export function clinicianSupply(input: SupplyInput): ProviderInputs {
  const { places, policy } = input;
  const roster = scaled(input.roster, 1 / policy.sampleFraction);
  const coverage = measureCoverage(places, roster, policy.sampleFraction);
  const { placed } = input;
  const residents = places.map((p) => Math.max(0, p.population ?? 0));
  const population = residents.reduce((a, b) => a + b, 0);
  const supply = {} as Record<Category, Float64Array>;
  const basis = {} as Record<Category, Uint8Array>;
  const categories = {} as Record<Category, CategorySource>;
  const proportional: ProviderInputs['proportional'] = {};
  const rosterBasis: ClinicianBasis = policy.sampleFraction < 1 ? 'sample' : 'roster';
  for (const category of CATEGORY_NAMES) {
    const chosen = coverage.complete.includes(category)
      ? { perZip: roster[category], inCounty: () => true, basis: rosterBasis, sources: rosterSources(input) }
      : (fromCounts(category, placed) ?? fromEstimate(category, placed, population));
    supply[category] = chosen?.perZip ?? new Float64Array(places.length);
    basis[category] = Uint8Array.from(places, (p) =>
      CLINICIAN_BASES.indexOf(
        chosen && (chosen.basis === rosterBasis || (p.countyFips !== null && chosen.inCounty(p.countyFips))) ? chosen.basis : 'none',
      ),
    );
    categories[category] = describe(category, chosen, basis[category], supply[category], residents, population);
    if (chosen?.proportional) proportional[category] = chosen.proportional;
  }
  // A site's clinicians are in the counts of its county already; a roster may list them at the organisation.
  const sourced = { ...supply, primary_care: supply.primary_care.slice() };
  if (coverage.complete.includes('primary_care'))
    for (const i of input.healthCenterZips) supply.primary_care[i] += HEALTH_CENTER_CLINICIANS;
  const counts = { checks: placed.checks, placedBy: Object.fromEntries([...placed.kinds].map(([kind, p]) => [kind, p.placedBy])) };
  const status: ProviderStatus = CATEGORY_NAMES.some((c) => categories[c].basis === 'sample') ? 'sample' : 'measured';
  const shortfall = componentShortfall(categories, coverage);
  const made = { basis, proportional, roster: coverage, categories, counts };
  if (shortfall) {
    if (policy.onPartialCoverage === 'refuse') throw refusal(shortfall, input.manifestFile);
    return {
      ...made,
      supply: null,
      sourced: null,
      status: 'omitted',
      note: `${shortfall} The provider component is left out and the score uses people, hospital and travel.`,
    };
  }
  return { ...made, supply, sourced, status, note: sourcesNote(categories, policy.sampleFraction) };
}

/** One category's supply as a source gives it: clinicians per ZIP, which counties it counts, and its basis. */
interface Chosen {
  perZip: Float64Array;
  inCounty(county: string): boolean;
  basis: ClinicianBasis;
  sources: CategorySource['sources'];
  estimatedFrom?: string;
  proportional?: { base: Float64Array; factor: number };
}

/** Every count kind placed in ZIPs, with the files' checks and the rows no county holds. */
export interface PlacedCounts {
  kinds: Map<string, PlacedKind>;
  checks: CountCheck[];
  /** Count rows that landed but lie in no county of the build (the reconciliation reports them). */
  withdrawn: CountWithdrawal[];
}

/** What the count files are placed with: the ZIPs, the crosswalks, the tract centres. */
export interface CountsInput {
  places: ZipPlace[];
  zipIndex: ReadonlyMap<string, number>;
  zctaOfZip(zip: string): string | null;
  data: Pick<Ingested, 'clinicianCounts' | 'tractCentres' | 'zipCounties' | 'zctaCounties' | 'zipToZcta'>;
}

/** Reads the count files per kind and county, chooses the count of each county, and places it in ZIPs. */
export function placeCounts(input: CountsInput): PlacedCounts {
  const { places, data } = input;
  if (data.clinicianCounts.length === 0) return { kinds: new Map(), checks: [], withdrawn: [] };
  const countyZips = new CountyZips(places, data);
  const tractZips = new TractZips(data.tractCentres, places, countyZips);
  const zipIndexOf = (zip: string) => input.zipIndex.get(input.zctaOfZip(zip) ?? '');
  const { counties, checks, withdrawn } = countsByKind(data.clinicianCounts, zipIndexOf, countyZips);
  const kinds = new Map(
    [...counties].map(([kind, byCounty]) => {
      const like = PLACED_LIKE[kind] === undefined ? undefined : counties.get(PLACED_LIKE[kind]);
      return [kind, placeKind(byCounty, countyZips, tractZips, places.length, like)];
    }),
  );
  return { kinds, checks, withdrawn };
}

/** A category from the counts of its kinds (primary care: physicians, and NPs and PAs at their weight). */
function fromCounts(category: Category, placed: PlacedCounts): Chosen | null {
  const kinds = [...placed.kinds].filter(([kind]) => COUNT_KINDS[kind].category === category);
  if (kinds.length === 0) return null;
  const perZip = new Float64Array(kinds[0][1].perZip.length);
  for (const [kind, p] of kinds) {
    const { weight } = COUNT_KINDS[kind];
    p.perZip.forEach((n, i) => (perZip[i] += weight * n));
  }
  const years = new Map<string, number>();
  for (const [, p] of kinds) for (const count of p.used.values()) years.set(count.source, count.year);
  return {
    perZip,
    inCounty: (county) => kinds.some(([, p]) => p.used.has(county)),
    basis: 'count',
    sources: [...years].map(([key, year]) => ({ key, year })),
  };
}

/**
 * A category no file counts, estimated from a placed total that includes it (config ESTIMATED_FROM): its
 * national count (the expected density over the build's residents) placed where that total's clinicians are.
 */
function fromEstimate(category: Category, placed: PlacedCounts, population: number): Chosen | null {
  const parent = ESTIMATED_FROM[category];
  const total = parent ? placed.kinds.get(parent) : undefined;
  if (!parent || !total) return null;
  const sum = total.perZip.reduce((a, b) => a + b, 0);
  if (sum <= 0) return null;
  const factor = (EXPECTED_DENSITY[category] * population) / 100_000 / sum;
  const years = new Map([...total.used.values()].map((c) => [c.source, c.year]));
  return {
    perZip: total.perZip.map((n) => n * factor),
    inCounty: (county) => total.used.has(county),
    basis: 'estimate',
    sources: [...years].map(([key, year]) => ({ key, year })),
    estimatedFrom: parent,
    proportional: { base: total.perZip, factor },
  };
}

function rosterSources(input: Pick<SupplyInput, 'policy'>): CategorySource['sources'] {
  return [
    {
      key: `roster (${input.policy.sampleFraction < 1 ? `a declared ${+(input.policy.sampleFraction * 100).toPrecision(3)}% sample` : 'the provider files'})`,
    },
  ];
}

function describe(
  category: Category,
  chosen: Chosen | null,
  basis: Uint8Array,
  supply: Float64Array,
  residents: readonly number[],
  population: number,
): CategorySource {
  const byBasis: Partial<Record<ClinicianBasis, number>> = {};
  basis.forEach((b, i) => (byBasis[CLINICIAN_BASES[b]] = (byBasis[CLINICIAN_BASES[b]] ?? 0) + residents[i]));
  const counted = population - (byBasis.none ?? 0);
  const main = CLINICIAN_BASES.filter((b) => byBasis[b] !== undefined).sort((a, b) => byBasis[b]! - byBasis[a]!)[0] ?? 'none';
  return {
    basis: main,
    residents: byBasis,
    // Density over the residents of the ZIPs the source speaks for: a count that covers no territory is not diluted by it.
    density: densityOf(
      supply.reduce((a, b) => a + b, 0),
      counted,
      category,
    ),
    sources: chosen?.sources ?? [],
    ...(chosen?.estimatedFrom ? { estimatedFrom: chosen.estimatedFrom } : {}),
  };
}

/** Why the provider component cannot be scored, or null when it can (config COVERAGE). */
function componentShortfall(categories: Record<Category, CategorySource>, roster: RosterCoverage): string | null {
  // A category has a source where any ZIP's clinicians of it are counted; a ZIP without one leaves it out there.
  const sourced = CATEGORY_NAMES.filter((c) => Object.keys(categories[c].residents).some((b) => b !== 'none'));
  if (sourced.length === 0)
    return `No source counts clinicians: the manifest names no provider file that covers the country and no clinician count file (${Object.values(roster.shortfalls)[0] ?? 'no roster rows landed'}).`;
  if (!sourced.includes('primary_care'))
    return `No source counts primary care clinicians: ${roster.shortfalls.primary_care ?? 'the rosters do not count them'}, and no count file counts them.`;
  if (sourced.length < COVERAGE.minCategoriesShare * CATEGORY_NAMES.length) {
    const missing = CATEGORY_NAMES.filter((c) => !sourced.includes(c));
    return `Only ${sourced.length} of ${CATEGORY_NAMES.length} clinician categories have a source (none for ${missing.join(', ')}).`;
  }
  return null;
}

function refusal(shortfall: string, manifestFile: string): BuildError {
  return new BuildError(
    `${shortfall} Scores built from the provider files would measure which rows they happen to hold. Use the full national NPPES file (hcas fetch), ` +
      `add clinician count files (layout clinician_counts: County Health Rankings, the Area Health Resources File; docs/METHODOLOGY.md), ` +
      `declare a uniform sample in ${manifestFile} with "providers": { "sample_fraction": F }, or publish scores without a provider component with ` +
      `"providers": { "on_partial_coverage": "omit_component" } (or hcas build --allow-partial-providers).`,
  );
}

/** One sentence: which categories rest on what. */
function sourcesNote(categories: Record<Category, CategorySource>, sampleFraction: number): string {
  const named = (basis: ClinicianBasis) => CATEGORY_NAMES.filter((c) => categories[c].basis === basis).map((c) => c.replace(/_/g, ' '));
  const list = (names: string[]) => (names.length > 4 ? `${names.length} categories` : names.join(', '));
  const parts = [
    named('sample').length
      ? `a uniform sample of ${+(sampleFraction * 100).toFixed(2)}% of all clinicians, counted ${+(1 / sampleFraction).toFixed(2)} times (${list(named('sample'))})`
      : '',
    named('roster').length ? `rosters that cover the country (${list(named('roster'))})` : '',
    named('count').length ? `clinician counts placed where residents live (${list(named('count'))})` : '',
    named('estimate').length ? `estimates from a total that includes them (${list(named('estimate'))})` : '',
  ].filter(Boolean);
  const none = CATEGORY_NAMES.filter((c) => Object.keys(categories[c].residents).every((b) => b === 'none')).map((c) =>
    c.replace(/_/g, ' '),
  );
  return `Clinicians come from ${parts.join('; ')}.${none.length ? ` No source counts ${none.join(', ')}: left out of the scores that weigh them.` : ''}`;
}

function scaled(supply: Record<Category, Float64Array>, factor: number): Record<Category, Float64Array> {
  return Object.fromEntries(CATEGORY_NAMES.map((c) => [c, supply[c].map((n) => n * factor)])) as Record<Category, Float64Array>;
}

/** Each ZIP's bases, one letter per category in CATEGORY_NAMES order (`zips.clinician_basis`). */
export function basisLetters(basis: Record<Category, Uint8Array>, zips: number): string[] {
  const letters = CATEGORY_NAMES.map((c) => basis[c]);
  return Array.from({ length: zips }, (_, i) => letters.map((codes) => CLINICIAN_BASIS_LETTERS[CLINICIAN_BASES[codes[i]]]).join(''));
}
