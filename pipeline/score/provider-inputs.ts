import { BuildError } from '../base/errors.ts';
import type { ZipPlace } from '../geo/places.ts';
import type { ProviderPolicy } from '../config/manifest.ts';
import { HEALTH_CENTER_CLINICIANS } from '../config/scoring.ts';
import { measureCoverage, type ProviderCoverage } from './coverage.ts';
import type { CarePoint } from './reach.ts';
import { CATEGORY_NAMES, categoriesOfCmsSpecialty, categoriesOfTaxonomy, type Category } from '../config/specialties.ts';

/** How the provider component stands in a build: measured from full files, from a declared sample, or omitted. */
export type ProviderStatus = 'measured' | 'sample' | 'omitted';

/** The supply the scores use (null when the component is omitted), the coverage measured, and why. */
export interface ProviderInputs {
  supply: Record<Category, Float64Array> | null;
  status: ProviderStatus;
  coverage: ProviderCoverage;
  /** One sentence for people: what the provider component rests on. */
  note: string;
}

/**
 * Scales the clinicians counted per ZIP by the declared sample fraction, measures coverage, and decides:
 * complete coverage scores; partial or uneven coverage fails the build unless the manifest (or
 * `--allow-partial-providers`) chose to omit the provider component. Health centre sites then add their
 * primary care capacity to a supply that is scored.
 */
export function providerInputs(
  places: ZipPlace[],
  counted: Record<Category, Float64Array>,
  policy: ProviderPolicy,
  healthCenters: CarePoint[],
  manifestFile: string,
): ProviderInputs {
  const scale = 1 / policy.sampleFraction;
  const scaled = Object.fromEntries(CATEGORY_NAMES.map((c) => [c, counted[c].map((count) => count * scale)])) as Record<
    Category,
    Float64Array
  >;
  const coverage = measureCoverage(places, scaled, policy.sampleFraction);
  if (!coverage.complete) {
    const why = `The provider files do not cover the country: ${coverage.shortfalls.join('; ')}.`;
    if (policy.onPartialCoverage === 'refuse') {
      throw new BuildError(
        `${why} Scores built from them would measure which rows the files happen to hold. Use the full national NPPES file (hcas fetch), ` +
          `declare a uniform sample in ${manifestFile} with "providers": { "sample_fraction": F }, or publish scores without a provider component with ` +
          `"providers": { "on_partial_coverage": "omit_component" } (or hcas build --allow-partial-providers).`,
      );
    }
    return {
      supply: null,
      status: 'omitted',
      coverage,
      note: `${why} The provider component is left out and the score uses people, hospital and travel.`,
    };
  }
  for (const site of healthCenters) scaled.primary_care[site.zipIndex] += HEALTH_CENTER_CLINICIANS;
  const sample = policy.sampleFraction < 1;
  const note = sample
    ? `Clinicians come from a uniform sample of ${+(policy.sampleFraction * 100).toFixed(2)}% of all clinicians, counted ${+scale.toFixed(2)} times.`
    : `Clinicians come from provider files that cover the country (${Math.round(coverage.national.primary_care.share * 100)}% of the expected primary care density).`;
  return { supply: scaled, status: sample ? 'sample' : 'measured', coverage, note };
}

/**
 * Clinicians per scoring category practising in each ZIP: NPPES providers by primary taxonomy (counted
 * while staging), clinicians known only from Doctors and Clinicians by their CMS specialty.
 */
export function clinicianSupply(
  counts: ReadonlyArray<{ zcta: string; taxonomy: string; count: number }>,
  clinicianOnly: ReadonlyArray<{ zcta: string; specialty: string; n: number }>,
  zipIndex: ReadonlyMap<string, number>,
): Record<Category, Float64Array> {
  const supply = Object.fromEntries(CATEGORY_NAMES.map((c) => [c, new Float64Array(zipIndex.size)])) as Record<Category, Float64Array>;
  const add = (zcta: string, categories: Category[], count: number) => {
    const i = zipIndex.get(zcta);
    if (i === undefined) return;
    for (const category of categories) supply[category][i] += count;
  };
  for (const row of counts) add(row.zcta, categoriesOfTaxonomy(row.taxonomy || null), row.count);
  for (const row of clinicianOnly) add(row.zcta, categoriesOfCmsSpecialty(row.specialty), row.n);
  return supply;
}
