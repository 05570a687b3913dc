import { describe, expect, it } from 'vitest';
import { DENSITY_BY_TAXONOMY, densityMix, mixDensity } from '../producers/sample/density-mix.ts';
import { EXPECTED_DENSITY } from '../pipeline/config/scoring.ts';
import { categoriesOfTaxonomy, CATEGORY_NAMES } from '../pipeline/config/specialties.ts';

describe('the synthetic providers of the default build', () => {
  it('put every clinician category at its documented national density', () => {
    const sums = Object.fromEntries(CATEGORY_NAMES.map((c) => [c, 0]));
    for (const [code, density] of Object.entries(DENSITY_BY_TAXONOMY)) {
      const categories = categoriesOfTaxonomy(code);
      expect(categories.length, code).toBeGreaterThan(0);
      for (const c of categories) sums[c] += density;
    }
    for (const c of CATEGORY_NAMES) expect(sums[c], c).toBeCloseTo(EXPECTED_DENSITY[c], 9);
  });

  it('keep every other kind of provider in its usual proportion to the clinicians', () => {
    const kinds = densityMix();
    const nurses = kinds.find((k) => k.taxonomy === '163W00000X')!;
    const familyMedicine = kinds.find((k) => k.taxonomy === '207Q00000X')!;
    expect(familyMedicine.share).toBe(34);
    expect(nurses.share).toBeGreaterThan(familyMedicine.share);
    // About 900 individual NPPES providers per 100,000 residents in all, a third of them clinicians the scores count.
    expect(mixDensity(kinds)).toBeGreaterThan(600);
    expect(mixDensity(kinds)).toBeLessThan(1200);
  });
});
